//! Whole CPU runs with a body and structures: the target-uncertainty rule
//! stops on the body, not on a planted hot air voxel; DVH figures of a
//! label-image structure reach the summary and the CSV files; a stop_on name
//! that is not a structure is refused.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
//! A 4 x 4 x 8 cm water box in air, a 2 MeV photon field along z, and a
//! second source planted in an air corner voxel outside the body: electrons of
//! 0.1 MeV, below the 0.2 MeV electron cut-off, deposit there where they start
//! (a dose some hundred times the water's, as air voxels hit by stopping
//! electrons get in a CT run).
std::string hot_air_study(std::string const& run, std::string const& structures,
                          fs::path const& dir)
{
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [6, 6, 10], "spacing_cm": [1, 1, 1]},
    "background": {"material": "air"},
    "shapes": [{"type": "box", "lower_cm": [-2, -2, -4], "upper_cm": [2, 2, 4],
                "material": "water"}]},
  "structures": )" +
           structures + R"(,
  "sources": [
    {"type": "parallel", "particle": "photon", "energy_MeV": 2.0, "position_cm": [0, 0, -6],
     "direction": [0, 0, 1], "field": {"shape": "rectangle", "size_cm": [2, 2]}},
    {"type": "pencil", "particle": "electron", "energy_MeV": 0.1,
     "position_cm": [2.5, 2.5, -4.5], "direction": [0, 0, 1], "weight": 0.01}],
  "rng": {"generator": "philox", "seed": 11},
  "tally": {"method": "fx"},
  "run": )" +
           run + R"(,
  "backend": "cpu",
  "outputs": {"directory": ")" +
           dir.string() + R"(", "name": "t", "image_format": "none", "hdf5": false,
              "depth_dose": false, "dvh_volume_at_doses": [0]}
})";
}

nlohmann::json read_json(fs::path const& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

TEST(StudyStructuresTest, TargetUncertaintyStopsOnTheBodyNotOnAHotAirVoxel)
{
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_structures_hot_air_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    StudyInput const study =
        parse_study(hot_air_study(R"({"target_uncertainty": 0.05, "batch_histories": 5000,
                          "time_limit_s": 120})",
                                  R"({"body": "threshold"})", dir),
                    (dir / "study.json").string());
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    auto const s = run_study(study, opts);
    ASSERT_TRUE(s.report.summary);
    RegionSummary const& r = *s.report.summary;
    EXPECT_EQ("body", r.region);
    ASSERT_TRUE(s.uncertainty_reached);
    EXPECT_LE(*s.uncertainty_reached, 0.05);
    // The planted voxel is the grid's maximum, far above the body's near-maximum,
    // and reported apart; the body is the water box (128 voxels of 1 cm3).
    EXPECT_GT(r.outside_max, 20 * r.near_max);
    EXPECT_GT(r.voxels_counted, 0u);
    EXPECT_LE(r.voxels_counted, 128u);
    ASSERT_FALSE(s.report.dvhs.empty());
    EXPECT_DOUBLE_EQ(128.0, s.report.dvhs.front().volume_cm3);

    std::cout << s.histories << " histories: body near max " << r.near_max << " at "
              << 100 * *s.uncertainty_reached << " % over " << r.voxels_counted
              << " voxels; outside the body max " << r.outside_max << "\n";
    nlohmann::json const j = read_json(dir / "t_summary.json");
    EXPECT_EQ("target_uncertainty", j["stop_reason"]);
    EXPECT_EQ("body", j["uncertainty"]["region"]);
    EXPECT_NE(j["uncertainty"]["definition"].get<std::string>().find("TG-105"), std::string::npos);
    EXPECT_EQ("Gy per particle", j["dose_unit"]);
    EXPECT_DOUBLE_EQ(r.near_max, j["near_max"]["value"].get<double>());
    // The reported maximum is the body's near maximum; the grid's, the planted voxel, is
    // reported apart.
    EXPECT_DOUBLE_EQ(r.near_max, j["max_dose_Gy_per_particle"].get<double>());
    EXPECT_NE(j["max_dose_of"].get<std::string>().find("body"), std::string::npos);
    EXPECT_GT(j["grid_max_dose_Gy_per_particle"].get<double>(), 20 * r.near_max);
    // One near maximum for the body: its DVH's D0.03cc is the summary's.
    EXPECT_DOUBLE_EQ(r.near_max, s.report.dvhs.front().d_003cc.value);
    fs::remove_all(dir);
}

