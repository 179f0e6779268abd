//! Body outline, structures from DICOM RT Structure Sets (made here with
//! pydicom through scripts/make_rtstruct.py) and from label images, and the
//! refusals of bad structure input.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "DicomTestSeries.hh"
#include "core/Constants.hh"
#include "core/StopRequest.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "io/RtStructFile.hh"
#include "phantoms/PhantomBuilder.hh"
#include "phantoms/StructureSet.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
//! The phantom input of a CT image or DICOM folder with the default calibration.
PhantomInput ct_input(std::string const& path)
{
    PhantomInput in;
    in.study_file = "study.json";
    in.pointer = "/phantom";
    in.kind = PhantomKind::ct_image;
    in.ct.image_path = path;
    in.ct.calibration = schneider2000_calibration();
    return in;
}

//! Voxel count of the synthetic CT's body by its definition
//! (scripts/make_synthetic_ct.py: voxel centres inside the 15 x 10 cm ellipse).
size_type synthetic_ct_body_voxels()
{
    size_type n = 0;
    for (int j = 0; j < 48; ++j)
        for (int i = 0; i < 64; ++i)
        {
            double const x = (i - 31.5) * 0.5, y = (j - 23.5) * 0.5;
            n += (x / 15) * (x / 15) + (y / 10) * (y / 10) <= 1.0;
        }
    return n * 40;
}

//! A grid of 10 x 10 x nz voxels of 1 cm, of density 0.001 g/cm3 but where at() says.
struct DensityGrid
{
    GridGeometry g;
    std::vector<float> rho;

    explicit DensityGrid(int nz)
    {
        g.dims = {{10, 10, nz}};
        g.spacing_cm = {{1, 1, 1}};
        rho.assign(g.num_voxels(), 0.001f);
    }
    float& at(int i, int j, int k) { return rho[g.linear_index({{i, j, k}})]; }
    StructureMask body(double threshold_g_cm3) const
    {
        return body_outline(g, make_span(rho), threshold_g_cm3);
    }
};

TEST(BodyOutlineTest, SyntheticCtMatchesItsDefinition)
{
    PhantomInput in = ct_input(std::string(MCDOSE_TEST_SOURCE_DIR) + "/examples/synthetic_ct.mha");
    in.ct.frame_of_reference_uid = "2.25.20001.9"; // an image file carries none
    Phantom const p = build_phantom(in, {});
    EXPECT_EQ("2.25.20001.9", p.frame_of_reference_uid);
    StructureMask const body = body_outline(p.grid.geometry(), make_span(p.grid.density_g_cm3()),
                                            default_body_density_g_cm3);
    // The CT was made voxel centre by voxel centre, so the outline is exact:
    // lungs (about 0.2 g/cm3) are holes, filled; air outside is not body.
    EXPECT_EQ(synthetic_ct_body_voxels(), body.voxels.size());
    EXPECT_EQ(body.voxels.size(), body.fraction.size());
    // A lung voxel (x = -6.5 cm, y = -0.5 cm, z slice 20) is inside, a corner is not.
    GridGeometry const& g = p.grid.geometry();
    EXPECT_TRUE(body.contains(g.linear_index({{int(31.5 - 13), int(23.5 - 1), 20}})));
    EXPECT_LT(p.grid.density_g_cm3()[g.linear_index({{int(31.5 - 13), int(23.5 - 1), 20}})], 0.5f);
    EXPECT_FALSE(body.contains(0));
}

TEST(BodyOutlineTest, KeepsTheLargestRegionAndFillsEnclosedHoles)
{
    DensityGrid d(3);
    for (int k = 0; k < 3; ++k)
        for (int j = 1; j <= 6; ++j)
            for (int i = 1; i <= 6; ++i)
                d.at(i, j, k) = (i == 1 || i == 6 || j == 1 || j == 6) ? 1.0f : 0.3f; // a ring
    d.at(8, 8, 1) = 1.0f; // a separate blob (e.g. the couch): not body
    StructureMask const body = d.body(0.5);
    EXPECT_EQ(size_type(36 * 3), body.voxels.size()); // ring and its hole, all slices
    EXPECT_TRUE(body.contains(d.g.linear_index({{3, 3, 1}})));
    EXPECT_FALSE(body.contains(d.g.linear_index({{8, 8, 1}})));
    EXPECT_TRUE(d.body(2.0).voxels.empty());
}

