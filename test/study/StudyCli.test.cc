//! What users see from `mcdose check` and `mcdose phantom`: one-line errors
//! naming file, field and fix, non-zero exit; summaries of valid studies.
#include <algorithm>

#include <gtest/gtest.h>

#include "DicomTestSeries.hh"
#include "RunCommand.hh"
#include "StudyFixture.hh"
#include "TestMacros.hh"
#include "io/ImageIO.hh"

namespace mcdose::test
{
namespace
{
std::size_t count_lines(std::string const& s)
{
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

//! The entry of material `name` in `mcdose phantom --json` output (null if absent).
nlohmann::json material_entry(nlohmann::json const& doc, std::string const& name)
{
    for (auto const& m : doc["materials"])
    {
        if (m["name"] == name)
            return m;
    }
    return nullptr;
}

//! A 8 x 6 x 3 axial CT series stored as int16 with slope 0.5, intercept -1024:
//! slice 0 air (-1000 HU), slice 1 water-like (0 HU), slice 2 bone (1600 HU).
DicomTestSeries three_tissue_series(std::string const& uid)
{
    DicomTestSeries s; // the defaults, with 3 slices
    s.series_uid = uid;
    s.slices = 3;
    s.write_order = {2, 0, 1};
    for (double hu : {-1000.0, 0.0, 1600.0})
        s.hu.insert(s.hu.end(), 8 * 6, hu);
    return s;
}
} // namespace

using StudyCliTest = StudyFixture;

TEST_F(StudyCliTest, ExamplesPassCheck)
{
    for (char const* name :
         {"water_20MeV_electrons.json", "slab_6MeV_photons.json", "synthetic_ct.json"})
    {
        auto const r = run_command(mcdose_exe() + " check " + source_dir() + "/examples/" + name);
        EXPECT_EQ(0, r.exit_code) << r.output;
        EXPECT_NE(std::string::npos, r.output.find(": OK (")) << r.output;
    }
}

TEST_F(StudyCliTest, EachErrorIsOneLineWithFieldAndFix)
{
    struct Case
    {
        char const* name;
        std::string text;
        char const* expected; // must appear in the message
    };
    auto typo = minimal();
    typo["phantom"]["grid"]["spaceing_cm"] = typo["phantom"]["grid"]["spacing_cm"];
    typo["phantom"]["grid"].erase("spacing_cm");
    auto range = minimal();
    range["run"]["histories"] = 0;
    auto material = minimal();
    material["phantom"]["shapes"][0]["material"] = "bone_cortical";
    auto image = minimal();
    image["phantom"] = {{"type", "ct_image"}, {"image", "missing.nrrd"}};
    // A 2-component image (unsupported pixel type) and a CT with HU beyond the calibration.
    {
        std::ofstream out(dir_ / "vec.mha", std::ios::binary);
        out << "ObjectType = Image\nNDims = 3\nDimSize = 2 2 2\nElementNumberOfChannels = 2\n"
               "ElementSpacing = 1 1 1\nElementType = MET_SHORT\nElementDataFile = LOCAL\n";
        std::vector<short> data(16, 0);
        out.write(reinterpret_cast<char const*>(data.data()), data.size() * sizeof(short));
    }
    auto pixel = minimal();
    pixel["phantom"] = {{"type", "ct_image"}, {"image", "vec.mha"}};
    {
        GridGeometry const g =
            make_axis_aligned_geometry(Int3{{2, 2, 2}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
        std::vector<float> hu(8, 0.0f);
        hu[3] = -2000;
        write_image((dir_ / "ct.nrrd").string(), g, make_span(std::as_const(hu)));
    }
    auto hu = minimal();
    hu["phantom"] = {{"type", "ct_image"}, {"image", "ct.nrrd"}};
    auto history = minimal();
    history["tally"] = {{"uncertainty", "history"}};
    history["backend"] = "gpu";
    std::vector<Case> const cases = {
        {"syntax.json", "{\n  \"run\": {\"histories\": 10}\n  \"backend\": \"cpu\"\n}\n",
         "line 3, column 3: malformed JSON"},
        {"typo.json", typo.dump(2),
         "/phantom/grid/spaceing_cm: unknown field 'spaceing_cm'; did "
         "you mean 'spacing_cm'?"},
        {"range.json", range.dump(2),
         "/run/histories: value 0 is out of range; it must be in [1, "},
        {"material.json", material.dump(2), "/phantom/shapes/0/material: unknown material"},
        {"image.json", image.dump(2), "/phantom/image: image '"},
        {"pixel.json", pixel.dump(2), "has unsupported pixel type"},
        {"hu.json", hu.dump(2),
         "/phantom/calibration: 1 voxels have CT numbers outside the "
         "calibration [-1024, 3071] HU, the first -2000 at voxel (1, 1, 0)"},
        {"history.json", history.dump(2),
         "/tally/uncertainty: \"history\" (history-by-history) runs on the CPU backend only"},
    };
    for (auto const& c : cases)
    {
        SCOPED_TRACE(c.name);
        std::string const path = write(c.name, c.text);
        auto const r = run_command(mcdose_exe() + " check " + path);
        EXPECT_EQ(1, r.exit_code) << r.output;
        EXPECT_EQ(1u, count_lines(r.output)) << r.output;
        EXPECT_EQ(0u, r.output.find("mcdose: error: " + path + ": ")) << r.output;
        EXPECT_NE(std::string::npos, r.output.find(c.expected)) << r.output;
    }
    auto const missing = run_command(mcdose_exe() + " check " + (dir_ / "none.json").string());
    EXPECT_EQ(1, missing.exit_code);
    EXPECT_NE(std::string::npos, missing.output.find("cannot open the study file"))
        << missing.output;
}

TEST_F(StudyCliTest, PhantomPrintsMaterialsWithMassAndVolume)
{
    auto const r =
        run_command(mcdose_exe() + " phantom " + source_dir() + "/examples/slab_6MeV_photons.json");
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("60 x 60 x 60 = 216000 voxels")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("bone_cortical_icrp")) << r.output;

    auto const j = run_command(mcdose_exe() + " phantom --json " + source_dir() +
                               "/examples/slab_6MeV_photons.json");
    ASSERT_EQ(0, j.exit_code) << j.output;
    auto const doc = nlohmann::json::parse(j.output);
    ASSERT_EQ(3u, doc["materials"].size());
    // Bone slab 3..5 cm: 4 voxel layers of 60 x 60 voxels of 0.125 cm^3 at 1.85 g/cm^3.
    auto const& bone = doc["materials"][1];
    EXPECT_EQ("bone_cortical_icrp", bone["name"]);
    EXPECT_EQ(4 * 60 * 60, bone["voxels"].get<int>());
    EXPECT_NEAR(4 * 60 * 60 * 0.125, bone["volume_cm3"].get<double>(), 1e-9);
    EXPECT_NEAR(4 * 60 * 60 * 0.125 * 1.85, bone["mass_g"].get<double>(), 1e-3);
    EXPECT_NEAR(30.0 * 30 * 30,
                doc["materials"][0]["volume_cm3"].get<double>() + bone["volume_cm3"].get<double>() +
                    doc["materials"][2]["volume_cm3"].get<double>(),
                1e-6);
}

TEST_F(StudyCliTest, PhantomWarnsAboutShapesThatCoverNothing)
{
    auto j = minimal();
    j["phantom"]["shapes"].push_back(nlohmann::json::parse(
        R"({"type": "sphere", "centre_cm": [50, 0, 0], "radius_cm": 1, "material": "air"})"));
    std::string const path = write_json("warn.json", j);
    auto const r = run_command(mcdose_exe() + " phantom " + path);
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("mcdose: warning: " + path +
                                               ": /phantom/shapes/1: the sphere contains "
                                               "no voxel centre"))
        << r.output;
}

TEST_F(StudyCliTest, PhantomExportWritesImages)
{
    std::string const stem = (dir_ / "ct").string();
    auto const r = run_command(mcdose_exe() + " phantom --export " + stem + " " + source_dir() +
                               "/examples/synthetic_ct.json");
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_TRUE(std::filesystem::exists(stem + "_material.mha"));
    EXPECT_TRUE(std::filesystem::exists(stem + "_density.mha"));
}

TEST_F(StudyCliTest, PhantomReadsADicomSeries)
{
    write_dicom_series((dir_ / "ct_dicom").string(), three_tissue_series("2.25.301002.1"));
    auto j = minimal();
    j["phantom"] = {{"type", "ct_image"}, {"image", "ct_dicom"}};
    std::string const path = write_json("dicom.json", j);

    auto const r = run_command(mcdose_exe() + " phantom " + path);
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("8 x 6 x 3 = 144 voxels")) << r.output;

