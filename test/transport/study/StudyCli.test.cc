//! What users see from `mcdose check` and `mcdose phantom`: one-line errors
//! naming file, field and fix, non-zero exit; summaries of valid studies.
#include <algorithm>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "StudyFixture.hh"
#include "TestMacros.hh"
#include "phantoms/ImageIO.hh"

namespace mcdose::test
{
namespace
{
std::size_t count_lines(std::string const& s)
{
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
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
         "/tally/uncertainty: \"history\" (history-by-history uncertainty) is not supported; "
         "use \"batch\" or leave the field out (docs/tally.md"},
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
} // namespace mcdose::test
