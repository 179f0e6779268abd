//! \file test/study/ClinicalDose.test.cc
//! Dose to water (stopping-power ratios from the transport's physics) and absolute dose
//! from a reference calibration (monitor units to particles), with known answers.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "StudyFixture.hh"
#include "dose/Calibration.hh"
#include "io/InputError.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "sources/SourceModel.hh"
#include "study/Calibrate.hh"
#include "study/DoseToWater.hh"
#include "study/SourceCalibration.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"
#include "transport/physics/ElectronPhysics.hh"

namespace mcdose::test
{
namespace
{
//! s_w,m by the trapezoidal rule on 20000 points uniform in E: an independent evaluation
//! of 1/(E0 - delta) int S_w/S_m dE (a different rule and variable from the code's).
double trapezoid_ratio(Material const& medium, double e0)
{
    ElectronPhysics const m(medium);
    ElectronPhysics const w(find_material("water"));
    int const n = 20000;
    double const lo = dose_to_water_low_MeV;
    double const h = (e0 - lo) / n;
    double sum = 0;
    for (int i = 0; i <= n; ++i)
    {
        double const e = lo + i * h;
        double const f =
            w.collision_stopping(e, Lepton::electron) / m.collision_stopping(e, Lepton::electron);
        sum += (i == 0 || i == n) ? f / 2 : f;
    }
    return sum * h / (e0 - lo);
}
} // namespace

// Water in water: the factor is 1 exactly (not merely to rounding), at every start energy.
TEST(DoseToWater, WaterIsExactlyOne)
{
    Material const& water = find_material("water");
    for (double e0 : {0.05, 1.0, 6.0, 20.0, 50.0})
        EXPECT_EQ(water_to_medium_stopping_power_ratio(water, water, e0), 1.0) << e0;
    auto const f = dose_to_water_factors({water}, 6.0);
    ASSERT_EQ(f.factors.size(), 1u);
    EXPECT_EQ(f.factors[0], 1.0);
    EXPECT_TRUE(f.quantity.to_water);
    EXPECT_NE(f.quantity.method.find("Siebers"), std::string::npos);
}

// Cortical bone and lung: (a) the quadrature agrees with an independent trapezoidal
// evaluation of the same average to 1e-5; (b) cortical bone lies in the published range of
// s_w,m for megavoltage photon beams, 1.10-1.14 (Siebers et al., Phys. Med. Biol. 45 (2000)
// 983: 1.11-1.12 for 6 and 18 MV; Fernandez-Varea et al., Phys. Med. Biol. 52 (2007) 6475:
// up to 1.14 with the ICRU composition), and lung (ICRP, a soft tissue) within 1 % of 1.01
// (soft tissues: about 1.01 in both papers); (c) the energy dependence is weak, as both
// papers find (bone within 2 % from 2 to 18 MeV).
TEST(DoseToWater, BoneAndLungAgainstIndependentSumAndPublishedRange)
{
    Material const& water = find_material("water");
    Material const& bone = find_material("bone_cortical_icrp");
    Material const& lung = find_material("lung_icrp");
    for (double e0 : {2.0, 6.0, 18.0})
    {
        double const b = water_to_medium_stopping_power_ratio(bone, water, e0);
        double const l = water_to_medium_stopping_power_ratio(lung, water, e0);
        EXPECT_NEAR(b, trapezoid_ratio(bone, e0), 1e-5 * b) << e0;
        EXPECT_NEAR(l, trapezoid_ratio(lung, e0), 1e-5 * l) << e0;
        EXPECT_GT(b, 1.09) << e0;
        EXPECT_LT(b, 1.14) << e0;
        EXPECT_NEAR(l, 1.01, 0.01) << e0;
    }
    double const b2 = water_to_medium_stopping_power_ratio(bone, water, 2.0);
    double const b18 = water_to_medium_stopping_power_ratio(bone, water, 18.0);
    EXPECT_LT(std::fabs(b18 / b2 - 1), 0.02);
}

TEST(DoseToWater, RefusesASpectrumBelowTheCut)
{
    Material const& water = find_material("water");
    EXPECT_THROW(water_to_medium_stopping_power_ratio(water, water, 0.015), RuntimeError);
}

// Solid angles: a 10 x 10 cm^2 field at 100 cm subtends 4 arcsin(100 / sqrt(40100^2)) sr,
// close to A / d^2 = 0.01 sr; a disc of diameter 2 at distance 1 subtends 2 pi (1 - 1/sqrt2).
TEST(SourceModel, SolidAnglesAndExtents)
{
    EXPECT_NEAR(rectangle_solid_angle_sr(10, 10, 100), 4 * std::asin(100.0 / 40100.0), 1e-15);
    EXPECT_NEAR(rectangle_solid_angle_sr(10, 10, 100), 0.01, 0.0001);
    EXPECT_NEAR(disc_solid_angle_sr(2, 1), 2 * M_PI * (1 - 1 / std::sqrt(2.0)), 1e-14);
    // A whole hemisphere: a huge rectangle at a tiny distance -> 2 pi.
    EXPECT_NEAR(rectangle_solid_angle_sr(1e6, 1e6, 1e-3), 2 * M_PI, 1e-6);
    SourceInput s;
    s.kind = SourceKind::parallel;
    s.field = FieldInput{FieldShape::rectangle, 4, 5, 0, 0};
    EXPECT_DOUBLE_EQ(emission_extent(s).value, 20.0);
    EXPECT_EQ(emission_extent(s).unit, "cm^2");
    s.kind = SourceKind::isotropic;
    EXPECT_THROW(emission_extent(s), RuntimeError);
}

// particles = MU x (D/MU) / d_ref x extent ratio x c_bs, by hand: 200 MU, 0.01 Gy/MU,
// d_ref 2e-14 Gy -> 5e11 particles/MU; a 5 x 5 field of a model calibrated at 10 x 10
// (parallel: area ratio 1/4), backscatter factor 1.01 -> 200 x 5e11 x 0.25 x 1.01.
TEST(SourceCalibration, ParticlesFromMonitorUnitsByHand)
{
    DoseCalibration c;
    c.dose_per_monitor_unit_Gy = 0.01;
    c.dose_per_particle_Gy = 2e-14;
    c.emission_extent = 100;
    c.emission_extent_unit = "cm^2";
    SourceInput s;
    s.kind = SourceKind::parallel;
    s.field = FieldInput{FieldShape::rectangle, 5, 5, 0, 0};
    s.monitor_units = 200;
    s.monitor_backscatter_factor = 1.01;
    EXPECT_DOUBLE_EQ(c.particles_per_monitor_unit(), 5e11);
    EXPECT_DOUBLE_EQ(particles_from_monitor_units(s, c), 200 * 5e11 * 0.25 * 1.01);
}

// The reference-point dose of a grid with known doses: one voxel, and the mean of the
// 6 neighbours + centre within 1 cm, with sqrt(sum sigma^2)/n.
TEST(SourceCalibration, ReferencePointDoseKnownAnswer)
{
    GridGeometry const g = make_axis_aligned_geometry({{3, 3, 3}}, {{1, 1, 1}}, {{0, 0, 0}});
    std::size_t const n = 27;
    std::vector<double> edep(n), sigma(n);
    std::vector<float> density(n, 1.0f);
    std::vector<MaterialIndex> material(n, 0);
    for (std::size_t v = 0; v < n; ++v)
    {
        edep[v] = double(v + 1) / constants::gray_per_MeV_g; // dose v+1 Gy (1 g voxels)
        sigma[v] = 0.1 * edep[v];
    }
    DoseGridData d;
    d.geometry = g;
    d.edep_MeV = make_span(std::as_const(edep));
    d.edep_sigma_MeV = make_span(std::as_const(sigma));
    d.density_g_cm3 = make_span(std::as_const(density));
    d.material = make_span(std::as_const(material));
    d.material_names = {"water"};
    auto const one = reference_point_dose(d, {{1.2, 0.9, 1.1}}, 0);
    EXPECT_NEAR(one.dose_Gy_per_particle, 14, 1e-12); // voxel (1,1,1) = 13 -> dose 14
    EXPECT_EQ(one.voxels, 1u);
    auto const ball = reference_point_dose(d, {{1, 1, 1}}, 1.0);
    EXPECT_EQ(ball.voxels, 7u);
    // Centre 14, neighbours 13 +- 1, 13 +- 3, 13 +- 9 (+1): mean 14.
    EXPECT_NEAR(ball.dose_Gy_per_particle, 14, 1e-12);
    double var = 0;
    for (double x : {14.0, 13.0, 15.0, 11.0, 17.0, 5.0, 23.0})
        var += 0.01 * x * x;
    EXPECT_NEAR(ball.sigma_Gy_per_particle, std::sqrt(var) / 7, 1e-12);
    EXPECT_THROW(reference_point_dose(d, {{5, 5, 5}}, 0), RuntimeError);
}

class CalibrationStudy : public StudyFixture
{
  protected:
    //! A water phantom with a parallel 6 MeV photon beam of `size` x `size` cm^2.
    static nlohmann::json water_beam(double size)
    {
        auto j = nlohmann::json::parse(R"({
          "phantom": {"type": "shapes",
                      "grid": {"dimensions": [6, 6, 6], "spacing_cm": [2, 2, 1],
                               "origin_cm": [-5, -5, 0.5]},
                      "background": {"material": "water"}},
          "sources": [{"type": "parallel", "particle": "photon", "energy_MeV": 6,
                       "position_cm": [0, 0, -1], "direction": [0, 0, 1],
                       "field": {"shape": "rectangle", "size_cm": [10, 10]}}],
          "physics": {"electron_transport": "local"},
          "tally": {"batches": 4},
          "run": {"histories": 4000},
          "backend": "cpu",
          "outputs": {"hdf5": false, "image_format": "none", "depth_dose": false,
                      "summary": false}
        })");
        j["sources"][0]["field"]["size_cm"] = {size, size};
        return j;
    }
};

