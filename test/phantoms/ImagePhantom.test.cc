//! Image phantoms: a CT image through the HU calibration, and a material-index
//! image with a density image; spacing, origin and orientation are kept.
#include <filesystem>
#include <unistd.h>

#include <gtest/gtest.h>

#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "phantoms/PhantomBuilder.hh"

namespace fs = std::filesystem;

namespace mcdose
{
class ImagePhantomTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_imgphantom_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        geo_ = make_axis_aligned_geometry(Int3{{4, 3, 2}}, Real3{{0.2, 0.3, 0.5}},
                                          Real3{{1.0, -2.0, 3.0}});
        double const d[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0}; // a permutation of the axes
        std::copy(d, d + 9, geo_.direction);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(char const* name) const { return (dir_ / name).string(); }

    PhantomInput ct_input(std::string const& image) const
    {
        PhantomInput in;
        in.study_file = "study.json";
        in.pointer = "/phantom";
        in.kind = PhantomKind::ct_image;
        in.ct.image_path = image;
        in.ct.calibration = schneider2000_calibration();
        return in;
    }

    static std::string error_of(PhantomInput const& in)
    {
        try
        {
            build_phantom(in, {});
        }
        catch (InputError const& e)
        {
            return e.pointer() + " | " + e.what();
        }
        return "no error";
    }

    fs::path dir_;
    GridGeometry geo_;
};

TEST_F(ImagePhantomTest, CtImageIsCalibratedAndKeepsGeometry)
{
    std::vector<float> hu(geo_.num_voxels(), 0.0f);
    hu[0] = -1000;
    hu[1] = -700;
    hu[2] = 1600;
    write_image(path("ct.mha"), geo_, make_span(std::as_const(hu)));
    Phantom const p = build_phantom(ct_input(path("ct.mha")), {});
    GridGeometry const& g = p.grid.geometry();
    EXPECT_EQ(geo_.dims, g.dims);
    for (int a = 0; a < 3; ++a)
    {
        EXPECT_NEAR(geo_.spacing_cm[a], g.spacing_cm[a], 1e-6);
        EXPECT_NEAR(geo_.origin_cm[a], g.origin_cm[a], 1e-6);
    }
    for (int e = 0; e < 9; ++e)
        EXPECT_EQ(geo_.direction[e], g.direction[e]);
    auto name = [&](size_type v) { return p.material_names[p.grid.material()[v]]; };
    EXPECT_EQ("air", name(0));
    EXPECT_EQ("lung_icrp", name(1));
    EXPECT_EQ("bone_cortical_icrp", name(2));
    EXPECT_EQ("soft_tissue_icru44", name(3));
    EXPECT_FLOAT_EQ(1.9642f, p.grid.density_g_cm3()[2]);
}

TEST_F(ImagePhantomTest, HuOutsideTheCalibrationIsAnError)
{
    std::vector<float> hu(geo_.num_voxels(), 0.0f);
    hu[5] = -3024; // outside-the-scan padding value of many scanners
    write_image(path("ct.mha"), geo_, make_span(std::as_const(hu)));
    auto in = ct_input(path("ct.mha"));
    std::string const e = error_of(in);
    EXPECT_NE(std::string::npos, e.find("/phantom/calibration |")) << e;
    EXPECT_NE(std::string::npos, e.find("-3024")) << e;
    EXPECT_NE(std::string::npos, e.find("voxel (1, 1, 0)")) << e;
    EXPECT_NE(std::string::npos, e.find("clamp")) << e;
    in.ct.calibration.out_of_range = HuOutOfRange::clamp;
    EXPECT_NO_THROW(build_phantom(in, {}));
}

TEST_F(ImagePhantomTest, MissingImageNamesTheField)
{
    std::string const e = error_of(ct_input(path("nowhere.mha")));
    EXPECT_NE(std::string::npos, e.find("/phantom/image |")) << e;
    EXPECT_NE(std::string::npos, e.find("does not exist")) << e;
}

TEST_F(ImagePhantomTest, MaterialAndDensityImages)
{
    std::vector<std::uint16_t> labels(geo_.num_voxels(), 0);
    std::vector<float> rho(geo_.num_voxels(), 1.0f);
    labels[3] = 2;
    rho[3] = 1.92f;
    labels[4] = 1;
    rho[4] = 0.3f;
    write_image(path("labels.nrrd"), geo_, make_span(std::as_const(labels)));
    write_image(path("rho.nrrd"), geo_, make_span(std::as_const(rho)));
    PhantomInput in;
    in.study_file = "study.json";
    in.pointer = "/phantom";
    in.kind = PhantomKind::material_image;
    in.material_image.material_image_path = path("labels.nrrd");
    in.material_image.density_image_path = path("rho.nrrd");
    in.material_image.materials = {"water", "lung_icrp", "bone_cortical_icrp"};
    Phantom const p = build_phantom(in, {});
    EXPECT_EQ(2, p.grid.material()[3]);
    EXPECT_FLOAT_EQ(1.92f, p.grid.density_g_cm3()[3]);
    EXPECT_FLOAT_EQ(0.3f, p.grid.density_g_cm3()[4]);
    EXPECT_EQ(geo_.direction[1], p.grid.geometry().direction[1]);

    // Nominal densities when no density image is given.
    in.material_image.density_image_path.clear();
    Phantom const q = build_phantom(in,
                                    [](std::string const& n) {
                                        return n == "water" ? 1.0 : n == "lung_icrp" ? 1.05 : 1.85;
                                    });
    EXPECT_FLOAT_EQ(1.85f, q.grid.density_g_cm3()[3]);

    // A label beyond the list of materials.
    in.material_image.materials.pop_back();
    std::string const e = error_of(in);
    EXPECT_NE(std::string::npos, e.find("/phantom/material_image |")) << e;
    EXPECT_NE(std::string::npos, e.find("label 2")) << e;

    // Float labels are refused; a density image on another grid too.
    in.material_image.materials.push_back("bone_cortical_icrp");
    in.material_image.material_image_path = path("rho.nrrd");
    EXPECT_NE(std::string::npos, error_of(in).find("integer pixel type")) << error_of(in);
    GridGeometry other = geo_;
    other.spacing_cm[0] = 0.25;
    write_image(path("rho2.nrrd"), other, make_span(std::as_const(rho)));
    in.material_image.material_image_path = path("labels.nrrd");
    in.material_image.density_image_path = path("rho2.nrrd");
    EXPECT_NE(std::string::npos, error_of(in).find("does not have the grid")) << error_of(in);
}
} // namespace mcdose
