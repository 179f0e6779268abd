//! DICOM CT series through the phantom builder: a synthetic series is written
//! at test time by ITK's GDCMImageIO (int16 or uint16 stored values with a
//! Rescale Slope/Intercept that is not 1/0) and read back as a CT phantom:
//! values are rescaled to HU, spacing and origin converted from mm to cm, the
//! orientation kept, slices ordered by position; several series in one folder
//! need `dicom_series_uid`.
#include <filesystem>
#include <unistd.h>

#include <gtest/gtest.h>

#include "DicomTestSeries.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "phantoms/PhantomBuilder.hh"

namespace fs = std::filesystem;

namespace mcdose
{
using test::DicomTestSeries;

class DicomSeriesTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_dicom_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    //! A calibration whose result is easy to predict: density = (HU + 1024) / 1000
    //! g/cm^3 over [-1024, 3976] HU, and four bins.
    static HuCalibration linear_calibration()
    {
        HuCalibration cal;
        cal.density_curve = {{-1024, 0.0}, {3976, 5.0}};
        cal.material_bins = {
            {-1024, "air"}, {-950, "lung_icrp"}, {-100, "water"}, {1000, "bone_cortical_icrp"}};
        return cal;
    }
    static double expected_density(double hu) { return (hu + 1024) / 1000; }

    PhantomInput ct_input(fs::path const& image, std::string const& uid = {}) const
    {
        PhantomInput in;
        in.study_file = "study.json";
        in.pointer = "/phantom";
        in.kind = PhantomKind::ct_image;
        in.ct.image_path = image.string();
        in.ct.dicom_series_uid = uid;
        in.ct.calibration = linear_calibration();
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
            return e.pointer() + " | " + e.problem();
        }
        return "no error";
    }

    //! An axial series (8 x 6 x 4) stored as int16 with slope 0.5 and intercept
    //! -1024, so half-integer HU occur; written in shuffled order.
    static DicomTestSeries axial_series()
    {
        DicomTestSeries s; // the defaults: 8 x 6 x 4, int16, slope 0.5, intercept -1024
        s.write_order = {2, 0, 3, 1};
        s.hu.resize(std::size_t(8) * 6 * 4);
        for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 6; ++j)
                for (int i = 0; i < 8; ++i)
                    s.hu[i + 8 * (j + 6 * k)] = -200 + 100 * k + 10 * j + i + 0.5 * (i % 2);
        s.hu[0] = -1000;                  // (0,0,0): air
        s.hu[1] = -700;                   // (1,0,0): lung
        s.hu[7 + 8 * (5 + 6 * 3)] = 1600; // (7,5,3): bone
        return s;
    }

    fs::path dir_;
};

TEST_F(DicomSeriesTest, AxialInt16SeriesIsRescaledSortedAndKeepsGeometry)
{
    DicomTestSeries const s = axial_series();
    auto const files = test::write_dicom_series((dir_ / "ct").string(), s);
    ASSERT_EQ(4u, files.size());

    // What the files store (read back by GDCM, not by mcdose): int16 raw values
    // with the rescale, so the reader must apply it.
    test::StoredDicomSlice const stored = test::inspect_dicom_file(files[0]);
    EXPECT_EQ("short", stored.stored_component);
    EXPECT_EQ(0.5, stored.rescale_slope);
    EXPECT_EQ(-1024, stored.rescale_intercept);
    EXPECT_EQ(s.series_uid, stored.series_uid);
    EXPECT_EQ("CT", stored.modality);

    Phantom const p = build_phantom(ct_input(dir_ / "ct"), {});
    GridGeometry const& g = p.grid.geometry();
    EXPECT_EQ((Int3{{8, 6, 4}}), g.dims);
    // mm on disk -> cm.
    EXPECT_NEAR(0.15, g.spacing_cm[0], 1e-12);
    EXPECT_NEAR(0.25, g.spacing_cm[1], 1e-12);
    EXPECT_NEAR(0.3, g.spacing_cm[2], 1e-9); // from the distance between slice positions
    // Origin: Image Position (Patient) of the lowest slice (slice 0), whatever
    // the file names and instance numbers say.
    EXPECT_NEAR(-12.05, g.origin_cm[0], 1e-12);
    EXPECT_NEAR(8.025, g.origin_cm[1], 1e-12);
    EXPECT_NEAR(-3.3, g.origin_cm[2], 1e-12);
    for (int e = 0; e < 9; ++e)
        EXPECT_EQ(e % 4 == 0 ? 1.0 : 0.0, g.direction[e]) << "element " << e;

    // Every voxel: the HU (after rescale) through the calibration, in slice order.
    auto const& names = p.material_names;
    for (size_type v = 0; v < g.num_voxels(); ++v)
    {
        ASSERT_NEAR(expected_density(s.hu[v]), p.grid.density_g_cm3()[v], 2e-6)
            << "voxel " << v << " HU " << s.hu[v];
    }
    auto name = [&](int i, int j, int k) { return names[p.grid.material()[i + 8 * (j + 6 * k)]]; };
    EXPECT_EQ("air", name(0, 0, 0));
    EXPECT_EQ("lung_icrp", name(1, 0, 0));
    EXPECT_EQ("bone_cortical_icrp", name(7, 5, 3));
    EXPECT_EQ("lung_icrp", name(2, 0, 0)); // HU -198
    EXPECT_EQ("water", name(2, 0, 1));     // HU -98
    // A half-integer HU survives (it needs the slope 0.5): (3,1,2) has HU 13.5.
    EXPECT_FLOAT_EQ(float(expected_density(13.5)), p.grid.density_g_cm3()[3 + 8 * (1 + 6 * 2)]);
}

