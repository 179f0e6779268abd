//! `mcdose rng ...` end to end: dump writes exactly the words requested in the
//! documented interleaved order; bad input gives a one-line error naming the fix.
#include <cstring>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"
#include "rng/GenerateWords.hh"

namespace mcdose::test
{
TEST(RngCliTest, DumpWritesInterleavedWords)
{
    auto const r = run_command(mcdose_exe() + " rng dump -g hybrid-taus -s 3 -n 5 --seed 77");
    ASSERT_EQ(0, r.exit_code) << r.output;
    ASSERT_EQ(3u * 5u * 4u, r.output.size());
    std::vector<std::uint32_t> words(15);
    std::memcpy(words.data(), r.output.data(), r.output.size());
    PerThreadRngStore<HybridTausEngine> store({77u, 0u}, 3, MemSpace::host);
    EXPECT_EQ(generate_words<HybridTausEngine>(store, 5), words);
}

TEST(RngCliTest, UnknownGeneratorIsRefused)
{
    auto const r = run_command(mcdose_exe() + " rng dump -g mt19937 -n 1");
    EXPECT_NE(0, r.exit_code);
    EXPECT_NE(r.output.find("unknown random-number generator 'mt19937'"), std::string::npos)
        << r.output;
}

TEST(RngCliTest, RacyLaggedFibonacciIsRefused)
{
    auto const r =
        run_command(mcdose_exe() + " rng dump -g lagged-fibonacci -s 4096 --numbers-per-round 300 "
                                   "-n 1");
    EXPECT_NE(0, r.exit_code);
    EXPECT_NE(r.output.find("not race-free"), std::string::npos) << r.output;
}
} // namespace mcdose::test