// The summary region's figures leave out its low-density voxels (an air pocket inside the
// body), listing the others with their fractions; a whole-grid body is listed too.
TEST(BodyOutlineTest, WithoutLowDensityListsTheDenseVoxels)
{
    DensityGrid d(3);
    for (int k = 0; k < 3; ++k)
        for (int j = 1; j <= 6; ++j)
            for (int i = 1; i <= 6; ++i)
                d.at(i, j, k) = (i == 1 || i == 6 || j == 1 || j == 6) ? 1.0f : 0.001f;
    StructureMask const body = d.body(0.5); // the ring and its air, 36 x 3 voxels
    ASSERT_EQ(size_type(36 * 3), body.size());
    StructureMask const dense = without_low_density(body, make_span(d.rho), 0.05);
    EXPECT_EQ(size_type(20 * 3), dense.size());
    EXPECT_EQ(body.name, dense.name);
    EXPECT_FALSE(dense.contains(d.g.linear_index({{3, 3, 1}})));
    EXPECT_TRUE(dense.contains(d.g.linear_index({{1, 3, 1}})));
    StructureMask const whole = without_low_density(whole_grid(d.g), make_span(d.rho), 0.05);
    EXPECT_EQ(size_type(20 * 3), whole.size());
    EXPECT_EQ(std::vector<float>(20 * 3, 1.0f), whole.fraction);
}

TEST(BodyOutlineTest, RegionsJoinAcrossPlanesAndTiesGoToTheFirst)
{
    // Two blocks of plane 0 meet only through a bar in plane 1 (and a block of plane 2 meets
    // the bar): one region of 8 + 14 + 4 = 26 voxels, larger than a separate block of 25 in
    // plane 3, so it is the body; taken apart by planes it would not be. Then two separate
    // regions of 9 voxels: the body is the one whose first voxel comes first.
    DensityGrid d(4);
    for (int j = 1; j <= 2; ++j)
    {
        for (int i : {1, 2, 6, 7})
            d.at(i, j, 0) = 1.0f; // two blocks of 4
        for (int i = 1; i <= 7; ++i)
            d.at(i, j, 1) = 1.0f; // the bar: 14
    }
    for (int j = 1; j <= 2; ++j)
        for (int i = 3; i <= 4; ++i)
            d.at(i, j, 2) = 1.0f; // 4 more above the bar
    for (int j = 4; j <= 8; ++j)
        for (int i = 4; i <= 8; ++i)
            d.at(i, j, 3) = 1.0f; // a separate block of 25
    StructureMask const body = d.body(0.5);
    EXPECT_EQ(size_type(26), body.voxels.size());
    EXPECT_TRUE(body.contains(d.g.linear_index({{7, 2, 0}})));
    EXPECT_TRUE(body.contains(d.g.linear_index({{3, 1, 2}})));
    EXPECT_FALSE(body.contains(d.g.linear_index({{5, 5, 3}})));
    EXPECT_TRUE(std::is_sorted(body.voxels.begin(), body.voxels.end()));

    DensityGrid two(4);
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
        {
            two.at(i + 6, j + 6, 1) = 1.0f; // first in voxel order
            two.at(i + 1, j + 1, 2) = 1.0f; // after it
        }
    StructureMask const tie = two.body(0.5);
    ASSERT_EQ(size_type(9), tie.voxels.size());
    EXPECT_EQ(two.g.linear_index({{6, 6, 1}}), tie.voxels.front());
}

