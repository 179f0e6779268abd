//! ITK image IO: geometry (mm on disk, cm in memory) and values survive a round
//! trip in each format; bad files give clear errors; failed writes leave nothing.
#include "io/ImageIO.hh"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "FileSizeLimit.hh"
#include "TestMacros.hh"
#include "core/Assert.hh"

namespace fs = std::filesystem;

namespace mcdose
{
class ImageIOTest : public ::testing::TestWithParam<std::string>
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_imageio_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    //! An oblique grid (rotation about z by 30 degrees) with distinct spacings.
    static GridGeometry oblique()
    {
        GridGeometry g = make_axis_aligned_geometry(Int3{{5, 4, 3}}, Real3{{0.1, 0.25, 0.3}},
                                                    Real3{{-12.5, 3.25, 100.0}});
        double const c = std::sqrt(3.0) / 2, s = 0.5;
        double const d[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
        std::copy(d, d + 9, g.direction);
        return g;
    }

    fs::path dir_;
    static inline int counter_ = 0;
};

TEST_P(ImageIOTest, FloatRoundTripKeepsGeometry)
{
    GridGeometry const g = oblique();
    std::vector<float> values(g.num_voxels());
    for (size_type v = 0; v < values.size(); ++v)
        values[v] = 0.5f * float(v) - 7.0f;
    std::string const path = (dir_ / ("img." + GetParam())).string();
    write_image(path, g, make_span(std::as_const(values)));
    ASSERT_TRUE(fs::exists(path));
    // Nothing else (no temporaries) is left beside it.
    EXPECT_EQ(1, std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}));

    ScalarImage const img = read_scalar_image(path);
    EXPECT_EQ(g.dims, img.geometry.dims);
    for (int a = 0; a < 3; ++a)
    {
        EXPECT_NEAR(g.spacing_cm[a], img.geometry.spacing_cm[a], 1e-6);
        EXPECT_NEAR(g.origin_cm[a], img.geometry.origin_cm[a], 1e-5);
    }
    for (int e = 0; e < 9; ++e)
        EXPECT_NEAR(g.direction[e], img.geometry.direction[e], 1e-6) << "element " << e;
    ASSERT_EQ(values.size(), img.values.size());
    for (size_type v = 0; v < values.size(); ++v)
        ASSERT_EQ(values[v], img.values[v]) << "voxel " << v;
    EXPECT_FALSE(img.integer_pixels);
}

TEST_P(ImageIOTest, LabelsStayIntegers)
{
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{3, 2, 2}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
    std::vector<std::uint16_t> labels = {0, 1, 2, 3, 65535, 0, 1, 2, 3, 4, 5, 6};
    std::string const path = (dir_ / ("labels." + GetParam())).string();
    write_image(path, g, make_span(std::as_const(labels)));
    ScalarImage const img = read_scalar_image(path);
    EXPECT_TRUE(img.integer_pixels) << img.pixel_type;
    for (size_type v = 0; v < labels.size(); ++v)
        EXPECT_EQ(double(labels[v]), img.values[v]);
}

INSTANTIATE_TEST_SUITE_P(Formats, ImageIOTest, ::testing::Values("mha", "nrrd", "nii.gz"));

TEST_F(ImageIOTest, MetaImageDeflatedInPiecesReadsBackThroughItk)
{
    // 2.4 MB of floats: three pieces deflated apart and joined into one zlib stream
    // (ITK's inflate checks the stream's combined Adler-32); runs of zeros and noise.
    GridGeometry g = oblique();
    g.dims = {100, 80, 75};
    std::vector<float> values(g.num_voxels());
    std::uint32_t x = 987654321u;
    for (size_type v = 0; v < values.size(); ++v)
    {
        x = x * 1664525u + 1013904223u;
        values[v] = (v / 4096) % 3 == 0 ? 0.0f : static_cast<float>(x) * 1e-9f;
    }
    std::string const path = (dir_ / "pieces.mha").string();
    write_image(path, g, make_span(std::as_const(values)));
    std::ifstream in(path, std::ios::binary);
    std::string header, line;
    while (std::getline(in, line) && line.rfind("ElementDataFile", 0) != 0)
        header += line + "\n";
    EXPECT_NE(header.find("CompressedData = True"), std::string::npos) << header;
    ScalarImage const img = read_scalar_image(path);
    EXPECT_EQ(g.dims, img.geometry.dims);
    for (int e = 0; e < 9; ++e)
        EXPECT_NEAR(g.direction[e], img.geometry.direction[e], 1e-12) << "element " << e;
    ASSERT_EQ(values.size(), img.values.size());
    for (size_type v = 0; v < values.size(); ++v)
        ASSERT_EQ(values[v], img.values[v]) << "voxel " << v;
}

