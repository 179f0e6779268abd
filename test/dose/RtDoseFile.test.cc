//! RT Dose files of 16- and 32-bit pixels written and read back within the documented step;
//! the voxel limit of each; files whose Pixel Data length disagrees with Rows, Columns and
//! Number of Frames refused (edited with GDCM: test/phantoms/DicomTestSeries.hh).
#include <filesystem>
#include <unistd.h>

#include <gtest/gtest.h>

#include "DicomTestSeries.hh"
#include "dose/RtDose.hh"

namespace fs = std::filesystem;

namespace mcdose
{
class RtDoseFileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_rtdosefile_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        geometry_ = make_axis_aligned_geometry(Int3{{5, 4, 3}}, Real3{{0.2, 0.25, 0.3}},
                                               Real3{{-1, 2, 0.5}});
        edep_.resize(geometry_.num_voxels());
        for (std::size_t v = 0; v < edep_.size(); ++v)
            edep_[v] = 1e-3 * double((v * 7919) % 101 + 1);
        sigma_.assign(edep_.size(), 0.0);
        for (std::size_t v = 0; v < edep_.size(); ++v)
            sigma_[v] = 0.02 * edep_[v];
        density_.assign(edep_.size(), 1.0f);
        material_.assign(edep_.size(), 0);
        meta_.source_particles = 1e9;
        meta_.started_utc = "2026-11-25T12:00:00Z";
    }
    void TearDown() override { fs::remove_all(dir_); }

    DoseGridData data() const
    {
        DoseGridData d = dose_grid_view(geometry_, make_span(edep_), make_span(sigma_),
                                        make_span(density_), make_span(material_));
        d.material_names = {"water"};
        return d;
    }

    //! Write with `bits`; the dose file's path.
    std::string write(int bits) const
    {
        std::string const stem = (dir_ / ("d" + std::to_string(bits))).string();
        RtDoseOptions options;
        options.bits_allocated = bits;
        write_rt_dose({stem + "_dose.dcm", stem + "_unc.dcm"}, data(), meta_, options);
        return stem + "_dose.dcm";
    }

    static std::string error_of(std::string const& path)
    {
        try
        {
            read_rt_dose(path);
        }
        catch (std::exception const& e)
        {
            return e.what();
        }
        return "no error";
    }

    fs::path dir_;
    GridGeometry geometry_;
    std::vector<double> edep_, sigma_;
    std::vector<float> density_;
    std::vector<MaterialIndex> material_;
    RunMetadata meta_;
};

TEST_F(RtDoseFileTest, VoxelLimitKeepsThePixelDataLengthA32BitCount)
{
    // 2^30 voxels of 32 bits are 2^32 bytes: one more than a 32-bit length holds.
    EXPECT_EQ((size_type(1) << 30) - 1, max_rt_dose_voxels(32));
    EXPECT_EQ((size_type(1) << 31) - 1, max_rt_dose_voxels(16));
    EXPECT_LT(max_rt_dose_voxels(32) * 4, size_type(0xFFFFFFFFu));
    EXPECT_LT(max_rt_dose_voxels(16) * 2, size_type(0xFFFFFFFFu));
}

TEST_F(RtDoseFileTest, SixteenAndThirtyTwoBitsReadBackWithinHalfAStep)
{
    DoseGridData const d = data();
    double max_dose = 0;
    for (size_type v = 0; v < geometry_.num_voxels(); ++v)
        max_dose = std::max(max_dose, voxel_dose_gy_per_particle(d, v) * 1e9);
    for (int bits : {16, 32})
    {
        RtDoseGrid const grid = read_rt_dose(this->write(bits));
        double const step = max_dose / (std::ldexp(1.0, bits) - 1);
        ASSERT_EQ(geometry_.num_voxels(), grid.values.size());
        for (size_type v = 0; v < grid.values.size(); ++v)
        {
            ASSERT_NEAR(voxel_dose_gy_per_particle(d, v) * 1e9, grid.values[v],
                        0.5 * step * (1 + 1e-9))
                << bits << " bits, voxel " << v;
        }
    }
    RtDoseOptions odd;
    odd.bits_allocated = 24;
    EXPECT_THROW(
        write_rt_dose({(dir_ / "a.dcm").string(), (dir_ / "b.dcm").string()}, d, meta_, odd),
        RuntimeError);
}

TEST_F(RtDoseFileTest, PixelDataOfAnotherLengthIsRefused)
{
    std::string const path = this->write(32);
    // 3 frames of 4 x 5 pixels, 4 bytes each: 240 bytes.
    test::edit_dicom_element(path, 0x0028, 0x0008, "IS", std::string("2"));
    std::string const frames = error_of(path);
    EXPECT_NE(std::string::npos, frames.find(path + "' has Pixel Data of 240 bytes, but Rows (4) "
                                                    "x Columns (5) x Number of Frames (2)"))
        << frames;
    EXPECT_NE(std::string::npos, frames.find("is 160 bytes")) << frames;

    test::edit_dicom_element(path, 0x0028, 0x0008, "IS", std::string("3"));
    EXPECT_EQ("no error", error_of(path));
    test::edit_dicom_element(path, 0x0028, 0x0010, "US", test::us_bytes(1));
    std::string const rows = error_of(path);
    EXPECT_NE(std::string::npos, rows.find("Rows (1) x Columns (5) x Number of Frames (3)"))
        << rows;
}
} // namespace mcdose