TEST_F(DicomSeriesTest, CoronalUint16SeriesKeepsOrientation)
{
    DicomTestSeries s;
    s.columns = 5;
    s.rows = 3;
    s.slices = 3;
    s.pixel_spacing_mm = {{2.0, 1.25}};
    s.slice_spacing_mm = 4.0;
    s.row_direction = {{1, 0, 0}};
    s.column_direction = {{0, 0, -1}}; // coronal: rows run feet-wards, slices along +y
    s.first_position_mm = {{10, -50, 200}};
    s.rescale_slope = 2;
    s.rescale_intercept = -2048;
    s.unsigned_pixels = true;
    s.write_order = {1, 2, 0};
    s.hu.resize(std::size_t(5) * 3 * 3);
    for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 5; ++i)
                s.hu[i + 5 * (j + 3 * k)] = -1000 + 200 * k + 20 * j + 2 * i;
    auto const files = test::write_dicom_series((dir_ / "coronal").string(), s);
    test::StoredDicomSlice const stored = test::inspect_dicom_file(files[0]);
    EXPECT_EQ("unsigned_short", stored.stored_component);
    EXPECT_EQ(2, stored.rescale_slope);
    EXPECT_EQ(-2048, stored.rescale_intercept);

    Phantom const p = build_phantom(ct_input(dir_ / "coronal"), {});
    GridGeometry const& g = p.grid.geometry();
    EXPECT_EQ((Int3{{5, 3, 3}}), g.dims);
    EXPECT_NEAR(0.2, g.spacing_cm[0], 1e-12);
    EXPECT_NEAR(0.125, g.spacing_cm[1], 1e-12);
    EXPECT_NEAR(0.4, g.spacing_cm[2], 1e-9);
    // Columns of the direction matrix: row direction, column direction, normal.
    double const expected_direction[9] = {1, 0, 0, 0, 0, 1, 0, -1, 0};
    for (int e = 0; e < 9; ++e)
        EXPECT_NEAR(expected_direction[e], g.direction[e], 1e-12) << "element " << e;
    // Voxel centres lie where DICOM puts the pixels: IPP_k + i dx row + j dy col.
    for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 5; ++i)
            {
                auto const ipp = s.position_mm(k);
                Real3 const c = g.voxel_centre_cm(Int3{{i, j, k}});
                double const x_mm[3] = {ipp[0] + 2.0 * i, ipp[1], ipp[2] - 1.25 * j};
                for (int a = 0; a < 3; ++a)
                    EXPECT_NEAR(x_mm[a] / 10, c[a], 1e-9) << i << " " << j << " " << k;
                size_type const v = g.linear_index(Int3{{i, j, k}});
                EXPECT_NEAR(expected_density(s.hu[v]), p.grid.density_g_cm3()[v], 2e-6);
            }
}

