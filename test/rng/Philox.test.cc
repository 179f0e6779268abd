//! Philox4x32-10: Random123's published known answers, counter mapping, resumption.
#include "rng/Philox.hh"

#include <gtest/gtest.h>

#include "KnownAnswers.hh"
#include "rng/GenerateWords.hh"

namespace mcdose::test
{
TEST(PhiloxTest, PublishedKnownAnswers)
{
    for (auto const& kat : philox_published_kats())
    {
        auto const r = philox4x32_10(kat.ctr, kat.key);
        for (int i = 0; i < 4; ++i)
            EXPECT_EQ(kat.expected[i], r.v[i]) << "vector " << kat.name << " word " << i;
    }
}

TEST(PhiloxTest, EngineMapsSeedStreamHistoryDrawOntoKeyAndCounter)
{
    // Counter (block, stream, history lo, history hi), key (seed lo, seed hi):
    // the pi-digits vector is reached through the engine interface.
    auto const& kat = philox_published_kats()[2];
    PerThreadRngStore<PhiloxEngine> store(philox_pi_params(), philox_pi_states(), MemSpace::host);
    auto const out = generate_words<PhiloxEngine>(store, 4);
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(kat.expected[i], out[i]) << "word " << i;
}

TEST(PhiloxTest, KnownAnswerWords)
{
    PerThreadRngStore<PhiloxEngine> store(kat_philox_params(), kat_threads, MemSpace::host);
    EXPECT_EQ(kat_philox_words(), generate_words<PhiloxEngine>(store, kat_words));
}

TEST(PhiloxTest, HistoryNumbersDoNotDependOnThread)
{
    PerThreadRngStore<PhiloxEngine> store({77u, 2u, 0u}, 8, MemSpace::host);
    auto view = store.view();
    std::vector<std::uint32_t> from_thread0, from_thread5;
    {
        PhiloxEngine e(view, 0);
        e.begin_history(123456789012ull);
        for (int i = 0; i < 11; ++i)
            from_thread0.push_back(e());
    }
    {
        PhiloxEngine e(view, 5);
        e(), e(); // whatever the thread did before
        e.begin_history(123456789012ull);
        for (int i = 0; i < 11; ++i)
            from_thread5.push_back(e());
    }
    EXPECT_EQ(from_thread0, from_thread5);
}

TEST(PhiloxTest, ResumesInsideABlock)
{
    // 3 + 6 words through two engines (the second starts mid-block) equal 9 through one.
    PerThreadRngStore<PhiloxEngine> a({5u, 0u, 0u}, 1, MemSpace::host);
    PerThreadRngStore<PhiloxEngine> b({5u, 0u, 0u}, 1, MemSpace::host);
    auto first = generate_words<PhiloxEngine>(a, 3);
    auto const second = generate_words<PhiloxEngine>(a, 6);
    first.insert(first.end(), second.begin(), second.end());
    EXPECT_EQ(generate_words<PhiloxEngine>(b, 9), first);
    EXPECT_EQ(9u, a.states_to_host()[0].draw_index);
}
} // namespace mcdose::test
