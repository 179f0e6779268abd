//! \file test/tally/DoseTally.test.cc
//! Dose grid: batches by history ranges, folding, batch-method uncertainty.
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tally/DoseTally.hh"

namespace mcdose::test
{
namespace
{
TEST(DoseTallyTest, BatchRangesPartitionTheHistories)
{
    for (std::uint64_t histories : {1ull, 7ull, 1000ull, 1000003ull})
    {
        for (std::uint64_t batches : {1ull, 3ull, 10ull})
        {
            if (batches > histories)
                continue;
            std::uint64_t next = 0, smallest = histories, largest = 0;
            for (std::uint64_t b = 0; b < batches; ++b)
            {
                auto const r = batch_history_range(histories, batches, b);
                EXPECT_EQ(next, r.begin);
                next = r.end;
                smallest = std::min(smallest, r.end - r.begin);
                largest = std::max(largest, r.end - r.begin);
            }
            EXPECT_EQ(histories, next);
            EXPECT_LE(largest, smallest + 1);
        }
    }
    EXPECT_THROW(batch_history_range(10, 3, 3), RuntimeError);
}

TEST(DoseTallyTest, BadInputIsRefusedWithTheField)
{
    EXPECT_THROW(DoseTally({TallyMethod::fx, 0, 1.0, Backend::cpu}), RuntimeError);
    try
    {
        DoseTally({TallyMethod::fx, 10, 0.0, Backend::cpu});
        FAIL();
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string::npos, std::string(e.what()).find("max_total_energy_MeV"));
    }
}

//! Per history: with probability p = 0.3 deposit Exp(mean 0.5 MeV) into
//! voxel 0, and always 1 MeV into voxel 1 (zero variance). Exact moments of
//! the voxel-0 total over N histories: mean N p mu, variance N (2 p mu^2 -
//! (p mu)^2). The batch estimate of sigma has relative standard deviation
//! about 1/sqrt(2(B-1)); the tolerances below are 4 of those sigmas.
TEST(DoseTallyTest, BatchUncertaintyMatchesTheKnownVariance)
{
    std::uint64_t const histories = 200000;
    std::uint64_t const batches = 50;
    double const p = 0.3, mu = 0.5;
    DoseTally tally({TallyMethod::fx, 2, histories * 10.0, Backend::cpu});
    auto view = tally.view<FxPolicy>();
    for (std::uint64_t b = 0; b < batches; ++b)
    {
        auto const range = batch_history_range(histories, batches, b);
        for (std::uint64_t h = range.begin; h < range.end; ++h)
        {
            std::mt19937_64 rng(h); // per-history stream: reproducible batches
            std::uniform_real_distribution<double> uni(0, 1);
            if (uni(rng) < p)
                view.deposit(0, -mu * std::log1p(-uni(rng)));
            view.deposit(1, 1.0);
        }
        tally.end_batch(range.end - range.begin);
    }
    DoseResult const r = tally.result();
    EXPECT_EQ(batches, r.batches);
    EXPECT_EQ(histories, r.histories);

    double const true_mean = histories * p * mu;
    double const true_sigma = std::sqrt(histories * (2 * p * mu * mu - p * p * mu * mu));
    EXPECT_NEAR(true_mean, r.energy_MeV[0], 4 * true_sigma);
    double const sigma_rel_sd = 1 / std::sqrt(2.0 * (batches - 1));
    EXPECT_NEAR(1.0, r.energy_sigma_MeV[0] / true_sigma, 4 * sigma_rel_sd);

    // Voxel 1: exactly 1 MeV per history, no spread (batch sizes are equal).
    EXPECT_EQ(double(histories), r.energy_MeV[1]);
    EXPECT_NEAR(0.0, r.energy_sigma_MeV[1], 1e-6);
}

TEST(DoseTallyTest, OneBatchHasNoUncertainty)
{
    DoseTally tally({TallyMethod::hb, 1, 10.0, Backend::cpu});
    tally.view<HbPolicy>().deposit(0, 2.5);
    tally.end_batch(1);
    auto const r = tally.result();
    EXPECT_EQ(2.5, r.energy_MeV[0]);
    EXPECT_TRUE(std::isnan(r.energy_sigma_MeV[0]));
    // end_batch cleared the grid
    EXPECT_EQ(0.0, tally.batch_energy_MeV()[0]);
}

TEST(DoseTallyTest, UnequalBatchesAreRefused)
{
    DoseTally tally({TallyMethod::cas, 1, 10.0, Backend::cpu});
    tally.end_batch(10);
    tally.end_batch(20);
    EXPECT_THROW(tally.result(), RuntimeError);
}

//! FX with batches: thread count changes the order of the adds, not one bit
//! of the folded result.
TEST(DoseTallyTest, FxBatchedResultIsBitwiseIndependentOfThreads)
{
    auto run = [](unsigned threads)
    {
        std::uint64_t const histories = 60000, batches = 6;
        DoseTally tally({TallyMethod::fx, 16, histories * 4.0, Backend::cpu});
        auto const view = tally.view<FxPolicy>();
        for (std::uint64_t b = 0; b < batches; ++b)
        {
            auto const range = batch_history_range(histories, batches, b);
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < threads; ++t)
            {
                pool.emplace_back(
                    [=]
                    {
                        for (std::uint64_t h = range.begin + t; h < range.end; h += threads)
                        {
                            std::mt19937_64 rng(h);
                            std::exponential_distribution<double> e(1.0 / 0.3);
                            for (int c = 0; c < 4; ++c)
                                view.deposit(rng() % 16, std::min(e(rng), 1.0));
                        }
                    });
            }
            for (auto& th : pool)
                th.join();
            tally.end_batch(range.end - range.begin);
        }
        return tally.result();
    };
    DoseResult const one = run(1);
    for (unsigned threads : {3u, 8u})
    {
        DoseResult const many = run(threads);
        for (size_type i = 0; i < one.energy_MeV.size(); ++i)
        {
            EXPECT_EQ(one.energy_MeV[i], many.energy_MeV[i]) << threads << " threads, voxel " << i;
            EXPECT_EQ(one.energy_sigma_MeV[i], many.energy_sigma_MeV[i]);
        }
    }
}
} // namespace
} // namespace mcdose::test
