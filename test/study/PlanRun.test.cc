//! \file test/study/PlanRun.test.cc
//! rt_plan sources through whole CPU runs: a jaw-only plan deposits what the equivalent beam
//! source deposits, and a full arc of a fixed square field around a water cylinder gives a
//! dose that a quarter turn about the rotation axis leaves unchanged, within the runs' sigma.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/Assert.hh"
#include "dose/Calibration.hh"
#include "dose/DoseData.hh"
#include "io/TestRtPlan.hh"
#include "sources/BeamGeometry.hh"
#include "sources/SourceModel.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
struct Deposit
{
    std::vector<double> edep, sigma;
};

//! A water cylinder (radius 8 cm, along z, the patient's head-feet axis) in a 20 cm cube of
//! air, 10 voxels of 2 cm along each axis centred on the isocentre at the origin.
nlohmann::json study(nlohmann::json const& source, long histories)
{
    nlohmann::json s = nlohmann::json::parse(R"({
      "phantom": {"type": "shapes",
                  "grid": {"dimensions": [10, 10, 10], "spacing_cm": [2, 2, 2],
                           "origin_cm": [-9, -9, -9]},
                  "background": {"material": "air"},
                  "shapes": [{"type": "cylinder", "centre_cm": [0, 0, 0], "axis": "z",
                              "radius_cm": 8, "material": "water"}]},
      "rng": {"generator": "philox", "seed": 3},
      "tally": {"method": "fx", "batches": 10},
      "backend": "cpu"
    })");
    s["sources"] = nlohmann::json::array({source});
    s["run"] = {{"histories", histories}};
    return s;
}

Deposit run(nlohmann::json const& s, fs::path const& dir)
{
    StudyInput const in = parse_study(s.dump(), (dir / "study.json").string());
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    opts.write_outputs = false;
    Deposit d;
    opts.on_dose = [&d](DoseGridData const& g, StudyInput const&)
    {
        d.edep.assign(g.edep_MeV.begin(), g.edep_MeV.end());
        d.sigma.assign(g.edep_sigma_MeV.begin(), g.edep_sigma_MeV.end());
    };
    run_study(in, opts);
    return d;
}

//! Voxel v of `a` against voxel map(v) of `b`: within 5 sigma each, chi^2 per voxel < 1.5,
//! over the voxels holding at least 1 % of the largest deposit.
template <class Map>
void expect_same(Deposit const& a, Deposit const& b, Map map, std::string const& what)
{
    double const top = *std::max_element(a.edep.begin(), a.edep.end());
    double chi2 = 0;
    int n = 0;
    for (std::size_t v = 0; v < a.edep.size(); ++v)
    {
        std::size_t const w = map(v);
        if (std::max(a.edep[v], b.edep[w]) < 0.01 * top)
            continue;
        double const z = (a.edep[v] - b.edep[w]) / std::hypot(a.sigma[v], b.sigma[w]);
        EXPECT_LT(std::fabs(z), 5)
            << what << ": voxel " << v << " " << a.edep[v] << " against " << b.edep[w];
        chi2 += z * z;
        ++n;
    }
    ASSERT_GT(n, 20) << what;
    EXPECT_LT(chi2 / n, 1.5) << what << " over " << n << " voxels";
}

class PlanRun : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_planrun_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    nlohmann::json plan_source(TestBeam const& beam)
    {
        TestPlan p;
        p.beams = {beam};
        std::string const path = (dir_ / "plan.dcm").string();
        write_test_plan(p, path);
        return {{"type", "rt_plan"},
                {"file", path},
                {"machine", std::string(MCDOSE_TEST_SOURCE_DIR) +
                                "/examples/machines/varian_millennium120.json"},
                {"energy_MeV", 6}};
    }

    fs::path dir_;
};
} // namespace

TEST_F(PlanRun, JawOnlyPlanEqualsBeamSource)
{
    TestBeam b = static_beam(-30, 50, -20, 40);
    b.devices.pop_back(); // no MLC
    b.control_points[0].positions.pop_back();
    b.control_points[0].gantry_deg = 90;
    Deposit const plan = run(study(plan_source(b), 20000), dir_);
    nlohmann::json const beam = {
        {"type", "beam"},   {"particle", "photon"},
        {"energy_MeV", 6},  {"isocentre_cm", {0, 0, 0}},
        {"gantry_deg", 90}, {"jaws_cm", {{"x1", -3}, {"x2", 5}, {"y1", -2}, {"y2", 4}}}};
    Deposit const reference = run(study(beam, 20000), dir_);
    expect_same(
        plan, reference, [](std::size_t v) { return v; }, "jaw-only plan against beam");
}

TEST_F(PlanRun, FullArcIsRotationallySymmetric)
{
    TestBeam b = static_beam(-20, 20, -20, 20);
    b.control_points[0].gantry_deg = 0;
    b.control_points[0].gantry_direction = "CW";
    b.control_points[1].gantry_deg = 0; // a full turn: 0 clockwise to 360
    b.control_points.insert(b.control_points.begin() + 1, b.control_points[1]);
    b.control_points[1].gantry_deg = 180;
    b.control_points[1].weight = 0.5;
    Deposit const d = run(study(plan_source(b), 30000), dir_);
    // A quarter turn about z: voxel (i, j, k) to (9 - j, i, k).
    auto quarter = [](std::size_t v)
    {
        std::size_t const i = v % 10, j = (v / 10) % 10, k = v / 100;
        return (9 - j) + 10 * i + 100 * k;
    };
    expect_same(d, d, quarter, "a full arc and its quarter turn");
}
// A beam's calibration (dose per MU at the reference condition, particles per MU over its
// field's solid angle) turns a plan's monitor units into particles: a static 10 x 10 cm^2
// plan of 100 MU represents 100 MU of the calibration's particles per MU.
TEST_F(PlanRun, BeamCalibrationTurnsThePlanMonitorUnitsIntoParticles)
{
    SourceInput beam;
    beam.kind = SourceKind::beam;
    beam.energy_MeV = 6;
    DoseCalibration c;
    c.source_model = source_model_key(beam);
    c.emission_extent = rectangle_solid_angle(-5.0, 5.0, -5.0, 5.0, 100.0);
    c.emission_extent_unit = "sr";
    c.condition = "10 x 10 cm2, SSD 100 cm, 10 cm deep";
    c.voxels = 1;
    c.dose_per_monitor_unit_Gy = 0.01;
    c.dose_per_particle_Gy = 4e-17;
    c.dose_per_particle_sigma_Gy = 4e-20;
    c.reference_study_file = "reference.json";
    c.reference_study_hash = "0";
    c.build = "test";
    c.physics_sha256 = "test";
    c.created_utc = "2026-01-01T00:00:00Z";
    std::string const calibration = (dir_ / "beam.calibration.json").string();
    write_calibration(calibration, c);
    nlohmann::json source = plan_source(static_beam(-50, 50, -50, 50));
    source["calibration"] = calibration;
    StudyInput const in = parse_study(study(source, 1000).dump(), (dir_ / "s.json").string());
    ASSERT_TRUE(in.sources.at(0).particles.has_value());
    EXPECT_NEAR(*in.sources[0].particles, 100 * c.particles_per_monitor_unit(),
                1e-9 * 100 * c.particles_per_monitor_unit());
    // Particles and a calibration together are refused.
    source["particles"] = 1e12;
    EXPECT_THROW(parse_study(study(source, 1000).dump(), (dir_ / "s.json").string()), RuntimeError);
}
} // namespace mcdose::test