// `mcdose calibrate`'s function on a reference study, then a study of 50 MU in a 6 x 6
// field of the same model: its particles are 50 x (0.01 / d_ref) x 36/100.
TEST_F(CalibrationStudy, CalibrateThenMonitorUnitsGiveParticles)
{
    StudyInput const ref = parse_study(water_beam(10).dump(), (dir_ / "ref.json").string());
    CalibrateOptions opt;
    opt.point_cm = {{0, 0, 2}};
    opt.radius_cm = 2.5;
    opt.condition = "10x10 cm2 parallel beam, 2 cm deep in water";
    StudyRunOptions run;
    run.write_outputs = false;
    StudyRunSummary summary;
    DoseCalibration const c = calibrate_source_model(ref, opt, run, &summary);
    EXPECT_EQ(summary.histories, 4000u);
    EXPECT_GT(c.dose_per_particle_Gy, 0);
    EXPECT_GT(c.dose_per_particle_sigma_Gy, 0);
    EXPECT_LT(c.dose_per_particle_sigma_Gy, 0.2 * c.dose_per_particle_Gy);
    // Centres within 2.5 cm of (0, 0, 2): x, y = +-1 and z = 0.5 ... 3.5 (r^2 <= 4.25).
    EXPECT_EQ(c.voxels, 16u);
    EXPECT_EQ(c.emission_extent_unit, "cm^2");
    EXPECT_DOUBLE_EQ(c.emission_extent, 100);
    EXPECT_EQ(c.source_model, "parallel photon source, energy_MeV=6");
    std::string const cal_path = (dir_ / "cal.json").string();
    write_calibration(cal_path, c);
    DoseCalibration const back = read_calibration(cal_path);
    EXPECT_EQ(back.dose_per_particle_Gy, c.dose_per_particle_Gy);
    EXPECT_EQ(back.source_model, c.source_model);
    EXPECT_EQ(back.condition, c.condition);

    auto treat = water_beam(6);
    treat["sources"][0]["monitor_units"] = 50;
    treat["sources"][0]["calibration"] = "cal.json";
    StudyInput const s = parse_study(treat.dump(), (dir_ / "treat.json").string());
    ASSERT_TRUE(s.sources[0].particles);
    EXPECT_NEAR(*s.sources[0].particles, 50 * 0.01 / c.dose_per_particle_Gy * 0.36,
                1e-12 * *s.sources[0].particles);
    EXPECT_DOUBLE_EQ(s.absolute.monitor_units, 50);
    EXPECT_NE(s.absolute.description.find("50 MU"), std::string::npos) << s.absolute.description;
}