TEST(StudyStructuresTest, LabelStructureFiguresInSummaryAndCsv)
{
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_structures_labels_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    // A 2 x 2 x 2 cm target on the beam axis at the box's centre.
    GridGeometry g;
    g.dims = {{6, 6, 10}};
    g.spacing_cm = {{1, 1, 1}};
    g.origin_cm = {{-2.5, -2.5, -4.5}};
    std::vector<std::uint16_t> labels(g.num_voxels(), 0);
    for (int k = 4; k < 6; ++k)
        for (int j = 2; j < 4; ++j)
            for (int i = 2; i < 4; ++i)
                labels[g.linear_index({{i, j, k}})] = 1;
    write_image((dir / "labels.nrrd").string(), g, make_span(labels));
    StudyInput const study = parse_study(
        hot_air_study(R"({"target_uncertainty": 0.2, "batch_histories": 2000,
                          "time_limit_s": 120, "stop_on": "PTV"})",
                      R"({"label_images": [{"image": "labels.nrrd", "labels": {"PTV": 1}}]})", dir),
        (dir / "study.json").string());
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    auto const s = run_study(study, opts);
    ASSERT_TRUE(s.report.summary);
    EXPECT_EQ("PTV", s.report.summary->region);
    ASSERT_EQ(2u, s.report.dvhs.size()); // body (the whole shape phantom) and PTV
    DvhFigures const& ptv = s.report.dvhs[1];
    EXPECT_EQ("PTV", ptv.name);
    EXPECT_DOUBLE_EQ(8.0, ptv.volume_cm3);
    EXPECT_GT(ptv.d50.value, 0);
    EXPECT_TRUE(std::isfinite(ptv.d50.sigma));
    EXPECT_LE(ptv.d98.value, ptv.d50.value);
    EXPECT_LE(ptv.d50.value, ptv.d2.value);
    ASSERT_EQ(1u, ptv.v_at.size());
    EXPECT_DOUBLE_EQ(100.0, ptv.v_at[0].volume_percent.value);

    nlohmann::json const j = read_json(dir / "t_summary.json");
    EXPECT_EQ("PTV", j["uncertainty"]["region"]);
    EXPECT_EQ("PTV", j["structures"][1]["name"]);
    EXPECT_DOUBLE_EQ(ptv.d50.value, j["structures"][1]["D50"]["value"].get<double>());
    EXPECT_TRUE(fs::exists(dir / "t_dvh.csv"));
    std::ifstream figures(dir / "t_dvh_figures.csv");
    std::string const text((std::istreambuf_iterator<char>(figures)), {});
    EXPECT_NE(text.find("\nPTV,D50%,"), std::string::npos) << text;
    fs::remove_all(dir);
}

TEST(StudyStructuresTest, StopOnAnUnknownStructureIsRefused)
{
    std::string const text = hot_air_study(R"({"target_uncertainty": 0.1, "stop_on": "PTX"})",
                                           R"({"label_images": [{"image": "l.nrrd",
                                               "labels": {"PTV": 1}}]})",
                                           "/tmp");
    try
    {
        parse_study(text, "/tmp/study.json");
        FAIL() << "accepted";
    }
    catch (InputError const& e)
    {
        EXPECT_EQ("/run/stop_on", e.pointer());
        EXPECT_NE(std::string(e.what()).find(
                      "structure 'PTX' is not in the study (it has 'body', 'PTV')"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("did you mean 'PTV'?"), std::string::npos) << e.what();
    }
}
} // namespace
} // namespace mcdose::test
