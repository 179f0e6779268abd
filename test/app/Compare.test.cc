//! `mcdose compare` as a user runs it: images, HDF5 and RT Dose inputs, the
//! JSON report and gamma map, and the refusals (missing file, grids that do
//! not overlap, different units).
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "RunCommand.hh"
#include "TestMacros.hh"
#include "dose/DoseHdf5.hh"
#include "dose/DoseImages.hh"
#include "dose/DoseReader.hh"
#include "dose/RtDose.hh"
#include "io/ImageIO.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
class CompareCliTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_compare_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(std::string const& name) const { return (dir_ / name).string(); }

    //! A 3D Gaussian dose (sigma 15 mm) on 2 mm voxels, centred at `centre_mm` along x.
    static std::vector<float> gaussian(GridGeometry const& g, double centre_mm, double scale)
    {
        std::vector<float> v(g.num_voxels());
        for (size_type i = 0; i < v.size(); ++i)
        {
            Real3 const p = g.voxel_centre_cm(g.ijk(i));
            double const dx = 10 * p[0] - centre_mm, dy = 10 * p[1], dz = 10 * p[2];
            v[i] = float(scale * std::exp(-(dx * dx + dy * dy + dz * dz) / (2 * 15.0 * 15.0)));
        }
        return v;
    }

    static void write_gaussian(std::string const& file, GridGeometry const& g, double centre_mm,
                               double scale)
    {
        std::vector<float> const values = gaussian(g, centre_mm, scale);
        write_image(file, g, make_span(values));
    }

    static GridGeometry grid(double x0_cm = -3.9)
    {
        return make_axis_aligned_geometry(Int3{{40, 40, 40}}, Real3{{0.2, 0.2, 0.2}},
                                          Real3{{x0_cm, -3.9, -3.9}});
    }

    fs::path dir_;
};

nlohmann::json read_json(std::string const& p)
{
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

//! A dose grid of one material, water, over the caller's arrays.
DoseGridData water_grid(GridGeometry const& g, std::vector<double> const& edep,
                        std::vector<double> const& sigma, std::vector<float> const& density,
                        std::vector<MaterialIndex> const& material)
{
    DoseGridData data = dose_grid_view(g, make_span(edep), make_span(sigma), make_span(density),
                                       make_span(material));
    data.material_names = {"water"};
    return data;
}
} // namespace

TEST_F(CompareCliTest, ShiftedImagesGiveReportAndGammaMap)
{
    GridGeometry const g = grid();
    write_gaussian(path("a.mha"), g, 0, 1.0);
    write_gaussian(path("b.nrrd"), g, 1.0, 1.0);
    auto const r = run_command(mcdose_exe() + " compare " + path("a.mha") + " " + path("b.nrrd") +
                               " --json " + path("c.json") + " --gamma-map " + path("g.mha"));
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("gamma 3%/3mm global: pass rate 100.00 %"), std::string::npos)
        << r.output;
    nlohmann::json const j = read_json(path("c.json"));
    ASSERT_EQ(2u, j["gamma"].size());
    EXPECT_EQ("3%/3mm global", j["gamma"][0]["criterion"]);
    EXPECT_EQ("2%/2mm global", j["gamma"][1]["criterion"]);
    // A 1 mm shift: every gamma is at most 1/3 (3 mm) and 1/2 (2 mm).
    EXPECT_LE(j["gamma"][0]["max_gamma"].get<double>(), 1.0 / 3 + 1e-3);
    EXPECT_LE(j["gamma"][1]["max_gamma"].get<double>(), 0.5 + 1e-3);
    EXPECT_DOUBLE_EQ(100.0, j["gamma"][1]["pass_rate_percent"].get<double>());
    EXPECT_FALSE(j["resampled"].get<bool>());
    ScalarImage const map = read_scalar_image(path("g.mha"));
    ASSERT_EQ(g.num_voxels(), map.values.size());
    std::size_t evaluated = 0;
    for (double x : map.values)
    {
        EXPECT_TRUE(x == -1 || (x >= 0 && x <= 1.0 / 3 + 1e-3)) << x;
        evaluated += x >= 0;
    }
    EXPECT_EQ(j["gamma"][0]["evaluated"].get<std::size_t>(), evaluated);
}

