//! \file test/tally/TallyBenchHost.test.cc
//! The benchmark's CPU backend: every method against the exact reference,
//! FX bitwise identical across thread counts and chunkings, and the CLI.
#include <cmath>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"
#include "tally/bench/TallyBenchmark.hh"

namespace mcdose::test
{
namespace
{
BenchProblem small_problem(size_type bins)
{
    BenchProblem p;
    p.particles = 20000;
    p.bins = bins;
    return p;
}

TEST(TallyBenchHostTest, EveryMethodMatchesTheExactReference)
{
    for (size_type bins : {size_type(1), size_type(8), size_type(1000)})
    {
        auto const problem = small_problem(bins);
        auto const ref = bench_reference_bins(problem, {});
        std::uint64_t ref_total = 0;
        for (auto u : ref)
            ref_total += u;
        EXPECT_EQ(ref_total, bench_reference_total_host(problem, {}, 3));
        for (TallyMethod m : all_tally_methods())
        {
            BenchRun const run = run_bench_host(m, problem, {}, {4, 64});
            ASSERT_EQ(bins, run.energy_MeV.size());
            for (size_type b = 0; b < bins; ++b)
            {
                double const exact = double(ref[b]) * 0x1p-22;   // exact (ref < 2^53)
                double const n = double(problem.particles) * 10; // >= deposits in the bin
                double const err = std::abs(run.energy_MeV[b] - exact);
                switch (m)
                {
                case TallyMethod::fa:
                    // recursive float summation: gamma_{n-1} with u = 2^-24
                    EXPECT_LE(err, n * 0x1p-24 / (1 - n * 0x1p-24) * exact) << "bin " << b;
                    break;
                case TallyMethod::kas:
                    EXPECT_LE(err, (2 * 0x1p-24 + 4 * n * 0x1p-48) * exact) << "bin " << b;
                    break;
                case TallyMethod::fx:
                    // deposits are multiples of 2^-22 MeV >= the quantum: exact
                    EXPECT_EQ(exact, run.energy_MeV[b]) << "bin " << b;
                    break;
                default:
                    EXPECT_LE(err, n * 0x1p-53 * exact) << to_cstring(m) << " bin " << b;
                }
            }
        }
    }
}

TEST(TallyBenchHostTest, FxBitwiseIdenticalAcrossThreadsAndChunks)
{
    auto const problem = small_problem(8);
    auto const base = run_bench_host(TallyMethod::fx, problem, {}, {1, 1u << 20});
    for (HostShape shape : {HostShape{2, 1}, HostShape{5, 7}, HostShape{16, 333}})
    {
        auto const other = run_bench_host(TallyMethod::fx, problem, {}, shape);
        EXPECT_EQ(base.words, other.words) << shape.threads << " threads, chunk " << shape.chunk;
        EXPECT_EQ(digest_words(base.words), digest_words(other.words));
    }
}

TEST(TallyBenchCliTest, CpuRunWritesTableAndJson)
{
    std::string const json = ::testing::TempDir() + "tally_bench_test.json";
    auto const r = run_command(mcdose_exe() +
                               " tally-bench --backend cpu --particles 20000 --bins 8,1000"
                               " --methods hb,fx,fa --threads 2 --json " +
                               json);
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("deposits/s")) << r.output;
    std::ifstream in(json);
    ASSERT_TRUE(in) << json;
    std::stringstream ss;
    ss << in.rdbuf();
    std::string const text = ss.str();
    for (char const* key : {"\"method\"", "\"backend\"", "\"particles\"", "\"bins\"", "\"time_s\"",
                            "\"deposits_per_s\"", "\"rel_error\""})
        EXPECT_NE(std::string::npos, text.find(key)) << key;
    EXPECT_NE(std::string::npos, text.find("\"fx\""));
}

TEST(TallyBenchCliTest, BadOptionsGiveOneLineErrors)
{
    auto const r = run_command(mcdose_exe() + " tally-bench --backend cpu --methods xyz");
    EXPECT_NE(0, r.exit_code);
    EXPECT_NE(std::string::npos, r.output.find("fa, cas, wag, kas, hb, wib, fx")) << r.output;
    auto const r2 = run_command(mcdose_exe() + " tally-bench --backend cpu --particles -5");
    EXPECT_NE(0, r2.exit_code);
    EXPECT_NE(std::string::npos, r2.output.find("particles")) << r2.output;
}
} // namespace
} // namespace mcdose::test