//! A DICOM CT series of 48 x 48 x 24 voxels of 2.5 mm centred on the origin, and
//! RT Structure Sets drawn on it.
class RtStructTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_rtstruct_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        series_.columns = 48;
        series_.rows = 48;
        series_.slices = 24;
        series_.pixel_spacing_mm = {{2.5, 2.5}};
        series_.slice_spacing_mm = 2.5;
        series_.first_position_mm = {{-58.75, -58.75, -28.75}};
        series_.hu.assign(std::size_t(48 * 48 * 24), 0.0);
        test::write_dicom_series((dir_ / "ct").string(), series_);
        phantom_ = std::make_unique<Phantom>(build_phantom(ct_input((dir_ / "ct").string()), {}));
    }
    void TearDown() override { fs::remove_all(dir_); }

    //! The Frame of Reference UID DicomTestSeries writes.
    std::string frame_uid() const { return series_.study_uid + ".9"; }

    //! Write an RT Structure Set of `structures` (scripts/make_rtstruct.py's format).
    std::string write_rtstruct(nlohmann::json const& structures,
                               std::string const& frame = {}) const
    {
        nlohmann::json spec{{"frame_of_reference_uid", frame.empty() ? frame_uid() : frame},
                            {"series_uid", series_.series_uid},
                            {"study_uid", series_.study_uid},
                            {"planes_mm", {{"first", -28.75}, {"spacing", 2.5}, {"count", 24}}},
                            {"structures", structures}};
        fs::path const spec_path = dir_ / "spec.json";
        std::ofstream(spec_path) << spec.dump();
        fs::path const out = dir_ / "rs.dcm";
        std::string const cmd = "/usr/bin/python3 " + std::string(MCDOSE_TEST_SOURCE_DIR) +
                                "/scripts/make_rtstruct.py " + spec_path.string() + " " +
                                out.string() + " > /dev/null";
        EXPECT_EQ(0, std::system(cmd.c_str())) << cmd;
        return out.string();
    }

    StructuresInput input(std::string const& path, std::vector<std::string> names,
                          int samples = default_sub_voxel_samples) const
    {
        StructuresInput in;
        in.study_file = "study.json";
        in.sub_voxel_samples = samples;
        in.rt_structs.push_back({path, std::move(names), "/structures/rt_struct"});
        return in;
    }

    std::string error_of(StructuresInput const& in) const
    {
        try
        {
            build_structures(in, *phantom_, true);
        }
        catch (InputError const& e)
        {
            return e.pointer() + " | " + e.problem();
        }
        return "no error";
    }

    fs::path dir_;
    test::DicomTestSeries series_;
    std::unique_ptr<Phantom> phantom_;
};

//! Volume of the contour stack make_rtstruct.py draws for a sphere [cm^3]: on
//! each plane of the test CT that cuts it, a 256-gon inscribed in the circle,
//! standing for one slice thickness (2.5 mm).
double contour_stack_cm3(std::array<double, 3> const& centre_mm, double r_mm)
{
    int const n = 256;
    double sum_mm3 = 0;
    for (int k = 0; k < 24; ++k)
    {
        double const dz = -28.75 + 2.5 * k - centre_mm[2];
        if (std::fabs(dz) < r_mm)
            sum_mm3 += 0.5 * n * (r_mm * r_mm - dz * dz) * std::sin(2 * constants::pi / n) * 2.5;
    }
    return sum_mm3 / 1000;
}

TEST_F(RtStructTest, CtCarriesItsFrameOfReference)
{
    EXPECT_EQ(frame_uid(), phantom_->frame_of_reference_uid);
    // A study may not give the DICOM series another one.
    PhantomInput in = ct_input((dir_ / "ct").string());
    in.ct.frame_of_reference_uid = "2.25.5";
    try
    {
        build_phantom(in, {});
        ADD_FAILURE() << "accepted";
    }
    catch (InputError const& e)
    {
        EXPECT_EQ("/phantom/frame_of_reference_uid", e.pointer());
        EXPECT_NE(e.problem().find(frame_uid() + ", not 2.25.5"), std::string::npos) << e.what();
    }
}

