//! Hybrid Taus: independent re-implementation, recorded words, state rules.
#include "rng/HybridTaus.hh"

#include <gtest/gtest.h>

#include "KnownAnswers.hh"
#include "rng/GenerateWords.hh"
#include "rng/SplitMix64.hh"

namespace mcdose::test
{
namespace
{
//! Straightforward re-implementation from GPU Gems 3, ch. 37, written
//! independently of rng/HybridTaus.hh (plain function, runtime shifts).
struct ReferenceHybridTaus
{
    unsigned z[4];
    static unsigned taus(unsigned& z, int s1, int s2, int s3, unsigned m)
    {
        unsigned b = (((z << s1) ^ z) >> s2);
        z = (((z & m) << s3) ^ b);
        return z;
    }
    unsigned next()
    {
        unsigned const t1 = taus(z[0], 13, 19, 12, 4294967294u);
        unsigned const t2 = taus(z[1], 2, 25, 4, 4294967288u);
        unsigned const t3 = taus(z[2], 3, 11, 17, 4294967280u);
        z[3] = 1664525u * z[3] + 1013904223u;
        return t1 ^ t2 ^ t3 ^ z[3];
    }
};
} // namespace

TEST(HybridTausTest, MatchesIndependentReimplementation)
{
    size_type const threads = 7, words = 1000;
    PerThreadRngStore<HybridTausEngine> store({20240611u, 3u}, threads, MemSpace::host);
    auto const initial = store.states_to_host();
    auto const out = generate_words<HybridTausEngine>(store, words);
    for (size_type j = 0; j < threads; ++j)
    {
        ReferenceHybridTaus ref{{initial[j].z1, initial[j].z2, initial[j].z3, initial[j].z4}};
        for (size_type k = 0; k < words; ++k)
            ASSERT_EQ(ref.next(), out[k * threads + j]) << "thread " << j << " word " << k;
    }
}

TEST(HybridTausTest, KnownAnswerWords)
{
    PerThreadRngStore<HybridTausEngine> store(kat_hybrid_taus_params(), kat_threads,
                                              MemSpace::host);
    EXPECT_EQ(kat_hybrid_taus_words(), generate_words<HybridTausEngine>(store, kat_words));
}

TEST(HybridTausTest, SeedingEnforcesTauswortheBounds)
{
    // Seeds come from SplitMix64(seed, stream); every state must be valid.
    PerThreadRngStore<HybridTausEngine> store({1u, 0u}, 4096, MemSpace::host);
    for (auto const& s : store.states_to_host())
    {
        EXPECT_GE(s.z1, hybrid_taus_min_z1);
        EXPECT_GE(s.z2, hybrid_taus_min_z2);
        EXPECT_GE(s.z3, hybrid_taus_min_z3);
    }
    // The first word of thread 5 is SplitMix64(1, 5)'s upper half (no rejection needed).
    SplitMix64 sm(1u, 5u);
    EXPECT_EQ(sm.next_u32(), store.states_to_host()[5].z1);
}

TEST(HybridTausTest, RejectsDegenerateState)
{
    std::vector<HybridTausState> bad{{123456u, 7u, 99999u, 0u}}; // z2 < 8
    try
    {
        PerThreadRngStore<HybridTausEngine> store({}, bad, MemSpace::host);
        FAIL() << "a state with z2 = 7 was accepted";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("must be >= 2, 8 and 16"), std::string::npos)
            << e.what();
    }
}

TEST(HybridTausTest, EngineWritesStateBack)
{
    // Drawing 5 + 5 words through two engines equals 10 through one.
    PerThreadRngStore<HybridTausEngine> a({99u, 0u}, 1, MemSpace::host);
    PerThreadRngStore<HybridTausEngine> b({99u, 0u}, 1, MemSpace::host);
    auto const first = generate_words<HybridTausEngine>(a, 5);
    auto const second = generate_words<HybridTausEngine>(a, 5);
    auto const all = generate_words<HybridTausEngine>(b, 10);
    for (size_type k = 0; k < 5; ++k)
    {
        EXPECT_EQ(all[k], first[k]);
        EXPECT_EQ(all[k + 5], second[k]);
    }
}
} // namespace mcdose::test