//! read_scalar_image's values and grid are bit for bit those of ITK's series reader.
void expect_itk_series(std::string const& directory)
{
    test::ItkSeries const itk = test::read_series_with_itk(directory);
    ScalarImage const img = read_scalar_image(directory);
    for (int a = 0; a < 3; ++a)
    {
        EXPECT_EQ(itk.size[a], std::size_t(img.geometry.dims[a])) << a;
        EXPECT_EQ(itk.spacing_mm[a] / 10, img.geometry.spacing_cm[a]) << a;
        EXPECT_EQ(itk.origin_mm[a] / 10, img.geometry.origin_cm[a]) << a;
    }
    for (int e = 0; e < 9; ++e)
        EXPECT_EQ(itk.direction[e], img.geometry.direction[e]) << "element " << e;
    ASSERT_EQ(itk.values.size(), img.values.size());
    for (size_type v = 0; v < img.values.size(); ++v)
        ASSERT_EQ(itk.values[v], img.values[v]) << directory << " voxel " << v;
}

TEST_F(DicomSeriesTest, SlicesReadOnAllCoresAreItksSeries)
{
    // 24 slices written in a shuffled order (int16, slope 0.5: half-integer HU), so that
    // several threads read them.
    DicomTestSeries s = axial_series();
    s.slices = 24;
    s.write_order.clear();
    for (int k = 0; k < s.slices; ++k)
        s.write_order.push_back((7 * k + 3) % s.slices);
    s.hu.resize(std::size_t(8) * 6 * 24);
    for (std::size_t v = 0; v < s.hu.size(); ++v)
        s.hu[v] = -1024 + 0.5 * double((v * 37) % 6000);
    test::write_dicom_series((dir_ / "axial").string(), s);
    expect_itk_series((dir_ / "axial").string());

    // uint16 with slope 2 along a coronal normal.
    DicomTestSeries c;
    c.slices = 5;
    c.row_direction = {{1, 0, 0}};
    c.column_direction = {{0, 0, -1}};
    c.rescale_slope = 2;
    c.rescale_intercept = -2048;
    c.unsigned_pixels = true;
    c.hu.resize(std::size_t(8) * 6 * 5);
    for (std::size_t v = 0; v < c.hu.size(); ++v)
        c.hu[v] = -2048 + 2.0 * double((v * 53) % 3000);
    test::write_dicom_series((dir_ / "coronal").string(), c);
    expect_itk_series((dir_ / "coronal").string());
}

TEST_F(DicomSeriesTest, ASliceCutShortIsNamed)
{
    // GDCM alone reads a slice cut short inside its pixels without an error, the missing
    // pixels as zeros.
    for (bool const compressed : {false, true})
    {
        DicomTestSeries s = axial_series();
        s.compressed = compressed;
        std::string const name = compressed ? "jpeg" : "raw";
        auto const files = test::write_dicom_series((dir_ / name).string(), s);
        test::StoredDicomSlice const stored = test::inspect_dicom_file(files[0]);
        EXPECT_EQ("short", stored.stored_component);
        // JPEG (PS3.5 A.4.1: 1.2.840.10008.1.2.4.x, encapsulated) or explicit VR little endian.
        EXPECT_EQ(compressed, stored.transfer_syntax.rfind("1.2.840.10008.1.2.4.", 0) == 0)
            << stored.transfer_syntax;
        // Intact, the series reads.
        EXPECT_EQ((Int3{{8, 6, 4}}), build_phantom(ct_input(dir_ / name), {}).grid.geometry().dims);
        // The third file written (slice 3) loses its last 5 bytes.
        fs::resize_file(files[2], fs::file_size(files[2]) - 5);
        std::string const e = error_of(ct_input(dir_ / name));
        EXPECT_NE(std::string::npos, e.find("/phantom/image |")) << e;
        EXPECT_NE(std::string::npos, e.find(files[2])) << e;
        EXPECT_NE(std::string::npos, e.find("cut short")) << e;
        if (!compressed)
        {
            EXPECT_NE(std::string::npos, e.find("holds 91 of the 96 bytes")) << e;
        }
        // Cut at byte 300, among the elements before the pixels (GDCM alone stops the
        // program where such a cut falls inside an element's header).
        fs::resize_file(files[2], 300);
        std::string const h = error_of(ct_input(dir_ / name));
        EXPECT_NE(std::string::npos, h.find(files[2] + "' is cut short")) << h;
    }
}