TEST_F(RtStructTest, AStructureSetOfAnotherFrameIsRefusedNamingBoth)
{
    nlohmann::json const ptv = nlohmann::json::array(
        {{{"name", "PTV"}, {"shape", "sphere"}, {"centre_mm", {0, 0, 0}}, {"radius_mm", 10}}});
    std::string const e = error_of(input(write_rtstruct(ptv, "2.25.5"), {"PTV"}));
    EXPECT_NE(std::string::npos, e.find("/structures/rt_struct")) << e;
    EXPECT_NE(std::string::npos,
              e.find("drawn on Frame of Reference 2.25.5, the CT's is " + frame_uid()))
        << e;
}

TEST(ExampleStructuresTest, TheDicomCtExampleAndItsStructureSetShareAFrame)
{
    std::string const examples = std::string(MCDOSE_TEST_SOURCE_DIR) + "/examples/";
    ScalarImage const ct = read_scalar_image(examples + "synthetic_ct_dicom");
    RtStructureSet const rs = read_rt_structure_set(examples + "synthetic_ct_rtstruct.dcm");
    ASSERT_FALSE(ct.dicom.frame_of_reference_uid.empty());
    EXPECT_EQ(ct.dicom.frame_of_reference_uid, rs.frame_of_reference_uid);
    for (RtRoi const& roi : rs.rois)
        EXPECT_EQ(ct.dicom.frame_of_reference_uid, roi.frame_uid) << roi.name;
    EXPECT_EQ(std::vector<std::string>{ct.dicom.series_instance_uid}, rs.referenced_series_uids);
    EXPECT_TRUE(ct.notes.empty());
}

TEST_F(RtStructTest, SphereAndBoxRasteriseToTheirVolume)
{
    double const r_mm = 20;
    std::string const rs = write_rtstruct({{{"name", "PTV"},
                                            {"shape", "sphere"},
                                            {"centre_mm", {1.3, -2.1, 0.0}},
                                            {"radius_mm", r_mm}},
                                           {{"name", "Box"},
                                            {"shape", "box"},
                                            {"lower_mm", {-20.3, -10.1, -16.25}},
                                            {"upper_mm", {14.9, 12.6, 16.25}}}});
    RtStructureSet const file = read_rt_structure_set(rs);
    ASSERT_EQ(2u, file.rois.size());
    EXPECT_EQ(frame_uid(), file.frame_of_reference_uid);
    ASSERT_EQ(1u, file.referenced_series_uids.size());
    EXPECT_EQ(series_.series_uid, file.referenced_series_uids[0]);

    StructureSet const set = build_structures(input(rs, {"PTV", "Box"}), *phantom_, true);
    ASSERT_EQ(2u, set.structures.size());
    double const voxel_cm3 = phantom_->grid.geometry().voxel_volume_cm3();
    double const sphere_cm3 = 4.0 / 3.0 * constants::pi * std::pow(r_mm / 10, 3);
    double const sphere = set.structures[0].volume_cm3(voxel_cm3);
    // Stated in docs/study-reference.md: within 1 % for spheres of 4 voxels radius or
    // more (contours on every slice, 4 samples per axis).
    EXPECT_NEAR(sphere, sphere_cm3, 0.01 * sphere_cm3) << sphere << " vs " << sphere_cm3;
    double const stack_cm3 = contour_stack_cm3({{1.3, -2.1, 0.0}}, r_mm);
    EXPECT_NEAR(sphere, stack_cm3, 0.01 * stack_cm3) << sphere << " vs " << stack_cm3;
    // A box's contours on 14 slices of 2.5 mm stand for 14 x 2.5 mm along z, on
    // voxel faces; its x and y faces lie between sample points. The stated bound:
    // the sample spacing (0.0625 cm) times the areas the x and y faces project.
    double const box_cm3 = 3.52 * 2.27 * 3.5;
    double const box = set.structures[1].volume_cm3(voxel_cm3);
    double const bound = 0.0625 * (2.27 * 3.5 + 3.52 * 3.5);
    EXPECT_NEAR(box, box_cm3, bound) << box << " vs " << box_cm3;
    std::cout << "sphere " << sphere << " cm3 (exact " << sphere_cm3 << ", error "
              << 100 * (sphere / sphere_cm3 - 1) << " %; contour stack " << stack_cm3 << ", error "
              << 100 * (sphere / stack_cm3 - 1) << " %), box " << box << " cm3 (exact " << box_cm3
              << ", error " << 100 * (box / box_cm3 - 1) << " %)\n";
}

