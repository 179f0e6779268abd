//! LCG and Ran2 baselines: recorded words and independent checks of the recurrences.
#include <gtest/gtest.h>

#include "KnownAnswers.hh"
#include "rng/GenerateWords.hh"
#include "rng/SplitMix64.hh"

namespace mcdose::test
{
TEST(LcgTest, KnownAnswerWordsAndRecurrence)
{
    PerThreadRngStore<LcgEngine> store(kat_lcg_params(), kat_threads, MemSpace::host);
    auto const seeds = store.states_to_host();
    auto const out = generate_words<LcgEngine>(store, kat_words);
    EXPECT_EQ(kat_lcg_words(), out);
    for (size_type j = 0; j < kat_threads; ++j)
    {
        EXPECT_EQ(SplitMix64(kat_lcg_params().seed, j).next_u32(), seeds[j].z);
        std::uint64_t z = seeds[j].z;
        for (size_type k = 0; k < kat_words; ++k)
        {
            z = (1664525ull * z + 1013904223ull) % 4294967296ull;
            EXPECT_EQ(z, out[k * kat_threads + j]);
        }
    }
}

TEST(Ran2Test, KnownAnswerWords)
{
    PerThreadRngStore<Ran2Engine> store(kat_ran2_params(), kat_threads, MemSpace::host);
    EXPECT_EQ(kat_ran2_words(), generate_words<Ran2Engine>(store, kat_words));
}

TEST(Ran2Test, ComponentGeneratorsMatchDirectModularArithmetic)
{
    // Schrage's decomposition must equal a z mod m computed in 64 bits.
    auto s = make_ran2_state(1);
    std::int64_t z1 = s.z1, z2 = s.z2;
    std::vector<Ran2State> states{s};
    PerThreadRngStore<Ran2Engine> store({}, states, MemSpace::host);
    generate_words<Ran2Engine>(store, 1000);
    for (int i = 0; i < 1000; ++i)
    {
        z1 = (z1 * ran2::a1) % ran2::m1;
        z2 = (z2 * ran2::a2) % ran2::m2;
    }
    auto const after = store.states_to_host()[0];
    EXPECT_EQ(z1, after.z1);
    EXPECT_EQ(z2, after.z2);
    EXPECT_EQ(140u, Ran2Engine::state_bytes_per_thread);
}

TEST(Ran2Test, RejectsOutOfRangeSeed)
{
    EXPECT_THROW(make_ran2_state(0), RuntimeError);
    EXPECT_THROW(make_ran2_state(ran2::m1), RuntimeError);
}
} // namespace mcdose::test