// A calibration of another model (8 MeV), a missing file, MU without a calibration and MU
// with particles are each refused by the reader, naming the field.
TEST_F(CalibrationStudy, BadCalibrationsAreRefused)
{
    DoseCalibration c;
    c.source_model = "parallel photon source, energy_MeV=8";
    c.emission_extent = 100;
    c.emission_extent_unit = "cm^2";
    c.dose_per_monitor_unit_Gy = 0.01;
    c.dose_per_particle_Gy = 1e-14;
    c.voxels = 1;
    write_calibration((dir_ / "cal8.json").string(), c);
    auto expect_refused =
        [&](nlohmann::json const& j, std::string const& pointer, std::string const& words)
    {
        try
        {
            parse_study(j.dump(), (dir_ / "s.json").string());
            ADD_FAILURE() << "accepted: " << j.dump();
        }
        catch (InputError const& e)
        {
            EXPECT_EQ(e.pointer(), pointer) << e.what();
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    auto j = water_beam(10);
    j["sources"][0]["monitor_units"] = 100;
    j["sources"][0]["calibration"] = "cal8.json";
    expect_refused(j, "/sources/0/calibration", "energy_MeV=8");
    j["sources"][0]["calibration"] = "missing.json";
    expect_refused(j, "/sources/0/calibration", "missing.json");
    j["sources"][0].erase("calibration");
    expect_refused(j, "/sources/0/monitor_units", "needs 'calibration'");
    j["sources"][0]["calibration"] = "cal8.json";
    j["sources"][0]["particles"] = 1e9;
    expect_refused(j, "/sources/0/monitor_units", "not both");
    auto iso = water_beam(10);
    iso["outputs"]["dose_to_water_energy_MeV"] = 2;
    expect_refused(iso, "/outputs/dose_to_water_energy_MeV", "dose_to");
}

// A run with "dose_to": "water" on water and bone slabs: the dose in bone is the dose to
// medium times s_w,bone exactly (same seed), water unchanged.
TEST_F(CalibrationStudy, DoseToWaterScalesEachMaterial)
{
    auto j = water_beam(10);
    j["phantom"]["shapes"] = nlohmann::json::parse(
        R"([{"type": "slab", "axis": "z", "from_cm": 2, "to_cm": 4,
             "material": "bone_cortical_icrp", "density_g_cm3": 1.85}])");
    std::vector<double> medium, water;
    std::vector<MaterialIndex> mat;
    for (std::string to : {"medium", "water"})
    {
        j["outputs"]["dose_to"] = to;
        StudyInput const s = parse_study(j.dump(), (dir_ / ("d" + to + ".json")).string());
        EXPECT_EQ(s.outputs.dose_to_water, to == "water") << j.dump();
        StudyRunOptions run;
        run.write_outputs = false;
        std::vector<double>& out = to == "medium" ? medium : water;
        run.on_dose = [&](DoseGridData const& d, StudyInput const&)
        {
            out = dose_gy_per_particle(d);
            mat.assign(d.material.begin(), d.material.end());
            if (to == "water")
            {
                EXPECT_EQ(d.material_dose_factor.size(), d.material_names.size());
            }
        };
        run_study(s, run);
    }
    ASSERT_EQ(medium.size(), water.size());
    double const s_bone = water_to_medium_stopping_power_ratio(find_material("bone_cortical_icrp"),
                                                               find_material("water"), 6.0);
    int bone_voxels = 0;
    for (std::size_t v = 0; v < medium.size(); ++v)
    {
        double const f = mat[v] == 0 ? 1.0 : s_bone;
        bone_voxels += mat[v] != 0;
        EXPECT_NEAR(water[v], medium[v] * f, 1e-12 * std::fabs(water[v])) << v;
    }
    EXPECT_EQ(bone_voxels, 72);
}
} // namespace mcdose::test