TEST_F(CompareCliTest, UniformDoseScaledByKnownFactor)
{
    // 1.05 against 1: no displacement helps, gamma = 0.05 / dD everywhere:
    // 1.667 at 3 % (all fail), 0.833 at 6 % (all pass), global and local alike.
    GridGeometry const g = grid();
    std::vector<float> const one(g.num_voxels(), 1.0f), more(g.num_voxels(), 1.05f);
    write_image(path("a.mha"), g, make_span(one));
    write_image(path("b.mha"), g, make_span(more));
    auto const r =
        run_command(mcdose_exe() + " compare " + path("a.mha") + " " + path("b.mha") +
                    " --criteria 3%/3mm,6%/3mm --normalisation both --json " + path("c.json"));
    ASSERT_EQ(0, r.exit_code) << r.output;
    nlohmann::json const j = read_json(path("c.json"));
    ASSERT_EQ(4u, j["gamma"].size());
    EXPECT_EQ("6%/3mm local", j["gamma"][3]["criterion"]);
    for (int i = 0; i < 4; ++i)
    {
        double const expected = i % 2 == 0 ? 0.05 / 0.03 : 0.05 / 0.06;
        EXPECT_NEAR(expected, j["gamma"][i]["max_gamma"].get<double>(), 1e-5) << i;
        EXPECT_NEAR(expected, j["gamma"][i]["mean_gamma"].get<double>(), 1e-5) << i;
        EXPECT_EQ(g.num_voxels(), j["gamma"][i]["evaluated"].get<std::size_t>()) << i;
        EXPECT_DOUBLE_EQ(i % 2 == 0 ? 0.0 : 100.0, j["gamma"][i]["pass_rate_percent"].get<double>())
            << i;
    }
    EXPECT_NEAR(0.05, j["dose_difference"]["max_abs_difference"].get<double>(), 1e-6);
    EXPECT_NEAR(0.05, j["dose_difference"]["rms_difference"].get<double>(), 1e-6);
    EXPECT_NEAR(1.05, j["dose_difference"]["mean_ratio"].get<double>(), 1e-6);
}