TEST_F(RtStructTest, SmallSpheresWithinTheStatedError)
{
    // 10 mm radius = 4 voxels, the smaller case of docs/study-reference.md, at
    // several positions against the grid: the rasterised volume against the
    // contour stack's (what the partial-volume rule adds) and against the
    // sphere's (with the slice thickness's share); the voxel-centre rule (1
    // sample) for comparison.
    double const sphere = 4.0 / 3.0 * constants::pi;
    double worst_stack[2] = {0, 0}, worst_sphere = 0;
    for (auto const& centre :
         {std::array<double, 3>{{0.7, 0.4, 0.9}}, std::array<double, 3>{{0.0, 0.0, 0.0}},
          std::array<double, 3>{{1.25, -1.25, 1.25}}, std::array<double, 3>{{-0.3, 2.1, -1.7}}})
    {
        std::string const rs = write_rtstruct(
            {{{"name", "GTV"}, {"shape", "sphere"}, {"centre_mm", centre}, {"radius_mm", 10.0}}});
        double const stack = contour_stack_cm3(centre, 10.0);
        for (int n : {1, 4})
        {
            StructureSet const set = build_structures(input(rs, {"GTV"}, n), *phantom_, true);
            double const v =
                set.structures[0].volume_cm3(phantom_->grid.geometry().voxel_volume_cm3());
            double& w = worst_stack[n == 4];
            w = std::max(w, std::fabs(v / stack - 1));
            if (n == 4)
                worst_sphere = std::max(worst_sphere, std::fabs(v / sphere - 1));
        }
    }
    std::cout << "sphere of 10 mm radius on 2.5 mm voxels, largest volume error against the "
                 "contour stack: "
              << 100 * worst_stack[1] << " % with 4 samples per axis, " << 100 * worst_stack[0]
              << " % with the voxel-centre rule; against the sphere: " << 100 * worst_sphere
              << " %\n";
    EXPECT_LT(worst_stack[1], 0.01);
    EXPECT_LT(worst_sphere, 0.025);
}

TEST_F(RtStructTest, BodyFromAStructure)
{
    std::string const rs = write_rtstruct({{{"name", "External"},
                                            {"shape", "elliptic_cylinder"},
                                            {"centre_mm", {0, 0}},
                                            {"semi_axes_mm", {40, 30}},
                                            {"z_range_mm", {-28.75, 28.75}}}});
    StructuresInput in = input(rs, {"External"});
    in.body = "External";
    StructureSet const set = build_structures(in, *phantom_, true);
    EXPECT_EQ("body", set.body.name);
    EXPECT_NEAR(constants::pi * 4 * 3 * 6, set.body.volume_cm3(0.25 * 0.25 * 0.25), 0.3);
}

TEST_F(RtStructTest, BadStructureInputIsRefusedNamingTheStructure)
{
    std::string rs = write_rtstruct(
        {{{"name", "PTV"}, {"shape", "sphere"}, {"centre_mm", {0, 0, 0}}, {"radius_mm", 10}}},
        "2.25.999.9");
    std::string err = error_of(input(rs, {"PTV"}));
    EXPECT_NE(err.find("/structures/rt_struct/names/0"), std::string::npos) << err;
    EXPECT_NE(err.find("structure 'PTV'"), std::string::npos) << err;
    EXPECT_NE(err.find("2.25.999.9"), std::string::npos) << err;
    EXPECT_NE(err.find("use the structure set exported with this CT"), std::string::npos) << err;

    rs = write_rtstruct(
        {{{"name", "PTV"}, {"shape", "sphere"}, {"centre_mm", {0, 0, 0}}, {"radius_mm", 10}},
         {{"name", "Empty"}},
         {{"name", "Far"}, {"contours_mm", {{{500, 0, 1.25}, {510, 0, 1.25}, {510, 10, 1.25}}}}}});
    err = error_of(input(rs, {"PTV", "Tumour"}));
    EXPECT_NE(err.find("/names/1"), std::string::npos) << err;
    EXPECT_NE(err.find("structure 'Tumour' is not in"), std::string::npos) << err;
    EXPECT_NE(err.find("'PTV', 'Empty', 'Far'"), std::string::npos) << err;

    err = error_of(input(rs, {"Empty"}));
    EXPECT_NE(err.find("structure 'Empty' has no closed planar contour"), std::string::npos) << err;
    EXPECT_NE(err.find("remove it from the study"), std::string::npos) << err;

    err = error_of(input(rs, {"Far"}));
    EXPECT_NE(err.find("structure 'Far' has a contour point (500, 0, 1.25) mm outside the dose "
                       "grid"),
              std::string::npos)
        << err;

    StructuresInput missing = input((dir_ / "nothing.dcm").string(), {"PTV"});
    err = error_of(missing);
    EXPECT_NE(err.find("/structures/rt_struct/file"), std::string::npos) << err;
    EXPECT_NE(err.find("cannot open the RT Structure Set"), std::string::npos) << err;
}

