//! run_study end to end on the CPU: a fixed-history run and a run to a target
//! uncertainty, with the files a user gets.
#include "transport/engine/StudyRunner.hh"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "transport/study/StudyInput.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
std::string study_text(std::string const& run, std::string const& out_dir)
{
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [1, 1, 20], "spacing_cm": [20, 20, 1], "origin_cm": [0, 0, 0.5]},
    "background": {"material": "water"}},
  "sources": [{"type": "pencil", "particle": "photon", "energy_MeV": 1.0,
               "position_cm": [0, 0, -1], "direction": [0, 0, 1]}],
  "rng": {"generator": "philox", "seed": 5},
  "tally": {"method": "fx", "batches": 10},
  "run": )" + run + R"(,
  "backend": "cpu",
  "outputs": {"directory": ")" + out_dir + R"(", "name": "t", "image_format": "none"}
})";
}
}  // namespace

TEST(StudyRunTest, FixedHistoriesWritesOutputsAndClosesBalance)
{
    fs::path const dir = fs::temp_directory_path() / "mcdose_studyrun_fixed";
    fs::remove_all(dir);
    StudyInput const study = parse_study(study_text(R"({"histories": 20000})", dir.string()),
                                         (dir / "study.json").string());
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    auto const s = run_study(study, opts);
    EXPECT_EQ(20000u, s.histories);
    EXPECT_TRUE(s.complete);
    EXPECT_EQ("cpu", s.backend);
    EXPECT_LT(std::fabs(s.balance.relative_imbalance()), 1e-9);
    EXPECT_TRUE(fs::exists(dir / "t.h5"));
    EXPECT_TRUE(fs::exists(dir / "t_depth_dose.csv"));
    EXPECT_TRUE(fs::exists(dir / "t_summary.json"));
    fs::remove_all(dir);
}

TEST(StudyRunTest, TargetUncertaintyStopsWhenReached)
{
    fs::path const dir = fs::temp_directory_path() / "mcdose_studyrun_target";
    fs::remove_all(dir);
    StudyInput const study = parse_study(
        study_text(R"({"target_uncertainty": 0.02, "batch_histories": 2000, "time_limit_s": 60})",
                   dir.string()),
        (dir / "study.json").string());
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    auto const s = run_study(study, opts);
    ASSERT_TRUE(s.uncertainty_reached.has_value());
    EXPECT_LE(*s.uncertainty_reached, 0.02);
    EXPECT_GE(s.histories, 10u * 2000u);  // at least 10 batches before stopping
    EXPECT_EQ(0u, s.histories % 2000u);
    EXPECT_TRUE(s.complete);
    std::ifstream summary(dir / "t_summary.json");
    std::string const text((std::istreambuf_iterator<char>(summary)), {});
    EXPECT_NE(text.find("target_uncertainty"), std::string::npos) << text;
    fs::remove_all(dir);
}

TEST(StudyRunTest, ElectronSourceIsRefusedClearly)
{
    std::string text = study_text(R"({"histories": 10})", "/tmp");
    text.replace(text.find("\"photon\""), 8, "\"electron\"");
    StudyInput const study = parse_study(text, "/tmp/study.json");
    try
    {
        run_study(study, {});
        FAIL() << "electron sources need condensed history";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("condensed history"), std::string::npos) << e.what();
    }
}
}  // namespace mcdose::test