    auto const out = run_command(mcdose_exe() + " phantom --json " + path);
    ASSERT_EQ(0, out.exit_code) << out.output;
    auto const doc = nlohmann::json::parse(out.output);
    EXPECT_EQ("ct_image", doc["type"]);
    EXPECT_EQ((std::vector<int>{8, 6, 3}), doc["dimensions"].get<std::vector<int>>());
    // mm in the files, cm here; the origin is the position of the lowest slice.
    auto const spacing = doc["spacing_cm"].get<std::vector<double>>();
    auto const origin = doc["origin_cm"].get<std::vector<double>>();
    double const expected_spacing[3] = {0.15, 0.25, 0.3};
    double const expected_origin[3] = {-12.05, 8.025, -3.3};
    for (int a = 0; a < 3; ++a)
    {
        EXPECT_NEAR(expected_spacing[a], spacing[a], 1e-9) << "axis " << a;
        EXPECT_NEAR(expected_origin[a], origin[a], 1e-9) << "axis " << a;
    }
    // One slice (48 voxels of 0.01125 cm^3) of each tissue, in slice order, with
    // the default calibration: air 0.00121, water-like (Schneider eq. 21 at 0 HU)
    // 1.018 and bone (eq. 19 at 1600 HU) 1.9642 g/cm^3.
    double const voxel_cm3 = 0.15 * 0.25 * 0.3;
    struct Expected
    {
        char const* name;
        double density;
    };
    for (Expected const& x : {Expected{"air", 0.00121}, Expected{"soft_tissue_icru44", 1.018},
                              Expected{"bone_cortical_icrp", 1.9642}})
    {
        SCOPED_TRACE(x.name);
        auto const m = material_entry(doc, x.name);
        ASSERT_FALSE(m.is_null()) << out.output;
        EXPECT_EQ(48, m["voxels"].get<int>());
        EXPECT_NEAR(48 * voxel_cm3, m["volume_cm3"].get<double>(), 1e-9);
        EXPECT_NEAR(x.density, m["min_density_g_cm3"].get<double>(), 1e-6);
        EXPECT_NEAR(x.density, m["max_density_g_cm3"].get<double>(), 1e-6);
    }
}

TEST_F(StudyCliTest, SeveralDicomSeriesNeedTheUid)
{
    write_dicom_series((dir_ / "ct_dicom").string(), three_tissue_series("2.25.301002.1"), "a");
    DicomTestSeries b = three_tissue_series("2.25.301002.2");
    b.series_number = 2;
    b.slices = 2;
    b.write_order.clear();
    b.hu.assign(8 * 6 * 2, 0.0);
    write_dicom_series((dir_ / "ct_dicom").string(), b, "b");

    auto j = minimal();
    j["phantom"] = {{"type", "ct_image"}, {"image", "ct_dicom"}};
    std::string const none = write_json("none.json", j);
    auto const r = run_command(mcdose_exe() + " check " + none);
    EXPECT_EQ(1, r.exit_code) << r.output;
    EXPECT_EQ(1u, count_lines(r.output)) << r.output;
    EXPECT_EQ(0u, r.output.find("mcdose: error: " + none + ": /phantom/dicom_series_uid: '"))
        << r.output;
    EXPECT_NE(std::string::npos,
              r.output.find("' holds 2 DICOM series: 2.25.301002.1 (3 files), 2.25.301002.2 (2 "
                            "files); choose one with dicom_series_uid"))
        << r.output;

    j["phantom"]["dicom_series_uid"] = "2.25.301002.2";
    auto const chosen = run_command(mcdose_exe() + " phantom --json " + write_json("b.json", j));
    ASSERT_EQ(0, chosen.exit_code) << chosen.output;
    // The other series' files are named in one warning (stderr), then the JSON (stdout).
    EXPECT_EQ(0u, chosen.output.find("mcdose: warning: ")) << chosen.output;
    EXPECT_NE(std::string::npos,
              chosen.output.find("holds 3 files of another series, 2.25.301002.1 ("))
        << chosen.output;
    EXPECT_EQ((std::vector<int>{8, 6, 2}),
              nlohmann::json::parse(chosen.output.substr(chosen.output.find('{')))["dimensions"]
                  .get<std::vector<int>>());

    j["phantom"]["dicom_series_uid"] = "2.25.301002.3";
    std::string const unknown = write_json("unknown.json", j);
    auto const u = run_command(mcdose_exe() + " check " + unknown);
    EXPECT_EQ(1, u.exit_code) << u.output;
    EXPECT_EQ(1u, count_lines(u.output)) << u.output;
    EXPECT_NE(std::string::npos, u.output.find(": /phantom/dicom_series_uid: DICOM series "
                                               "'2.25.301002.3' is not in '"))
        << u.output;
    EXPECT_NE(std::string::npos, u.output.find("set dicom_series_uid to one of these")) << u.output;
}
} // namespace mcdose::test
