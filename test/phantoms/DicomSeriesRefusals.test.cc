//! A DICOM CT folder is read whole or refused: every entry is read as a slice or named with
//! why it is not; empty, cut and inconsistent slices, other modalities and unphysical values
//! are refused naming the file and the element. Series are written at test time (ITK's
//! GDCMImageIO) and edited with GDCM (test/phantoms/DicomTestSeries.hh).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "DicomTestSeries.hh"
#include "io/ImageIO.hh"
#include "phantoms/PhantomBuilder.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
bool contains(std::string const& s, std::string const& part)
{
    return s.find(part) != std::string::npos;
}
} // namespace

class DicomFolderTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_dicomfolder_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        files_ = test::write_dicom_series(dir_.string(), series());
    }
    void TearDown() override { fs::remove_all(dir_); }

    //! 8 x 6 x 4 slices, int16 with slope 0.5, intercept -1024; files slice0..3 in order.
    static test::DicomTestSeries series()
    {
        test::DicomTestSeries s;
        s.hu.resize(std::size_t(8) * 6 * 4);
        for (std::size_t v = 0; v < s.hu.size(); ++v)
            s.hu[v] = -1000 + 0.5 * double(v % 400);
        return s;
    }

    //! The error reading the folder ("no error" if it reads).
    std::string error() const
    {
        try
        {
            read_scalar_image(dir_.string());
        }
        catch (std::exception const& e)
        {
            return e.what();
        }
        return "no error";
    }

    //! Set the element on every slice.
    void edit_all(std::uint16_t group, std::uint16_t element, char const* vr,
                  std::string const& value) const
    {
        for (auto const& f : files_)
            test::edit_dicom_element(f, group, element, vr, value);
    }

    fs::path dir_;
    std::vector<std::string> files_;
};

TEST_F(DicomFolderTest, EveryEntryIsReadOrNamedWithWhy)
{
    ScalarImage const intact = read_scalar_image(dir_.string());
    EXPECT_TRUE(intact.notes.empty());
    // Listed before the slices: a FIFO (GDCM's directory scan stopped there), a directory, a
    // text file, a DICOM file that is not an image, a file of another series.
    ASSERT_EQ(0, ::mkfifo((dir_ / "a_fifo").c_str(), 0600));
    fs::create_directories(dir_ / "a_folder");
    std::ofstream(dir_ / "a_readme.txt") << "exported by a planning system\n";
    fs::copy_file(files_[0], dir_ / "a_rtstruct.dcm");
    test::edit_dicom_element((dir_ / "a_rtstruct.dcm").string(), 0x0008, 0x0060, "CS",
                             std::string("RTSTRUCT"));
    for (std::uint16_t e : {0x0010, 0x0011})
        test::edit_dicom_element((dir_ / "a_rtstruct.dcm").string(), 0x0028, e, "US", {});
    test::edit_dicom_element((dir_ / "a_rtstruct.dcm").string(), 0x7FE0, 0x0010, "OW", {});
    test::DicomTestSeries other = series();
    other.series_uid = "2.25.301001.2";
    test::write_dicom_series(dir_.string(), other, "other");

    std::string const e = error();
    EXPECT_TRUE(contains(e, "holds 2 DICOM series")) << e;
    ScalarImage const image = read_scalar_image(dir_.string(), "2.25.301001.1");
    EXPECT_EQ(intact.values, image.values);
    EXPECT_EQ(intact.geometry.dims, image.geometry.dims);
    std::string notes;
    for (auto const& n : image.notes)
        notes += n + "\n";
    EXPECT_TRUE(contains(notes, "a_fifo' is ignored: a FIFO (named pipe), not a regular file"))
        << notes;
    EXPECT_TRUE(contains(notes, "a_folder' is ignored: a directory")) << notes;
    EXPECT_TRUE(contains(notes, "a_readme.txt' is ignored: not a DICOM file")) << notes;
    EXPECT_TRUE(contains(notes, "a_rtstruct.dcm' is ignored: not an image (Modality 'RTSTRUCT')"))
        << notes;
    EXPECT_TRUE(contains(notes, "' holds 4 files of another series, 2.25.301001.2 ('")) << notes;
    EXPECT_TRUE(contains(notes, "other0.dcm', ...), not read")) << notes;
    EXPECT_EQ(5u, image.notes.size()) << notes;

    // The phantom builder passes the notes on as warnings naming the field.
    PhantomInput in;
    in.study_file = "study.json";
    in.pointer = "/phantom";
    in.kind = PhantomKind::ct_image;
    in.ct.image_path = dir_.string();
    in.ct.dicom_series_uid = "2.25.301001.1";
    in.ct.calibration.density_curve = {{-1024, 0.0}, {3976, 5.0}};
    in.ct.calibration.material_bins = {{-1024, "air"}, {-100, "water"}};
    std::vector<std::string> warnings;
    build_phantom(in, {}, &warnings);
    ASSERT_EQ(5u, warnings.size());
    EXPECT_TRUE(contains(warnings[0], "study.json: /phantom/image: '")) << warnings[0];
}

TEST_F(DicomFolderTest, ALinkToNothingIsRefused)
{
    fs::create_symlink(dir_ / "gone.dcm", dir_ / "slice4.dcm");
    std::string const e = error();
    EXPECT_TRUE(contains(e, "slice4.dcm' is a link to")) << e;
    EXPECT_TRUE(contains(e, "gone.dcm', which does not exist")) << e;
}