TEST_F(ImageIOTest, MostlyEmptyMetaImageRunEncodedReadsBackThroughItk)
{
    // A short run's dose: 1 voxel in 50 scored, the rest 0 (io/Deflate.hh's run encoder),
    // then a block of noise (deflated), in one stream that ITK inflates.
    GridGeometry g = oblique();
    g.dims = {120, 90, 60};
    std::vector<float> values(g.num_voxels(), 0.0f);
    std::uint32_t x = 24680u;
    for (size_type v = 0; v < values.size(); ++v)
    {
        x = x * 1664525u + 1013904223u;
        if (v > values.size() - 70000 || x % 50 == 0)
            values[v] = static_cast<float>(x) * 1e-9f;
    }
    std::string const path = (dir_ / "sparse.mha").string();
    write_image(path, g, make_span(std::as_const(values)));
    EXPECT_LT(fs::file_size(path), values.size() * sizeof(float) / 4);
    ScalarImage const img = read_scalar_image(path);
    ASSERT_EQ(values.size(), img.values.size());
    for (size_type v = 0; v < values.size(); ++v)
        ASSERT_EQ(values[v], img.values[v]) << "voxel " << v;
}

TEST_F(ImageIOTest, ErrorsNameThePathAndTheProblem)
{
    auto message = [](std::string const& path)
    {
        try
        {
            read_scalar_image(path);
        }
        catch (RuntimeError const& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::string const missing = (dir_ / "missing.mha").string();
    EXPECT_NE(std::string::npos, message(missing).find("does not exist")) << message(missing);

    std::string const junk = (dir_ / "junk.xyz").string();
    std::ofstream(junk) << "not an image";
    EXPECT_NE(std::string::npos, message(junk).find("unknown format")) << message(junk);

    // A 3-component (vector) MetaImage: an unsupported pixel type.
    std::string const vec = (dir_ / "vector.mha").string();
    {
        std::ofstream out(vec, std::ios::binary);
        out << "ObjectType = Image\nNDims = 3\nDimSize = 2 2 1\nElementNumberOfChannels = 3\n"
               "ElementSpacing = 1 1 1\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n";
        std::vector<float> data(12, 1.0f);
        out.write(reinterpret_cast<char const*>(data.data()), data.size() * sizeof(float));
    }
    std::string const m = message(vec);
    EXPECT_NE(std::string::npos, m.find("unsupported pixel type")) << m;
    EXPECT_NE(std::string::npos, m.find(vec)) << m;

    // An empty directory is not a DICOM series.
    fs::create_directories(dir_ / "empty");
    std::string const e = message((dir_ / "empty").string());
    EXPECT_NE(std::string::npos, e.find("without a DICOM series")) << e;
}

TEST_F(ImageIOTest, FailedWriteLeavesNoFile)
{
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{2, 2, 2}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
    std::vector<float> values(8, 1.0f);
    // The target is an existing directory, so the final rename fails after the
    // temporary was written: the temporary must be removed.
    fs::create_directories(dir_ / "dose.mha");
    EXPECT_THROW(write_image((dir_ / "dose.mha").string(), g, make_span(std::as_const(values))),
                 RuntimeError);
    EXPECT_EQ(1, std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}));
    // Unsupported extension and wrong size: refused before anything is written.
    EXPECT_THROW(write_image((dir_ / "dose.png").string(), g, make_span(std::as_const(values))),
                 RuntimeError);
    std::vector<float> short_values(3, 1.0f);
    EXPECT_THROW(write_image((dir_ / "x.mha").string(), g, make_span(std::as_const(short_values))),
                 RuntimeError);
    EXPECT_EQ(1, std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}));
}
} // namespace mcdose

