//! Lagged Fibonacci: cycle division reproduces the sequential recurrence,
//! rounds are order-independent (race-free), bad lags are refused, overflow is
//! served and counted.
#include "rng/LaggedFibonacci.hh"

#include <algorithm>
#include <deque>

#include <gtest/gtest.h>

#include "KnownAnswers.hh"
#include "rng/GenerateWords.hh"
#include "rng/SplitMix64.hh"

namespace mcdose::test
{
namespace
{
std::string error_of(std::function<void()> const& f)
{
    try
    {
        f();
    }
    catch (RuntimeError const& e)
    {
        return e.what();
    }
    return "";
}
} // namespace

TEST(LaggedFibonacciTest, CycleDivisionEqualsSequentialRecurrence)
{
    // Sequential reference: x_n = x_{n-ll} + x_{n-(ll-sl)} from the same initial ring;
    // thread j's k-th word of round t is x_{(j + N t) RNS + k}.
    size_type const n = 16, rns = 5, rounds = 40;
    LaggedFibonacciRngParams params;
    params.seed = 2024;
    params.numbers_per_round = rns;
    LaggedFibonacciRngStore store(params, n, MemSpace::host);
    LagPair const lags = store.lags();
    EXPECT_EQ(1252u, lags.short_lag);
    EXPECT_EQ(2281u, lags.long_lag);

    std::deque<std::uint32_t> hist; // x_{n-ll} .. x_{n-1}
    SplitMix64 sm(2024, 0);
    for (size_type i = 0; i < lags.long_lag; ++i)
        hist.push_back(sm.next_u32());
    std::vector<std::uint32_t> seq;
    for (size_type i = 0; i < n * rns * rounds; ++i)
    {
        std::uint32_t const x = hist[0] + hist[lags.short_lag];
        seq.push_back(x);
        hist.pop_front();
        hist.push_back(x);
    }
    auto const out = generate_words<LaggedFibonacciEngine>(store, rns * rounds);
    for (size_type t = 0; t < rounds; ++t)
        for (size_type j = 0; j < n; ++j)
            for (size_type k = 0; k < rns; ++k)
                ASSERT_EQ(seq[(j + n * t) * rns + k], out[(t * rns + k) * n + j])
                    << "round " << t << " thread " << j << " word " << k;
    EXPECT_EQ(0u, store.overflow_words());
}

TEST(LaggedFibonacciTest, RoundDoesNotDependOnThreadOrder)
{
    // Race-free means any interleaving of the threads gives the same ring:
    // forward and reverse thread order over 5 rounds must agree with the store.
    size_type const n = 100, rns = 12;
    LaggedFibonacciRngParams params;
    params.seed = 7;
    params.numbers_per_round = rns;
    LaggedFibonacciRngStore store(params, n, MemSpace::host);
    // (1252, 2281) has ll - sl = 1029 < RNS N = 1200, so the next pair is chosen.
    ASSERT_EQ(3004u, store.lags().short_lag);
    ASSERT_EQ(4423u, store.lags().long_lag);

    auto ring_f = store.ring_to_host(), ring_r = ring_f;
    std::vector<std::uint32_t> used(n);
    LaggedFibonacciView v{};
    v.used = make_span(used);
    v.short_lag = 3004;
    v.long_lag = 4423;
    v.numbers_per_round = rns;
    v.num_threads = n;
    for (std::uint32_t t = 0, off = 0; t < 5; ++t, off = (off + n * rns) % 4423)
    {
        v.round_offset = off;
        v.ring = make_span(ring_f);
        for (size_type j = 0; j < n; ++j)
            lfg_generate_round(v, j);
        v.ring = make_span(ring_r);
        for (size_type j = n; j-- > 0;)
            lfg_generate_round(v, j);
        store.begin_batch();
        store.end_batch();
    }
    EXPECT_EQ(ring_f, ring_r);
    EXPECT_EQ(store.ring_to_host(), ring_f);
}

TEST(LaggedFibonacciTest, RefusesRacyLags)
{
    auto msg = error_of([] { validate_lag_conditions({1252, 2281}, 100, 11); });
    EXPECT_NE(msg.find("not race-free"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ll-sl=1029"), std::string::npos) << msg;
    msg = error_of([] { validate_lag_conditions({1252, 2281}, 100, 10); });
    EXPECT_EQ("", msg);
    msg = error_of([] { validate_lag_conditions({1000, 2281}, 100, 10); });
    EXPECT_NE(msg.find("sl=1000"), std::string::npos) << msg;
    // No table entry serves 10^7 threads.
    msg = error_of([] { max_numbers_per_round(10000000); });
    EXPECT_NE(msg.find("use fewer threads or another generator"), std::string::npos) << msg;
    msg = error_of(
        []
        {
            LaggedFibonacciRngParams p;
            p.numbers_per_round = 4;
            LaggedFibonacciRngStore s(p, 300000, MemSpace::host);
        });
    EXPECT_NE(msg.find("reduce numbers per round or threads"), std::string::npos) << msg;
}

TEST(LaggedFibonacciTest, AutomaticRoundSizeAndMemory)
{
    LaggedFibonacciRngParams p;
    LaggedFibonacciRngStore s(p, 4096, MemSpace::host);
    EXPECT_EQ((1010202u - 1) / 4096, s.words_per_batch());
    EXPECT_EQ(3021377u, s.lags().long_lag);
    EXPECT_EQ(3021377u * 4 + 4096 * 4 + 8, s.memory_bytes());
}

TEST(LaggedFibonacciTest, ExhaustedSliceFallsBackAndCounts)
{
    LaggedFibonacciRngParams p;
    p.seed = 3;
    p.numbers_per_round = 4;
    LaggedFibonacciRngStore store(p, 2, MemSpace::host);
    auto view = store.begin_batch();
    std::vector<std::uint32_t> a, b;
    {
        LaggedFibonacciEngine e(view, 0);
        for (int i = 0; i < 10; ++i)
            a.push_back(e()); // 4 from the slice, 6 from the fallback
    }
    store.end_batch();
    EXPECT_EQ(6u, store.overflow_words());
    auto const ring = store.ring_to_host();
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(ring[i], a[i]);
    // Fallback words are distinct from thread 1's and deterministic.
    {
        LaggedFibonacciEngine e(view, 1);
        for (int i = 0; i < 10; ++i)
            b.push_back(e());
    }
    EXPECT_NE(std::vector<std::uint32_t>(a.begin() + 4, a.end()),
              std::vector<std::uint32_t>(b.begin() + 4, b.end()));
}

TEST(LaggedFibonacciTest, KnownAnswerWords)
{
    LaggedFibonacciRngStore store(kat_lfg_params(), kat_threads, MemSpace::host);
    EXPECT_EQ(kat_lfg_words(), generate_words<LaggedFibonacciEngine>(store, kat_words));
}
} // namespace mcdose::test