TEST_F(CompareCliTest, RtDoseAgainstItsHdf5)
{
    // The RT Dose of a result compared with the HDF5 of the same result: equal
    // to within the 32-bit quantisation (RtDoseOptions), every voxel passes.
    GridGeometry const g = grid();
    std::vector<float> const shape = gaussian(g, 0, 1.0);
    std::vector<double> edep(shape.begin(), shape.end()), sigma(edep.size());
    for (size_type i = 0; i < edep.size(); ++i)
        sigma[i] = 0.01 * edep[i];
    std::vector<float> density(edep.size(), 1.0f);
    std::vector<MaterialIndex> material(edep.size(), 0);
    DoseGridData data = water_grid(g, edep, sigma, density, material);
    RunMetadata meta;
    meta.source_particles = 1e10;
    meta.started_utc = "2026-11-25T12:00:00Z";
    write_dose_hdf5(path("r.h5"), data, meta);
    RtDoseOptions fine;
    fine.bits_allocated = 32;
    write_rt_dose({path("r_dose.dcm"), path("r_unc.dcm")}, data, meta, fine);
    auto const r = run_command(mcdose_exe() + " compare " + path("r.h5") + " " +
                               path("r_dose.dcm") + " --json " + path("c.json"));
    ASSERT_EQ(0, r.exit_code) << r.output;
    nlohmann::json const j = read_json(path("c.json"));
    EXPECT_EQ("Gy", j["reference"]["units"]);
    EXPECT_EQ("Gy", j["evaluated"]["units"]);
    double const max = j["dose_difference"]["reference_max"].get<double>();
    EXPECT_LE(j["dose_difference"]["max_abs_difference"].get<double>(), 1e-9 * max);
    EXPECT_DOUBLE_EQ(100.0, j["gamma"][0]["pass_rate_percent"].get<double>());

    // An RT Dose cut short inside its pixels (GDCM alone reads the missing bytes as zeros).
    fs::copy_file(path("r_dose.dcm"), path("cut_dose.dcm"));
    fs::resize_file(path("cut_dose.dcm"), fs::file_size(path("cut_dose.dcm")) - 5);
    auto const cut =
        run_command(mcdose_exe() + " compare " + path("r.h5") + " " + path("cut_dose.dcm"));
    EXPECT_EQ(1, cut.exit_code) << cut.output;
    EXPECT_NE(cut.output.find("cut_dose.dcm' is cut short"), std::string::npos) << cut.output;

    // The uncertainty file is not a dose.
    auto const e = run_command(mcdose_exe() + " compare " + path("r.h5") + " " + path("r_unc.dcm"));
    EXPECT_EQ(1, e.exit_code) << e.output;
    EXPECT_NE(e.output.find("DoseType ERROR"), std::string::npos) << e.output;

    // Dose per particle (no particle count) against Gy: refused.
    meta.source_particles.reset();
    write_dose_hdf5(path("p.h5"), data, meta);
    auto const u = run_command(mcdose_exe() + " compare " + path("r.h5") + " " + path("p.h5"));
    EXPECT_EQ(1, u.exit_code) << u.output;
    EXPECT_NE(u.output.find("different units"), std::string::npos) << u.output;
    EXPECT_NE(u.output.find("Gy per source particle"), std::string::npos) << u.output;

    // Dose to water against dose to medium (both in Gy): refused, in either file kind; the
    // RT Dose of the water file against its own HDF5 passes.
    meta.source_particles = 1e10;
    meta.quantity.to_water = true;
    std::vector<double> factors(data.material_names.size(), 1.0);
    DoseGridData water = data;
    water.material_dose_factor = factors;
    write_dose_hdf5(path("w.h5"), water, meta);
    write_rt_dose({path("w_dose.dcm"), path("w_unc.dcm")}, water, meta);
    for (std::string const evaluated : {"w.h5", "w_dose.dcm"})
    {
        auto const q =
            run_command(mcdose_exe() + " compare " + path("r.h5") + " " + path(evaluated));
        EXPECT_EQ(1, q.exit_code) << q.output;
        EXPECT_NE(q.output.find("different quantities"), std::string::npos) << q.output;
        EXPECT_NE(q.output.find("dose to water"), std::string::npos) << q.output;
    }
    auto const same =
        run_command(mcdose_exe() + " compare " + path("w.h5") + " " + path("w_dose.dcm"));
    EXPECT_EQ(0, same.exit_code) << same.output;
}

TEST_F(CompareCliTest, BadInputIsRefusedWithTheFix)
{
    GridGeometry const g = grid();
    write_gaussian(path("a.mha"), g, 0, 1.0);
    GridGeometry const far = grid(60.0);
    write_gaussian(path("far.mha"), far, 600, 1.0);

    auto const missing =
        run_command(mcdose_exe() + " compare " + path("a.mha") + " " + path("none.h5"));
    EXPECT_EQ(1, missing.exit_code) << missing.output;
    EXPECT_NE(missing.output.find("none.h5' does not exist"), std::string::npos) << missing.output;

    auto const apart = run_command(mcdose_exe() + " compare " + path("a.mha") + " " +
                                   path("far.mha") + " --json " + path("c.json"));
    EXPECT_EQ(1, apart.exit_code) << apart.output;
    EXPECT_NE(apart.output.find("do not overlap"), std::string::npos) << apart.output;
    EXPECT_FALSE(fs::exists(path("c.json")));

    auto const criterion = run_command(mcdose_exe() + " compare " + path("a.mha") + " " +
                                       path("a.mha") + " --criteria 3/3");
    EXPECT_EQ(1, criterion.exit_code) << criterion.output;
    EXPECT_NE(criterion.output.find("DOSE%/DISTANCEmm"), std::string::npos) << criterion.output;

    auto const map = run_command(mcdose_exe() + " compare " + path("a.mha") + " " + path("a.mha") +
                                 " --gamma-map " + path("g.png"));
    EXPECT_EQ(1, map.exit_code) << map.output;
    EXPECT_NE(map.output.find("--gamma-map"), std::string::npos) << map.output;
}

