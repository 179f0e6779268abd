//! \file test/tally/AtomicHost.test.cc
//! Host versions of the seven atomic methods under many std::threads.
#include <cmath>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tally/BlockTallyCache.hh"
#include "tally/DoseTally.hh"
#include "tally/TallyMethod.hh"

namespace mcdose::test
{
namespace
{
//! `threads` std::threads each make `per_thread` deposits: deposit i of
//! thread t goes to bin_of(t, i) with energy_of(t, i) [MeV].
template <class BinOf, class EnergyOf>
void deposit_from_threads(DoseTally& tally, unsigned threads, int per_thread, BinOf bin_of,
                          EnergyOf energy_of)
{
    dispatch_tally_method(tally.method(),
                          [&](auto policy)
                          {
                              auto const view = tally.view<decltype(policy)>();
                              std::vector<std::thread> pool;
                              for (unsigned t = 0; t < threads; ++t)
                              {
                                  pool.emplace_back(
                                      [=]
                                      {
                                          for (int i = 0; i < per_thread; ++i)
                                              view.deposit(bin_of(t, i), energy_of(t, i));
                                      });
                              }
                              for (auto& th : pool)
                                  th.join();
                          });
}

//! `threads` threads each deposit `per_thread` values into `bins` bins.
//! value(t, i) = (1 + (t + i) % 7) * 2^-10 MeV: multiples of 2^-10 whose
//! per-bin sums stay below 2^24 * 2^-10, so every method (even float FA and
//! the Kahan float pair) is exact and any lost update shows as a difference.
std::vector<double> hammer(TallyMethod method, unsigned threads, int per_thread, size_type bins)
{
    double const max_total = double(threads) * per_thread * 8.0 / 1024;
    DoseTally tally({method, bins, max_total, Backend::cpu});
    deposit_from_threads(
        tally, threads, per_thread, [bins](unsigned t, int i) { return (t * 31u + i) % bins; },
        [](unsigned t, int i) { return (1 + (t + i) % 7) / 1024.0; });
    return tally.batch_energy_MeV();
}

std::vector<double> exact_bins(unsigned threads, int per_thread, size_type bins)
{
    std::vector<long long> units(bins, 0);
    for (unsigned t = 0; t < threads; ++t)
        for (int i = 0; i < per_thread; ++i)
            units[(t * 31u + i) % bins] += 1 + (t + i) % 7;
    std::vector<double> result(bins);
    for (size_type b = 0; b < bins; ++b)
        result[b] = double(units[b]) / 1024;
    return result;
}

TEST(AtomicHostTest, EveryMethodExactUnderContention)
{
    unsigned const threads = 16;
    int const per_thread = 40000;
    for (size_type bins : {size_type(1), size_type(3)})
    {
        auto const expected = exact_bins(threads, per_thread, bins);
        for (TallyMethod m : all_tally_methods())
        {
            auto const got = hammer(m, threads, per_thread, bins);
            ASSERT_EQ(expected.size(), got.size());
            for (size_type b = 0; b < bins; ++b)
                EXPECT_EQ(expected[b], got[b]) << to_cstring(m) << " bin " << b << " of " << bins;
        }
    }
}

//! 4 threads x 2^20 deposits of 0.1 MeV into one voxel: float FA stagnates
//! (ulp(2^18) = 2^-5 in float, so 0.1 rounds to 3 ulps: about -6% per add
//! late in the run), the double and fixed-point methods do not.
TEST(AtomicHostTest, FloatAtomicsLoseDoseOthersDoNot)
{
    unsigned const threads = 4;
    int const per_thread = 1 << 20;
    long double const deposit = 0.1; // the double nearest 0.1, exactly
    long double const exact = (long double)threads * per_thread * deposit;
    double const n = double(threads) * per_thread;
    for (TallyMethod m : all_tally_methods())
    {
        DoseTally tally({m, 1, double(exact) * 2, Backend::cpu});
        deposit_from_threads(
            tally, threads, per_thread, [](unsigned, int) { return size_type(0); },
            [](unsigned, int) { return 0.1; });
        double const rel = double((tally.batch_energy_MeV()[0] - exact) / exact);
        if (m == TallyMethod::fa)
        {
            EXPECT_GT(std::abs(rel), 1e-3) << "FA should under-count a hot voxel";
            continue;
        }
        // Recursive double summation: |error| <= gamma_{n-1} S with u = 2^-53
        // (KAS: Kahan float pair, (2u + 2nu^2) with u = 2^-24; FX: n q/2).
        // KAS Kahan-adds the float hi and lo parts of each deposit: 2n terms.
        double const u = m == TallyMethod::kas ? 5.96e-8 : 1.11e-16;
        double bound = m == TallyMethod::kas ? 2 * u + 4 * n * u * u : n * u / (1 - n * u);
        if (m == TallyMethod::fx)
            bound = n * tally.fx_quantum_MeV() / 2 / double(exact);
        EXPECT_LE(std::abs(rel), bound) << to_cstring(m);
    }
}

//! The block cache of the CAS-loop methods (BlockTallyCache.hh) on the host:
//! threads deposit through the cache, one thread flushes it, and every bin
//! must be exact. 3 bins fit 4 slots (direct mode); 64 bins in 16 slots
//! (hashed) leave at least 48 bins to go straight to the grid.
TEST(AtomicHostTest, BlockCacheIsExactInDirectAndHashedModes)
{
    unsigned const threads = 8;
    int const per_thread = 20000;
    int cached_methods = 0;
    for (auto [bins, slots] : {std::pair<size_type, unsigned>{3, 4}, {64, 16}})
    {
        auto const expected = exact_bins(threads, per_thread, bins);
        for (TallyMethod m : all_tally_methods())
        {
            DoseTally tally({m, bins, double(threads) * per_thread * 8.0 / 1024, Backend::cpu});
            dispatch_tally_method(
                m,
                [&](auto policy)
                {
                    using Policy = decltype(policy);
                    if constexpr (Policy::block_cached)
                    {
                        ++cached_methods;
                        using Cache = BlockTallyCache<Policy>;
                        std::vector<std::uint64_t> storage(Cache::storage_bytes(slots) / 8 + 1);
                        Cache const cache(storage.data(), slots, bins);
                        EXPECT_EQ(bins <= slots, cache.direct());
                        cache.clear(0, 1);
                        auto const grid = tally.view<Policy>();
                        auto const cached = grid.with_cache(cache);
                        std::vector<std::thread> pool;
                        for (unsigned t = 0; t < threads; ++t)
                        {
                            pool.emplace_back(
                                [=]
                                {
                                    for (int i = 0; i < per_thread; ++i)
                                        cached.deposit((t * 31u + i) % bins,
                                                       (1 + (t + i) % 7) / 1024.0);
                                });
                        }
                        for (auto& th : pool)
                            th.join();
                        // Before the flush the grid misses the cached part.
                        auto const before = tally.batch_energy_MeV();
                        double total_before = 0, total_expected = 0;
                        for (size_type b = 0; b < bins; ++b)
                        {
                            total_before += before[b];
                            total_expected += expected[b];
                        }
                        EXPECT_LT(total_before, total_expected) << to_cstring(m);
                        cache.flush(grid, 0, 1);
                        auto const got = tally.batch_energy_MeV();
                        for (size_type b = 0; b < bins; ++b)
                            EXPECT_EQ(expected[b], got[b])
                                << to_cstring(m) << " bin " << b << " of " << bins;
                    }
                });
        }
    }
    EXPECT_EQ(6, cached_methods); // cas, wag, kas in both modes
}

TEST(TallyMethodTest, NamesRoundTripAndBadNamesAreExplained)
{
    for (TallyMethod m : all_tally_methods())
        EXPECT_EQ(m, to_tally_method(to_cstring(m)));
    EXPECT_EQ(7u, to_tally_methods("all").size());
    auto const two = to_tally_methods("hb,fx");
    ASSERT_EQ(2u, two.size());
    EXPECT_EQ(TallyMethod::hb, two[0]);
    EXPECT_EQ(TallyMethod::fx, two[1]);
    try
    {
        to_tally_method("double");
        FAIL() << "expected an error";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string::npos, std::string(e.what()).find("fa, cas, wag, kas, hb, wib, fx"))
            << e.what();
    }
}

TEST(TallyMethodTest, ViewOfTheWrongPolicyIsRefused)
{
    DoseTally tally({TallyMethod::hb, 4, 1.0, Backend::cpu});
    EXPECT_THROW(tally.view<FxPolicy>(), RuntimeError);
    EXPECT_NO_THROW(tally.view<HbPolicy>());
}
} // namespace
} // namespace mcdose::test