namespace mcdose
{
namespace
{
std::string read_error(std::string const& path)
{
    try
    {
        read_scalar_image(path);
    }
    catch (RuntimeError const& e)
    {
        return e.what();
    }
    return "(no error)";
}
} // namespace

namespace
{
//! A raw MetaImage of 4 x 2 x 1 values of type T (ElementType `met`), little-endian.
template <class T>
void write_raw_metaimage(std::string const& path, char const* met, std::vector<T> const& values)
{
    std::ofstream out(path, std::ios::binary);
    out << "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
           "CompressedData = False\nElementSpacing = 1 1 1\nDimSize = 4 2 1\n"
           "ElementType = "
        << met << "\nElementDataFile = LOCAL\n";
    out.write(reinterpret_cast<char const*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(T)));
}

//! Each value read back is the value written, as a double (the extremes of its type too).
template <class T>
void expect_read_as_written(std::string const& path, char const* met, char const* component,
                            bool integer)
{
    using L = std::numeric_limits<T>;
    std::vector<T> const values = {L::lowest(), L::max(), T(0),  T(1),
                                   T(-1),       T(100),   T(-7), static_cast<T>(L::max() - 1)};
    write_raw_metaimage(path, met, values);
    ScalarImage const img = read_scalar_image(path);
    ASSERT_EQ(values.size(), img.values.size()) << met;
    for (size_type v = 0; v < values.size(); ++v)
        EXPECT_EQ(static_cast<double>(values[v]), img.values[v]) << met << " voxel " << v;
    EXPECT_EQ(component, img.pixel_type) << met;
    EXPECT_EQ(integer, img.integer_pixels) << met;
}
} // namespace

TEST_F(ImageIOTest, EveryComponentTypeReadsAsItsValues)
{
    auto const path = [&](char const* name) { return (dir_ / name).string(); };
    expect_read_as_written<std::uint8_t>(path("u8.mha"), "MET_UCHAR", "unsigned_char", true);
    expect_read_as_written<std::int8_t>(path("i8.mha"), "MET_CHAR", "char", true);
    expect_read_as_written<std::uint16_t>(path("u16.mha"), "MET_USHORT", "unsigned_short", true);
    expect_read_as_written<std::int16_t>(path("i16.mha"), "MET_SHORT", "short", true);
    expect_read_as_written<std::uint32_t>(path("u32.mha"), "MET_UINT", "unsigned_int", true);
    expect_read_as_written<std::int32_t>(path("i32.mha"), "MET_INT", "int", true);
    expect_read_as_written<float>(path("f32.mha"), "MET_FLOAT", "float", false);
    expect_read_as_written<double>(path("f64.mha"), "MET_DOUBLE", "double", false);
    // 64-bit integers: read by ITK as doubles (the nearest double, as a cast gives).
    expect_read_as_written<std::int64_t>(path("i64.mha"), "MET_LONG_LONG", "long_long", true);
    expect_read_as_written<std::uint64_t>(path("u64.mha"), "MET_ULONG_LONG", "unsigned_long_long",
                                          true);
}

