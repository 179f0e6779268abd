//! \file test/study/Uncertainty.test.cc
//! The uncertainty a run reports against the spread it has: the batch
//! estimate (100 batches) and the history-by-history estimate (the CPU
//! backend's default), of the dose grid and of the depth-dose curve, against the
//! spread of 20 independent runs, and against each other on the same histories.
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
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

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

//! The case's study; `uncertainty` empty: the default. With `out`, the outputs go there
//! with the depth-dose curve along x (10 slabs of 10 nearly independent columns).
std::string study_text(std::string const& uncertainty, int seed, std::string const& out = {})
{
    std::string const tally =
        uncertainty.empty() ? "" : R"(, "uncertainty": ")" + uncertainty + R"(")";
    std::string const outputs =
        out.empty() ? R"("directory": "unused", "name": "t", "image_format": "none")"
                    : R"("directory": ")" + out +
                          R"(", "name": "t", "image_format": "none", "hdf5": false,
                  "depth_dose": true, "depth_axis": "x", "if_exists": "overwrite")";
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [10, 10, 1], "spacing_cm": [1, 1, 0.2], "origin_cm": [0.5, 0.5, 0.1]},
    "background": {"material": "water"}},
  "sources": [{"type": "parallel", "particle": "electron", "energy_MeV": 1.0,
               "position_cm": [5, 5, -1], "direction": [0, 0, 1],
               "field": {"shape": "rectangle", "size_cm": [10, 10]}}],
  "rng": {"generator": "philox", "seed": )" +
           std::to_string(seed) + R"(},
  "tally": {"method": "fx")" +
           tally + R"(},
  "run": {"histories": 4000},
  "backend": "cpu",
  "outputs": {)" +
           outputs + R"(}
})";
}

struct Grids
{
    std::vector<double> edep, sigma;
    std::vector<double> depth_edep, depth_sigma; //!< the depth-dose CSV (with outputs)
    std::string uncertainty_method;              //!< as the run reports it
};

//! The depth-dose CSV's energy and sigma columns.
void read_depth_dose(fs::path const& csv, Grids& g)
{
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line))
    {
        std::istringstream row(line);
        double lo, hi, mid, e, s;
        char comma;
        row >> lo >> comma >> hi >> comma >> mid >> comma >> e >> comma >> s;
        g.depth_edep.push_back(e);
        g.depth_sigma.push_back(s);
    }
}

//! One run; with `write` its outputs (the depth-dose curve) go to cache/run<seed>.
Grids run_case(std::string const& uncertainty, int seed, fs::path const& cache, bool write = false)
{
    fs::path const out = cache / ("run" + std::to_string(seed));
    StudyInput const study = parse_study(study_text(uncertainty, seed, write ? out.string() : ""),
                                         (cache / "study.json").string());
    StudyRunOptions options;
    options.cpu_threads = 2;
    options.write_outputs = write;
    options.table_cache = {true, cache.string()};
    Grids g;
    options.on_dose = [&g](DoseGridData const& d, StudyInput const&)
    {
        g.edep.assign(d.edep_MeV.begin(), d.edep_MeV.end());
        g.sigma.assign(d.edep_sigma_MeV.begin(), d.edep_sigma_MeV.end());
    };
    run_study(study, options);
    if (write)
    {
        read_depth_dose(out / "t_depth_dose.csv", g);
        std::ifstream in(out / "t_summary.json");
        g.uncertainty_method = nlohmann::json::parse(in).at("uncertainty_method");
    }
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
        // One directory per test and process: ctest runs the tests of this file at once.
        cache_ = fs::temp_directory_path() /
                 ("mcdose_uncertainty_test_" +
                  std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                  "_" + std::to_string(::getpid()));
        fs::remove_all(cache_);
        fs::create_directories(cache_);
    }
    void TearDown() override { fs::remove_all(cache_); }

    //! Spread of `runs` independent runs against the mean reported sigma, over the
    //! grid's voxels or (`depth`) the depth-dose curve's slabs.
    void expect_sigma_matches_spread(std::string const& uncertainty, bool depth = false,
                                     double max_error = 0.1)
    {
        std::vector<Grids> all;
        for (int seed = 1; seed <= runs; ++seed)
            all.push_back(run_case(uncertainty, seed, cache_, depth));
        auto const values = [depth](Grids const& g) -> auto const&
        {
            return depth ? g.depth_edep : g.edep;
        };
        auto const sigmas = [depth](Grids const& g) -> auto const&
        {
            return depth ? g.depth_sigma : g.sigma;
        };
        std::size_t const n = values(all.front()).size();
        ASSERT_EQ(std::size_t(depth ? 10 : voxels), n);
        std::vector<double> ratio;
        for (std::size_t v = 0; v < n; ++v)
        {
            double mean = 0, reported = 0;
            for (Grids const& g : all)
            {
                mean += values(g)[v] / runs;
                reported += sigmas(g)[v] * sigmas(g)[v] / runs;
            }
            double spread = 0;
            for (Grids const& g : all)
                spread += (values(g)[v] - mean) * (values(g)[v] - mean) / (runs - 1);
            ASSERT_GT(reported, 0) << "voxel or slab " << v;
            ratio.push_back(spread / reported);
        }
        auto const [mean, error] = mean_and_error(ratio);
        std::printf("%s%s: observed / reported variance %.4f +- %.4f\n",
                    uncertainty.empty() ? "default" : uncertainty.c_str(),
                    depth ? " (depth dose)" : "", mean, error);
        EXPECT_NEAR(1.0, mean, 4 * error)
            << uncertainty << ": observed variance / reported variance over " << n
            << (depth ? " slabs, " : " voxels, ") << runs << " runs";
        EXPECT_LT(error, max_error) << "the test has too little power";
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

// The default on the CPU backend is history by history, and so is the depth-dose
// curve's uncertainty: 10 slabs of 10 columns, so the test's own error is larger.
TEST_F(UncertaintyTest, DefaultDepthDoseSigmaMatchesTheSpreadOfIndependentRuns)
{
    EXPECT_EQ("history by history", run_case("", 1, cache_, true).uncertainty_method);
    expect_sigma_matches_spread("", true, 0.25);
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