TEST(LabelStructureTest, LabelImageOnAnotherGrid)
{
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_labels_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    GridGeometry fine;
    fine.dims = {{20, 20, 20}};
    fine.spacing_cm = {{0.25, 0.25, 0.25}};
    fine.origin_cm = {{0.125, 0.125, 0.125}}; // fills [0, 5) cm
    std::vector<std::uint16_t> labels(fine.num_voxels(), 0);
    for (size_type v = 0; v < labels.size(); ++v)
    {
        Int3 const ijk = fine.ijk(v);
        if (ijk[0] >= 4 && ijk[0] < 12 && ijk[1] >= 4 && ijk[1] < 16 && ijk[2] < 10)
            labels[v] = 3; // 2 x 3 x 2.5 cm
    }
    std::string const path = (dir / "labels.nrrd").string();
    write_image(path, fine, make_span(labels));
    ScalarImage const image = read_scalar_image(path);

    GridGeometry coarse;
    coarse.dims = {{5, 5, 5}};
    coarse.spacing_cm = {{1, 1, 1}};
    coarse.origin_cm = {{0.5, 0.5, 0.5}};
    StructureMask const m = label_structure(image, 3, "Cord", coarse, 4);
    EXPECT_NEAR(15.0, m.volume_cm3(1.0), 1e-9); // the sub-samples resolve the 0.25 cm edges
    EXPECT_THROW(label_structure(image, 7, "Other", coarse, 4), RuntimeError);
    fs::remove_all(dir);
}
} // namespace
} // namespace mcdose

namespace mcdose::test
{
//! A circle of radius 4 cm drawn with `points` points on the plane z = 0 (mm).
RtRoi circle_roi(int points)
{
    RtRoi roi;
    roi.name = "ring";
    RtContour c;
    for (int p = 0; p < points; ++p)
    {
        double const a = 2 * constants::pi * p / points;
        c.points_mm.push_back({40 * std::cos(a), 40 * std::sin(a), 0});
    }
    roi.contours.push_back(c);
    return roi;
}

// A stop request (a signal) ends a long rasterisation between rows of voxels: the poll is
// asked before each row, and the first "stop" ends it (no timing involved).
TEST(StructureStopTest, RasterisingAContourEndsOnAStopRequest)
{
    GridGeometry g;
    g.dims = {{20, 20, 1}};
    g.spacing_cm = {{0.5, 0.5, 0.5}};
    g.origin_cm = {{-4.75, -4.75, 0}};
    RtRoi const roi = circle_roi(20000);
    int polls = 0;
    {
        ScopedStopPoll const poll([&polls] { return ++polls == 3; });
        EXPECT_THROW(rasterise_contours(roi, g, 2), StopRequested);
    }
    EXPECT_EQ(3, polls); // stopped at the third row, not at the end
    // Without a request (the scope ended) the same structure rasterises whole.
    StructureMask const m = rasterise_contours(roi, g, 2);
    EXPECT_NEAR(constants::pi * 16, m.volume_cm3(g.voxel_volume_cm3()) / 0.5, 2.0);
}
} // namespace mcdose::test