TEST_F(DicomFolderTest, EmptyOrTruncatedEndSlicesAreRefused)
{
    std::ofstream(dir_ / "slice4.dcm").flush();
    std::string const empty = error();
    EXPECT_TRUE(contains(empty, "slice4.dcm' is empty (0 bytes)")) << empty;
    fs::remove(dir_ / "slice4.dcm");

    // The last slice cut just before its Pixel Data: a whole file as far as its elements go.
    std::string bytes;
    {
        std::ifstream in(files_[3], std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    auto const pixels = bytes.rfind(std::string("\xE0\x7F\x10\x00", 4));
    ASSERT_NE(std::string::npos, pixels);
    fs::resize_file(files_[3], pixels);
    std::string const cut = error();
    EXPECT_TRUE(contains(cut, files_[3] + "' has no Pixel Data (7FE0,0010)")) << cut;

    // Cut inside "DICM", and inside its preamble.
    for (std::uintmax_t size : {130, 100})
    {
        fs::resize_file(files_[3], size);
        std::string const preamble = error();
        EXPECT_TRUE(contains(preamble, files_[3] + "' is cut short inside its preamble"))
            << size << ": " << preamble;
    }
}

TEST_F(DicomFolderTest, PixelDataOfAnotherLengthIsRefused)
{
    // Rows 5 where the pixels hold 6 rows: read as given, the rows shift and the CT's mass
    // is wrong.
    test::edit_dicom_element(files_[2], 0x0028, 0x0010, "US", test::us_bytes(5));
    std::string const rows = error();
    EXPECT_TRUE(contains(rows, files_[2] + "' has Pixel Data of 96 bytes, but Rows (5) x "
                                           "Columns (8) x Number of Frames (1)"))
        << rows;
    EXPECT_TRUE(contains(rows, "is 80 bytes")) << rows;

    // Number of Frames lower than the data: 2 frames of 3 rows described as one.
    test::edit_dicom_element(files_[2], 0x0028, 0x0010, "US", test::us_bytes(3));
    test::edit_dicom_element(files_[2], 0x0028, 0x0008, "IS", std::string("1"));
    std::string const frames = error();
    EXPECT_TRUE(contains(frames, "Number of Frames (1)")) << frames;
    EXPECT_TRUE(contains(frames, "is 48 bytes")) << frames;
}

TEST_F(DicomFolderTest, OtherModalitiesAreRefused)
{
    edit_all(0x0008, 0x0060, "CS", "MR");
    std::string const e = error();
    EXPECT_TRUE(contains(e, "has Modality (0008,0060) 'MR', not CT")) << e;
    EXPECT_TRUE(contains(e, "synthetic CT")) << e;
}

TEST_F(DicomFolderTest, PixelSpacingMustBePositive)
{
    for (char const* spacing : {"0\\1.5", "-2.5\\1.5", "2.5", "2.5\\abc"})
    {
        edit_all(0x0028, 0x0030, "DS", spacing);
        std::string const e = error();
        EXPECT_TRUE(contains(e, files_[0] + "' has Pixel Spacing (0028,0030)")) << e;
    }
}

TEST_F(DicomFolderTest, ASliceThatDisagreesIsRefusedNamingBothFiles)
{
    struct Edit
    {
        std::uint16_t group, element;
        char const* vr;
        std::string value;
        char const* item;
    };
    for (Edit const& edit : {Edit{0x0028, 0x0030, "DS", "2.5\\1.6", "Pixel Spacing"},
                             Edit{0x0020, 0x0037, "DS", "0\\1\\0\\1\\0\\0", "Image Orientation"},
                             Edit{0x0020, 0x0052, "UI", "2.25.77", "Frame of Reference UID"},
                             Edit{0x0028, 0x0103, "US", test::us_bytes(0), "Bits Allocated"}})
    {
        std::string const kept = files_[2] + ".kept";
        fs::copy_file(files_[2], kept, fs::copy_options::overwrite_existing);
        test::edit_dicom_element(files_[2], edit.group, edit.element, edit.vr, edit.value);
        std::string const e = error();
        EXPECT_TRUE(contains(e, files_[2] + "' has " + edit.item)) << e;
        EXPECT_TRUE(contains(e, "but '" + files_[0] + "' has")) << e;
        fs::rename(kept, files_[2]);
    }
    EXPECT_EQ("no error", error());
}

TEST_F(DicomFolderTest, RescaleMustBeFiniteAndTheSlopeNonZero)
{
    edit_all(0x0028, 0x1053, "DS", "0");
    EXPECT_TRUE(contains(error(), "has Rescale Slope (0028,1053) 0")) << error();
    edit_all(0x0028, 0x1053, "DS", "NaN");
    EXPECT_TRUE(contains(error(), "has Rescale Slope (0028,1053) 'NaN': 'NaN' is not a finite"))
        << error();
    edit_all(0x0028, 0x1053, "DS", "1");
    edit_all(0x0028, 0x1052, "DS", "inf");
    EXPECT_TRUE(contains(error(), "has Rescale Intercept (0028,1052) 'inf'")) << error();
}
} // namespace mcdose