// A water cube in air whose air carries 5 times the water's dose (a hot couch, air around
// the patient): the body sets the normalisation and the threshold, the grid's maximum is
// reported apart; with --region grid the air would set the scale and hide a 2.5 % error.
TEST_F(CompareCliTest, AirOutsideTheBodyNeverSetsTheScale)
{
    GridGeometry const g = grid();
    size_type const n = g.num_voxels();
    std::vector<float> density(n, 0.0012f);
    for (size_type v = 0; v < n; ++v)
    {
        Int3 const ijk = g.ijk(v);
        bool inside = true;
        for (int a = 0; a < 3; ++a)
            inside = inside && ijk[a] >= 10 && ijk[a] < 30;
        if (inside)
            density[v] = 1.0f;
    }
    // Energy in proportion to mass: one dose everywhere, then 5 times it in the air.
    auto write = [&](std::string const& file, double body_scale)
    {
        std::vector<double> edep(n), sigma(n);
        for (size_type v = 0; v < n; ++v)
        {
            edep[v] = density[v] * (density[v] < 0.5f ? 5.0 : body_scale);
            sigma[v] = 0.001 * edep[v];
        }
        std::vector<MaterialIndex> material(n, 0);
        DoseGridData const data = water_grid(g, edep, sigma, density, material);
        RunMetadata meta;
        meta.source_particles = 1e10;
        meta.started_utc = "2026-11-25T12:00:00Z";
        write_dose_hdf5(path(file), data, meta);
    };
    write("ref.h5", 1.0);
    write("eval.h5", 1.025);
    std::string const cmd =
        mcdose_exe() + " compare " + path("ref.h5") + " " + path("eval.h5") + " --json ";
    auto const body = run_command(cmd + path("body.json"));
    ASSERT_EQ(0, body.exit_code) << body.output;
    EXPECT_NE(body.output.find("region   : the body"), std::string::npos) << body.output;
    nlohmann::json const j = read_json(path("body.json"));
    nlohmann::json const& d = j["dose_difference"];
    double const norm = d["normalisation_dose"].get<double>();
    EXPECT_NEAR(5 * norm, d["reference_max"].get<double>(), 1e-6 * norm);
    EXPECT_DOUBLE_EQ(norm, d["region_near_max"].get<double>());
    EXPECT_DOUBLE_EQ(0.1 * norm, d["threshold_dose"].get<double>());
    EXPECT_EQ(size_type(20 * 20 * 20), d["voxels"].get<size_type>()); // the body's alone
    EXPECT_NEAR(0.025 * norm, d["mean_difference"].get<double>(), 1e-6 * norm);
    EXPECT_DOUBLE_EQ(100.0, j["gamma"][0]["pass_rate_percent"].get<double>()); // 3 %
    EXPECT_DOUBLE_EQ(0.0, j["gamma"][1]["pass_rate_percent"].get<double>());   // 2 %

    // The whole grid: the air's dose is the scale, and 2.5 % of the body passes 2 %/2 mm.
    auto const grid_run = run_command(cmd + path("grid.json") + " --region grid");
    ASSERT_EQ(0, grid_run.exit_code) << grid_run.output;
    nlohmann::json const k = read_json(path("grid.json"));
    EXPECT_NEAR(5 * norm, k["dose_difference"]["normalisation_dose"].get<double>(), 1e-6 * norm);
    EXPECT_DOUBLE_EQ(100.0, k["gamma"][1]["pass_rate_percent"].get<double>());

    // A prescription: the threshold follows it (30 % of 2 x the body dose: the air alone).
    auto const given = run_command(cmd + path("given.json") + " --norm-dose " +
                                   std::to_string(2 * norm) + " --threshold 30");
    ASSERT_EQ(0, given.exit_code) << given.output;
    nlohmann::json const m = read_json(path("given.json"));
    EXPECT_NEAR(0.6 * norm, m["dose_difference"]["threshold_dose"].get<double>(), 1e-6 * norm);
    EXPECT_EQ(size_type(20 * 20 * 20), m["dose_difference"]["voxels"].get<size_type>());

    // A label image names the region: the body's central 10^3 voxels as label 3.
    std::vector<float> labels(n, 0.0f);
    for (size_type v = 0; v < n; ++v)
    {
        Int3 const ijk = g.ijk(v);
        bool inside = true;
        for (int a = 0; a < 3; ++a)
            inside = inside && ijk[a] >= 15 && ijk[a] < 25;
        labels[v] = inside ? 3.0f : 0.0f;
    }
    write_image(path("labels.mha"), g, make_span(std::as_const(labels)));
    auto const label = run_command(cmd + path("label.json") + " --structures " +
                                   path("labels.mha") + " --region 3");
    ASSERT_EQ(0, label.exit_code) << label.output;
    nlohmann::json const l = read_json(path("label.json"));
    EXPECT_EQ(size_type(10 * 10 * 10), l["dose_difference"]["voxels"].get<size_type>());
    EXPECT_NE(l["region"].get<std::string>().find("label 3"), std::string::npos) << l["region"];
    auto const no_label =
        run_command(cmd + path("x.json") + " --structures " + path("labels.mha") + " --region PTV");
    EXPECT_EQ(1, no_label.exit_code) << no_label.output;
    EXPECT_NE(no_label.output.find("a label, a positive whole number"), std::string::npos)
        << no_label.output;
}