TEST_F(DicomSeriesTest, SeveralSeriesNeedTheUidAndTheUidPicksOne)
{
    DicomTestSeries a = axial_series();
    a.series_uid = "2.25.301001.11";
    a.write_order.clear();
    DicomTestSeries b;
    b.series_uid = "2.25.301001.12";
    b.series_number = 2;
    b.columns = 4;
    b.rows = 4;
    b.slices = 2;
    b.hu.assign(4 * 4 * 2, 500);
    b.first_position_mm = {{0, 0, 10}};
    test::write_dicom_series((dir_ / "two").string(), a, "a");
    test::write_dicom_series((dir_ / "two").string(), b, "b");

    // No uid: the error names the field and lists both series.
    std::string const e = error_of(ct_input(dir_ / "two"));
    EXPECT_NE(std::string::npos, e.find("/phantom/dicom_series_uid |")) << e;
    EXPECT_NE(std::string::npos, e.find("holds 2 DICOM series")) << e;
    EXPECT_NE(std::string::npos, e.find("2.25.301001.11 (4 files)")) << e;
    EXPECT_NE(std::string::npos, e.find("2.25.301001.12 (2 files)")) << e;
    EXPECT_NE(std::string::npos, e.find("dicom_series_uid")) << e;

    // The uid picks a series.
    Phantom const pb = build_phantom(ct_input(dir_ / "two", b.series_uid), {});
    EXPECT_EQ((Int3{{4, 4, 2}}), pb.grid.geometry().dims);
    for (float rho : pb.grid.density_g_cm3())
        ASSERT_NEAR(expected_density(500), rho, 2e-6);
    Phantom const pa = build_phantom(ct_input(dir_ / "two", a.series_uid), {});
    EXPECT_EQ((Int3{{8, 6, 4}}), pa.grid.geometry().dims);
    EXPECT_NEAR(expected_density(-1000), pa.grid.density_g_cm3()[0], 2e-6);

    // An unknown uid: named, with the ones that exist.
    std::string const u = error_of(ct_input(dir_ / "two", "2.25.999"));
    EXPECT_NE(std::string::npos, u.find("/phantom/dicom_series_uid |")) << u;
    EXPECT_NE(std::string::npos, u.find("'2.25.999'")) << u;
    EXPECT_NE(std::string::npos, u.find("2.25.301001.11")) << u;
    EXPECT_NE(std::string::npos, u.find("2.25.301001.12")) << u;
}

TEST_F(DicomSeriesTest, UidWithAnImageFileIsAnError)
{
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{2, 2, 2}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
    std::vector<float> hu(8, 0.0f);
    write_image((dir_ / "ct.mha").string(), g, make_span(std::as_const(hu)));
    std::string const e = error_of(ct_input(dir_ / "ct.mha", "2.25.1"));
    EXPECT_NE(std::string::npos, e.find("/phantom/dicom_series_uid |")) << e;
    EXPECT_NE(std::string::npos, e.find("only")) << e;
}
TEST_F(DicomSeriesTest, SlicesMustFormARegularGrid)
{
    // A missing slice: positions 0, 3, 6, 12 mm. ITK alone would spread the
    // four slices evenly over 12 mm and misplace the last two.
    DicomTestSeries s = axial_series();
    s.positions_mm = {{{0, 0, 0}}, {{0, 0, 3}}, {{0, 0, 6}}, {{0, 0, 12}}};
    test::write_dicom_series((dir_ / "gap").string(), s);
    std::string const gap = error_of(ct_input(dir_ / "gap"));
    EXPECT_NE(std::string::npos, gap.find("/phantom/image |")) << gap;
    EXPECT_NE(std::string::npos, gap.find("not evenly spaced")) << gap;
    EXPECT_NE(std::string::npos, gap.find("missing or duplicated slice")) << gap;

    // Slices drifting sideways (a gantry tilt): the grid would be sheared.
    s.positions_mm = {{{0, 0, 0}}, {{0, 1, 3}}, {{0, 2, 6}}, {{0, 3, 9}}};
    test::write_dicom_series((dir_ / "tilt").string(), s);
    std::string const tilt = error_of(ct_input(dir_ / "tilt"));
    EXPECT_NE(std::string::npos, tilt.find("/phantom/image |")) << tilt;
    EXPECT_NE(std::string::npos, tilt.find("not stacked along the normal")) << tilt;

    // Positions rounded to 0.01 mm (as some scanners write them) are accepted.
    s.positions_mm = {{{0, 0, 0}}, {{0, 0, 3.01}}, {{0, 0, 5.99}}, {{0, 0, 9}}};
    test::write_dicom_series((dir_ / "rounded").string(), s);
    Phantom const p = build_phantom(ct_input(dir_ / "rounded"), {});
    EXPECT_NEAR(0.3, p.grid.geometry().spacing_cm[2], 1e-9);
}
} // namespace mcdose