TEST_F(ImageIOTest, TruncatedMetaImageIsRefusedWithTheByteCounts)
{
    // Uncompressed: 4 x 4 x 4 shorts promise 128 bytes; 100 are there.
    std::string const raw = (dir_ / "raw.mha").string();
    std::ofstream(raw, std::ios::binary)
        << "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
           "CompressedData = False\nElementSpacing = 1 1 1\nDimSize = 4 4 4\n"
           "ElementType = MET_SHORT\nElementDataFile = LOCAL\n"
        << std::string(100, '\0');
    std::string const e = read_error(raw);
    EXPECT_NE(std::string::npos, e.find(raw)) << e;
    EXPECT_NE(std::string::npos, e.find("truncated")) << e;
    EXPECT_NE(std::string::npos, e.find("128 bytes")) << e;
    EXPECT_NE(std::string::npos, e.find("holds 100")) << e;

    // Compressed (the example CT cut short): CompressedDataSize against the file.
    std::string const full = test::source_dir() + "/examples/synthetic_ct.mha";
    std::ifstream in(full, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string const cut = (dir_ / "cut.mha").string();
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    std::string const c = read_error(cut);
    EXPECT_NE(std::string::npos, c.find("truncated")) << c;
    EXPECT_NE(std::string::npos, c.find("144189 bytes of compressed data")) << c;
    // The intact image still reads.
    EXPECT_EQ(64u * 48 * 40, read_scalar_image(full).values.size());
}

TEST_F(ImageIOTest, CompressedNiftiAndNrrdCutShortAreRefused)
{
    // The NIfTI library and NRRD's reader read a gzip stream cut short without an error (the
    // missing voxels left as they were): every cut is refused, the whole file reads, and
    // padding after a whole stream is accepted.
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{24, 20, 16}}, Real3{{0.1, 0.1, 0.2}}, Real3{{0, 0, 0}});
    std::vector<float> values(g.num_voxels());
    for (size_type v = 0; v < values.size(); ++v)
        values[v] = float((v * 7919) % 2000) - 1000.0f; // hardly compressible
    for (std::string const ext : {"nii.gz", "nrrd"})
    {
        std::string const whole = (dir_ / ("whole." + ext)).string();
        write_image(whole, g, make_span(std::as_const(values)));
        std::ifstream in(whole, std::ios::binary);
        std::string const bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
        ASSERT_EQ(values.size(), read_scalar_image(whole).values.size());
        std::string const cut = (dir_ / ("cut." + ext)).string();
        for (std::size_t n : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 100,
                              bytes.size() - 8, bytes.size() - 1})
        {
            std::ofstream(cut, std::ios::binary) << bytes.substr(0, n);
            std::string const e = read_error(cut);
            EXPECT_NE(std::string::npos, e.find("is truncated")) << ext << ", " << n << ": " << e;
            EXPECT_NE(std::string::npos, e.find(cut)) << e;
        }
        std::ofstream(cut, std::ios::binary) << bytes << std::string(64, '\0');
        EXPECT_EQ(values.size(), read_scalar_image(cut).values.size()) << ext << " with padding";
    }
}

TEST_F(ImageIOTest, FifoAndEmptyGridAreRefusedByName)
{
    std::string const fifo = (dir_ / "ct.mha").string();
    ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));
    std::string const f = read_error(fifo); // would block forever if opened
    EXPECT_NE(std::string::npos, f.find("FIFO")) << f;
    EXPECT_NE(std::string::npos, f.find(fifo)) << f;

    std::string const empty = (dir_ / "empty.mha").string();
    std::ofstream(empty, std::ios::binary)
        << "ObjectType = Image\nNDims = 3\nBinaryData = True\nCompressedData = False\n"
           "ElementSpacing = 1 1 1\nDimSize = 4 0 4\nElementType = MET_SHORT\n"
           "ElementDataFile = LOCAL\n";
    std::string const z = read_error(empty);
    EXPECT_NE(std::string::npos, z.find("no voxels")) << z;
}

TEST_F(ImageIOTest, FullDiskLeavesNoImage)
{
    // 32^3 incompressible floats (128 kB) against a 16 kB file-size limit.
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{32, 32, 32}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
    std::vector<float> values(g.num_voxels());
    std::uint32_t x = 12345;
    for (float& v : values)
    {
        x = x * 1664525u + 1013904223u;
        v = static_cast<float>(x) * 1e-9f;
    }
    for (char const* ext : {"mha", "nrrd", "nii.gz"})
    {
        std::string const path = (dir_ / (std::string("dose.") + ext)).string();
        int const status = test::run_with_file_size_limit(
            16 * 1024,
            [&]
            {
                try
                {
                    write_image(path, g, make_span(std::as_const(values)));
                }
                catch (RuntimeError const& e)
                {
                    std::string const m = e.what();
                    return m.find(path) != std::string::npos ? 0 : 2;
                }
                return 1; // no error: the failure went unnoticed
            });
        EXPECT_EQ(0, status) << ext;
        EXPECT_EQ(0, std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}))
            << ext << ": a file was left behind";
    }
}
} // namespace mcdose
