//! Philox4x32-10: Random123's published known answers, counter mapping, resumption.
#include "rng/Philox.hh"

#include <gtest/gtest.h>

#include "KnownAnswers.hh"
#include "rng/Distributions.hh"
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

TEST(PhiloxTest, AlignDrawsSkipsToTheNextBlock)
{
    // A history's words 0..15 drawn straight through; then the same history
    // with align_draws after k words: the next word is word 4 ceil(k / 4).
    PerThreadRngStore<PhiloxEngine> store({31u, 1u, 0u}, 1, MemSpace::host);
    auto view = store.view();
    std::vector<std::uint32_t> straight;
    {
        PhiloxEngine e(view, 0);
        e.begin_history(42);
        for (int i = 0; i < 16; ++i)
            straight.push_back(e());
    }
    for (int k = 0; k <= 8; ++k)
    {
        PhiloxEngine e(view, 0);
        e.begin_history(42);
        for (int i = 0; i < k; ++i)
            EXPECT_EQ(straight[i], e());
        align_draws(e);
        int const next = (k + 3) / 4 * 4;
        EXPECT_EQ(straight[next], e()) << "after " << k << " words";
        EXPECT_EQ(straight[next + 1], e()) << "after " << k << " words";
        align_draws(e); // mid-block again: on to the block after
        EXPECT_EQ(straight[next + 4], e()) << "after " << k << " words";
    }
    // The stored state is the draw index: an engine rebuilt after a skip
    // resumes at the same word.
    {
        PhiloxEngine e(view, 0);
        e.begin_history(42);
        e();
        align_draws(e);
    }
    EXPECT_EQ(4u, store.states_to_host()[0].draw_index);
    PhiloxEngine resumed(view, 0);
    EXPECT_EQ(straight[4], resumed());
}
} // namespace mcdose::test