// NaN or infinite doses are refused naming the file and the count; so are absurd thread
// counts, cleanly.
TEST_F(CompareCliTest, NumbersThatLieAreRefused)
{
    GridGeometry const g = grid();
    std::vector<float> values = gaussian(g, 0, 1.0);
    write_image(path("a.mha"), g, make_span(std::as_const(values)));
    values[17] = std::nanf("");
    values[18] = INFINITY;
    write_image(path("nan.mha"), g, make_span(std::as_const(values)));
    for (auto const& [ref, eval] : {std::pair{"a.mha", "nan.mha"}, std::pair{"nan.mha", "a.mha"}})
    {
        auto const r = run_command(mcdose_exe() + " compare " + path(ref) + " " + path(eval) +
                                   " --json " + path("c.json"));
        EXPECT_EQ(1, r.exit_code) << r.output;
        EXPECT_NE(r.output.find("nan.mha holds 2 NaN or infinite dose values"), std::string::npos)
            << r.output;
        EXPECT_EQ(r.output.find("pass rate"), std::string::npos) << r.output;
        EXPECT_FALSE(fs::exists(path("c.json")));
    }
    auto const threads = run_command(mcdose_exe() + " compare " + path("a.mha") + " " +
                                     path("a.mha") + " --threads 3000");
    EXPECT_EQ(2, threads.exit_code) << threads.output;
    EXPECT_NE(threads.output.find("--threads"), std::string::npos) << threads.output;
}

// The images mcdose writes say what they hold; compare reads it back as their unit.
TEST_F(CompareCliTest, ImageHeadersCarryQuantityAndUnit)
{
    GridGeometry const g = grid();
    std::vector<double> edep(g.num_voxels(), 1.0), sigma(g.num_voxels(), 0.01);
    std::vector<float> density(g.num_voxels(), 1.0f);
    std::vector<MaterialIndex> material(g.num_voxels(), 0);
    DoseGridData const data = water_grid(g, edep, sigma, density, material);
    for (char const* ext : {"mha", "nrrd", "nii"})
    {
        auto const files =
            write_dose_images(path(std::string("r_") + ext), ext, data, 1e9, "dose to water");
        ScalarImage const dose = read_scalar_image(files[0]);
        EXPECT_EQ("mcdose: dose to water [Gy]", dose.description) << ext;
        ScalarImage const unc = read_scalar_image(files[1]);
        EXPECT_NE(unc.description.find("relative uncertainty"), std::string::npos) << ext;
        DoseGrid const grid = read_dose_grid(files[0]);
        EXPECT_EQ("Gy", grid.units) << ext;
        EXPECT_EQ("dose to water", grid.quantity) << ext;
    }
    auto const files = write_dose_images(path("p"), "mha", data, std::nullopt);
    EXPECT_EQ("Gy per source particle", read_dose_grid(files[0]).units);
}
} // namespace mcdose::test
