//! \file test/tally/TallyDevice.test.cc
//! Every atomic method on the device against an exact host reference:
//! divergent lanes, partial warps, several addresses per warp (WAG, KAS,
//! WIB peer groups), and the benchmark kernel under both launch shapes.
#include "TallyDevice.test.hh"

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "tally/bench/TallyBenchmark.hh"

namespace mcdose::test
{
std::vector<double> pattern_reference(DepositPattern const& p)
{
    std::vector<long long> units(p.bins, 0);
    for (unsigned t = 0; t < p.blocks * p.threads_per_block; ++t)
    {
        if ((t % p.threads_per_block) % 32 >= p.active_lanes)
            continue;
        for (int j = 0; j < p.per_thread; ++j)
            if ((t + j) % 3 != 0)
                units[(t / 2 + 7u * j) % p.bins] += 1 + t % 13;
    }
    std::vector<double> result(p.bins);
    for (unsigned b = 0; b < p.bins; ++b)
        result[b] = double(units[b]) / 256;
    return result;
}

namespace
{
//! Values are multiples of 2^-8 with per-bin sums < 2^16: every method,
//! float FA included, must be exact; a lost or doubled peer shows at once.
TEST(TallyDeviceTest, EveryMethodExactOnDivergentPatterns)
{
    MCDOSE_SKIP_IF_NO_GPU();
    for (unsigned bins : {1u, 3u, 8u, 32u, 1000u})
    {
        for (unsigned active : {32u, 19u, 1u})
        {
            DepositPattern p;
            p.bins = bins;
            p.active_lanes = active;
            auto const expected = pattern_reference(p);
            for (TallyMethod m : all_tally_methods())
            {
                auto const got = pattern_on_device(m, p);
                ASSERT_EQ(expected.size(), got.size());
                for (unsigned b = 0; b < bins; ++b)
                    EXPECT_EQ(expected[b], got[b]) << to_cstring(m) << ": bin " << b << " of "
                                                   << bins << ", " << active << " active lanes";
            }
        }
    }
}

TEST(TallyDeviceTest, BenchmarkKernelMatchesExactReference)
{
    MCDOSE_SKIP_IF_NO_GPU();
    for (bool divergent : {false, true})
    {
        for (size_type bins : {size_type(1), size_type(8), size_type(1000)})
        {
            BenchProblem problem;
            problem.particles = 100000;
            problem.bins = bins;
            problem.divergent = divergent;
            auto const ref = bench_reference_bins_device(problem, {}, seed_launch());
            for (TallyMethod m : all_tally_methods())
            {
                std::vector<std::uint64_t> fx_words;
                for (LaunchShape shape : {seed_launch(), full_occupancy_launch()})
                {
                    BenchRun const run = run_bench_device(m, problem, {}, shape);
                    for (size_type b = 0; b < bins; ++b)
                    {
                        double const exact = double(ref[b]) * 0x1p-22;
                        double const n = double(problem.particles) * 10;
                        double const err = std::abs(run.energy_MeV[b] - exact);
                        if (m == TallyMethod::fa)
                            EXPECT_LE(err, n * 0x1p-24 / (1 - n * 0x1p-24) * exact);
                        else if (m == TallyMethod::kas)
                            EXPECT_LE(err, (2 * 0x1p-24 + 4 * n * 0x1p-48) * exact);
                        else if (m == TallyMethod::fx)
                            EXPECT_EQ(exact, run.energy_MeV[b]);
                        else
                            EXPECT_LE(err, n * 0x1p-53 * exact) << to_cstring(m);
                    }
                    if (m == TallyMethod::fx)
                    {
                        if (fx_words.empty())
                            fx_words = run.words;
                        else
                            EXPECT_EQ(fx_words, run.words)
                                << "FX differs between launch configurations";
                    }
                }
            }
            // Total reference path used by the benchmark agrees with the per-bin one.
            std::uint64_t total = 0;
            for (auto u : ref)
                total += u;
            EXPECT_EQ(total, bench_reference_total_device(problem, {}, full_occupancy_launch()));
        }
    }
}
}  // namespace
}  // namespace mcdose::test
