//! Run-time selection by name and dispatch to the concrete engine type.
#include "rng/RngKind.hh"

#include <string>

#include <gtest/gtest.h>

#include "rng/GenerateWords.hh"

namespace mcdose::test
{
TEST(RngKindTest, NamesRoundTrip)
{
    for (auto k : all_rng_kinds())
        EXPECT_EQ(k, to_rng_kind(to_cstring(k)));
    try
    {
        to_rng_kind("mersenne");
        FAIL() << "unknown name accepted";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("'mersenne'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("hybrid-taus, lagged-fibonacci, philox"),
                  std::string::npos);
    }
}

TEST(RngKindTest, VisitCallsWithTheEngineType)
{
    for (auto k : all_rng_kinds())
    {
        RngOptions opts;
        opts.kind = k;
        opts.seed = 11;
        opts.lfg_numbers_per_round = 16;
        auto const words = visit_rng(k,
                                     [&](auto tag)
                                     {
                                         using Engine = typename decltype(tag)::type;
                                         EXPECT_STREQ(to_cstring(k), Engine::name);
                                         auto store =
                                             make_rng_store<Engine>(opts, 32, MemSpace::host);
                                         return generate_words<Engine>(store, 40);
                                     });
        ASSERT_EQ(32u * 40u, words.size());
        // Not a constant stream: at least 99% distinct words.
        std::vector<std::uint32_t> sorted(words);
        std::sort(sorted.begin(), sorted.end());
        auto const distinct = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
        EXPECT_GT(distinct, 0.99 * words.size()) << to_cstring(k);
    }
}
} // namespace mcdose::test
