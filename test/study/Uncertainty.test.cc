//! \file test/study/Uncertainty.test.cc
//! The uncertainty a run reports against the spread it has: the batch
//! estimate (the default, 100 batches) and the history-by-history estimate
//! against the spread of 20 independent runs, and against each other on the
//! same histories.
//!
//! The case: a 10 x 10 cm^2 parallel beam of 1 MeV electrons on a 0.2 cm
//! water slab scored on 10 x 10 columns of 1 cm^2. An electron's track stays
//! within about 0.4 cm of where it enters, so the columns are nearly
//! independent: the ratio of variances is averaged over 100 nearly independent
//! voxels, and its tolerance is 4 standard errors of that mean, estimated
//! from the per-voxel ratios themselves.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dose/DoseData.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
constexpr int runs = 20;
constexpr int voxels = 100;

std::string study_text(std::string const& uncertainty, int seed)
{
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [10, 10, 1], "spacing_cm": [1, 1, 0.2], "origin_cm": [0.5, 0.5, 0.1]},
    "background": {"material": "water"}},
  "sources": [{"type": "parallel", "particle": "electron", "energy_MeV": 1.0,
               "position_cm": [5, 5, -1], "direction": [0, 0, 1],
               "field": {"shape": "rectangle", "size_cm": [10, 10]}}],
  "rng": {"generator": "philox", "seed": )" +
           std::to_string(seed) + R"(},
  "tally": {"method": "fx", "uncertainty": ")" +
           uncertainty + R"("},
  "run": {"histories": 4000},
  "backend": "cpu",
  "outputs": {"directory": "unused", "name": "t", "image_format": "none"}
})";
}

struct Grids
{
    std::vector<double> edep, sigma;
};

Grids run_case(std::string const& uncertainty, int seed, fs::path const& cache)
{
    StudyInput const study =
        parse_study(study_text(uncertainty, seed), (cache / "study.json").string());
    StudyRunOptions options;
    options.cpu_threads = 2;
    options.write_outputs = false;
    options.table_cache = {true, cache.string()};
    Grids g;
    options.on_dose = [&g](DoseGridData const& d, StudyInput const&)
    {
        g.edep.assign(d.edep_MeV.begin(), d.edep_MeV.end());
        g.sigma.assign(d.edep_sigma_MeV.begin(), d.edep_sigma_MeV.end());
    };
    run_study(study, options);
    return g;
}

//! Mean over voxels of ratio[v] and the standard error of that mean.
std::pair<double, double> mean_and_error(std::vector<double> const& ratio)
{
    double const n = double(ratio.size());
    double const mean = std::accumulate(ratio.begin(), ratio.end(), 0.0) / n;
    double ss = 0;
    for (double r : ratio)
        ss += (r - mean) * (r - mean);
    return {mean, std::sqrt(ss / (n - 1) / n)};
}

class UncertaintyTest : public ::testing::Test
{
  protected:
    fs::path cache_;
    void SetUp() override
    {
        cache_ = fs::temp_directory_path() / "mcdose_uncertainty_test";
        fs::remove_all(cache_);
        fs::create_directories(cache_);
    }
    void TearDown() override { fs::remove_all(cache_); }

    //! Spread of `runs` independent runs against the mean reported sigma.
    void expect_sigma_matches_spread(std::string const& uncertainty)
    {
        std::vector<Grids> all;
        for (int seed = 1; seed <= runs; ++seed)
            all.push_back(run_case(uncertainty, seed, cache_));
        std::vector<double> ratio;
        for (int v = 0; v < voxels; ++v)
        {
            double mean = 0, reported = 0;
            for (Grids const& g : all)
            {
                mean += g.edep[v] / runs;
                reported += g.sigma[v] * g.sigma[v] / runs;
            }
            double spread = 0;
            for (Grids const& g : all)
                spread += (g.edep[v] - mean) * (g.edep[v] - mean) / (runs - 1);
            ASSERT_GT(reported, 0) << "voxel " << v;
            ratio.push_back(spread / reported);
        }
        auto const [mean, error] = mean_and_error(ratio);
        std::printf("%s: observed / reported variance %.4f +- %.4f\n", uncertainty.c_str(), mean,
                    error);
        EXPECT_NEAR(1.0, mean, 4 * error)
            << uncertainty << ": observed variance / reported variance over " << voxels
            << " voxels, " << runs << " runs";
        EXPECT_LT(error, 0.1) << "the test has too little power";
    }
};

TEST_F(UncertaintyTest, BatchSigmaMatchesTheSpreadOfIndependentRuns)
{
    expect_sigma_matches_spread("batch");
}

TEST_F(UncertaintyTest, HistorySigmaMatchesTheSpreadOfIndependentRuns)
{
    expect_sigma_matches_spread("history");
}

// The same histories (Philox keyed by history): the two estimates of one
// run's variance agree within the batch estimate's own noise.
TEST_F(UncertaintyTest, HistoryAndBatchSigmaAgreeOnTheSameHistories)
{
    Grids const batch = run_case("batch", 7, cache_);
    Grids const history = run_case("history", 7, cache_);
    std::vector<double> ratio;
    for (int v = 0; v < voxels; ++v)
    {
        EXPECT_NEAR(batch.edep[v], history.edep[v], 1e-6 * batch.edep[v]) << "voxel " << v;
        ratio.push_back(batch.sigma[v] * batch.sigma[v] / (history.sigma[v] * history.sigma[v]));
    }
    auto const [mean, error] = mean_and_error(ratio);
    std::printf("batch / history variance %.4f +- %.4f\n", mean, error);
    EXPECT_NEAR(1.0, mean, 4 * error) << "batch variance / history variance";
    EXPECT_LT(error, 0.1) << "the test has too little power";
}
} // namespace
} // namespace mcdose::test
