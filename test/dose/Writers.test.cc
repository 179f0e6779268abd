//! Writers: what is written reads back with the stable names, units and geometry;
//! a failed write leaves no file.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <utility>

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "FileSizeLimit.hh"
#include "core/Assert.hh"
#include "core/Constants.hh"
#include "dose/DoseHdf5.hh"
#include "dose/DoseImages.hh"
#include "dose/Dvh.hh"
#include "dose/ProfileCsv.hh"
#include "dose/RunSummary.hh"
#include "dose/RunTimings.hh"
#include "io/ImageIO.hh"
#include "phantoms/StructureMask.hh"
#include "study/RunOutputs.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
std::string slurp(std::string const& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string read_string_attr(H5::H5Object const& obj, char const* name)
{
    H5::Attribute a = obj.openAttribute(name);
    std::string s;
    a.read(a.getStrType(), s);
    return s;
}

std::vector<double> read_double_attr(H5::H5Object const& obj, char const* name)
{
    H5::Attribute a = obj.openAttribute(name);
    std::vector<double> v(a.getSpace().getSimpleExtentNpoints());
    a.read(H5::PredType::NATIVE_DOUBLE, v.data());
    return v;
}
} // namespace

class WritersTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_writers_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);

        // 3 x 4 x 5 grid, rotated (index axis i along +y), 2 materials.
        geo_ = make_axis_aligned_geometry(Int3{{3, 4, 5}}, Real3{{0.5, 0.25, 1.0}},
                                          Real3{{-1.0, 2.0, 0.5}});
        double const d[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
        std::copy(d, d + 9, geo_.direction);
        size_type const n = geo_.num_voxels();
        edep_.resize(n);
        sigma_.resize(n);
        rho_.assign(n, 1.0f);
        mat_.assign(n, 0);
        for (size_type v = 0; v < n; ++v)
        {
            edep_[v] = 0.01 * double(v + 1);
            sigma_[v] = 0.001 * double(v % 7);
            if (v % 5 == 0)
            {
                rho_[v] = 1.85f;
                mat_[v] = 1;
            }
        }
        edep_[4] = 0; // no deposit: uncertainty reported as 1
        sigma_[4] = 0;
        data_.geometry = geo_;
        data_.edep_MeV = make_span(std::as_const(edep_));
        data_.edep_sigma_MeV = make_span(std::as_const(sigma_));
        data_.density_g_cm3 = make_span(std::as_const(rho_));
        data_.material = make_span(std::as_const(mat_));
        data_.material_names = {"water", "bone_cortical_icrp"};

        meta_.study_file = "study.json";
        meta_.study_json = "{\"run\": {\"histories\": 1000}}";
        meta_.version = "0.1.0 (test)";
        meta_.started_utc = "2026-11-21T12:00:00Z";
        meta_.seed = 12345678901234ull;
        meta_.rng_generator = "philox";
        meta_.tally_method = "wib";
        meta_.precision = "double";
        meta_.backend = "cpu";
        meta_.device = "2 threads";
        meta_.histories = 1000;
        meta_.wall_time_s = 2.5;
        meta_.transport_time_s = 2.0;
        meta_.stop_reason = StopReason::histories;
        meta_.uncertainty_reached = 0.05;
        meta_.energy = {20.0, 18.0, 2.0, 0.5};
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(std::string const& name) const { return (dir_ / name).string(); }
    size_type files_in_dir() const
    {
        return static_cast<size_type>(
            std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}));
    }

    fs::path dir_;
    GridGeometry geo_;
    std::vector<double> edep_, sigma_;
    std::vector<float> rho_;
    std::vector<MaterialIndex> mat_;
    DoseGridData data_;
    RunMetadata meta_;
};

TEST_F(WritersTest, DoseIsEnergyOverMass)
{
    auto const dose = dose_gy_per_particle(data_);
    double const volume = 0.5 * 0.25 * 1.0;
    for (size_type v = 0; v < dose.size(); ++v)
    {
        double const expected = edep_[v] * 1.602176634e-13 / (rho_[v] * volume * 1e-3);
        EXPECT_NEAR(expected, dose[v], 1e-12 * std::fabs(expected) + 1e-30) << v;
    }
    auto const rel = relative_uncertainty(data_);
    EXPECT_DOUBLE_EQ(1.0, rel[4]);
    EXPECT_DOUBLE_EQ(sigma_[8] / edep_[8], rel[8]);
}

TEST_F(WritersTest, Hdf5ReadsBackWithStableNames)
{
    meta_.source_particles = 1e12;
    std::string const file = path("run.h5");
    write_dose_hdf5(file, data_, meta_);
    EXPECT_EQ(1u, files_in_dir());
    // The closed file's bytes: a version 0 superblock whose consistency flags (bytes 20-23,
    // "open for writing" while HDF5 builds it) are clear.
    std::string const bytes = slurp(file);
    ASSERT_GT(bytes.size(), 24u);
    EXPECT_EQ(std::string("\x89HDF\r\n\x1a\n"), bytes.substr(0, 8));
    EXPECT_EQ(0, bytes[8]);
    EXPECT_EQ(std::string(4, '\0'), bytes.substr(20, 4));

    H5::H5File h5(file, H5F_ACC_RDONLY);
    auto const dose = dose_gy_per_particle(data_);
    auto const rel = relative_uncertainty(data_);
    for (char const* name : {"dose", "dose_Gy", "dose_uncertainty", "edep", "density", "material"})
    {
        SCOPED_TRACE(name);
        H5::DataSet ds = h5.openDataSet(name);
        hsize_t dims[3] = {0, 0, 0};
        ASSERT_EQ(3, ds.getSpace().getSimpleExtentDims(dims));
        EXPECT_EQ(5u, dims[0]); // (nz, ny, nx)
        EXPECT_EQ(4u, dims[1]);
        EXPECT_EQ(3u, dims[2]);
        auto const spacing = read_double_attr(ds, "spacing_cm");
        ASSERT_EQ(3u, spacing.size());
        EXPECT_DOUBLE_EQ(0.5, spacing[0]);
        EXPECT_DOUBLE_EQ(0.25, spacing[1]);
        auto const origin = read_double_attr(ds, "origin_cm");
        EXPECT_DOUBLE_EQ(-1.0, origin[0]);
        EXPECT_DOUBLE_EQ(2.0, origin[1]);
        EXPECT_DOUBLE_EQ(-1.0, read_double_attr(ds, "direction")[1]);
        EXPECT_FALSE(read_string_attr(ds, "units").empty());
    }
    std::vector<double> values(geo_.num_voxels());
    h5.openDataSet("dose").read(values.data(), H5::PredType::NATIVE_DOUBLE);
    EXPECT_EQ(dose, values);
    EXPECT_EQ("Gy per source particle", read_string_attr(h5.openDataSet("dose"), "units"));
    h5.openDataSet("dose_Gy").read(values.data(), H5::PredType::NATIVE_DOUBLE);
    EXPECT_DOUBLE_EQ(dose[7] * 1e12, values[7]);
    h5.openDataSet("dose_uncertainty").read(values.data(), H5::PredType::NATIVE_DOUBLE);
    EXPECT_EQ(rel, values);
    h5.openDataSet("edep").read(values.data(), H5::PredType::NATIVE_DOUBLE);
    EXPECT_EQ(edep_, values);
    std::vector<float> rho(geo_.num_voxels());
    h5.openDataSet("density").read(rho.data(), H5::PredType::NATIVE_FLOAT);
    EXPECT_EQ(rho_, rho);
    std::vector<std::uint16_t> mat(geo_.num_voxels());
    H5::DataSet mds = h5.openDataSet("material");
    mds.read(mat.data(), H5::PredType::NATIVE_UINT16);
    EXPECT_EQ(mat_, mat);
    {
        H5::Attribute names = mds.openAttribute("names");
        ASSERT_EQ(2, names.getSpace().getSimpleExtentNpoints());
        std::vector<char*> raw(2);
        names.read(names.getStrType(), raw.data());
        EXPECT_STREQ("water", raw[0]);
        EXPECT_STREQ("bone_cortical_icrp", raw[1]);
        H5Dvlen_reclaim(names.getStrType().getId(), names.getSpace().getId(), H5P_DEFAULT,
                        raw.data());
    }
    // Input echo and run facts.
    H5::Group input = h5.openGroup("input");
    EXPECT_EQ("study.json", read_string_attr(input, "study_file"));
    {
        H5::DataSet echo = input.openDataSet("study_json");
        std::string text;
        echo.read(text, echo.getStrType());
        EXPECT_EQ(meta_.study_json, text);
    }
    H5::Group run = h5.openGroup("run");
    std::uint64_t seed = 0;
    run.openAttribute("seed").read(H5::PredType::NATIVE_UINT64, &seed);
    EXPECT_EQ(meta_.seed, seed);
    EXPECT_EQ("0.1.0 (test)", read_string_attr(run, "version"));
    EXPECT_DOUBLE_EQ(500.0, read_double_attr(run, "histories_per_s")[0]);
    EXPECT_DOUBLE_EQ(2.5, read_double_attr(run, "wall_time_s")[0]);
    EXPECT_EQ("0.1.0 (test)", read_string_attr(h5, "mcdose_version"));
}

// Slices of one value, of runs of zeros and of noise: each reads back exactly; noise, which
// hardly deflates, is stored (io/Deflate.hh), the others deflated.
TEST_F(WritersTest, Hdf5SlicesDeflatedOrStoredReadBackExactly)
{
    GridGeometry g =
        make_axis_aligned_geometry(Int3{{256, 256, 5}}, Real3{{0.1, 0.1, 0.1}}, Real3{{0, 0, 0}});
    size_type const per_slice = 256 * 256;
    std::vector<double> edep(5 * per_slice, 0.0), sigma(5 * per_slice, 0.0);
    std::vector<float> rho(5 * per_slice, 1.0f);
    std::vector<MaterialIndex> mat(5 * per_slice, 0);
    std::mt19937_64 engine(7);
    std::uniform_real_distribution<double> u(0.5, 1.0);
    for (size_type i = 0; i < per_slice; ++i)
    {
        edep[per_slice + i] = 2.5;                               // slice 1: one value
        edep[2 * per_slice + i] = u(engine);                     // slice 2: noise
        edep[3 * per_slice + i] = i % 97 == 0 ? u(engine) : 0.0; // slice 3: sparse
        edep[4 * per_slice + i] = 2.5;                           // slice 4: as slice 1
        for (size_type k = 1; k < 5; ++k)
            sigma[k * per_slice + i] = 0.1 * edep[k * per_slice + i];
    }
    DoseGridData data =
        dose_grid_view(g, make_span(std::as_const(edep)), make_span(std::as_const(sigma)),
                       make_span(std::as_const(rho)), make_span(std::as_const(mat)));
    data.material_names = {"water"};
    std::string const file = path("slices.h5");
    write_dose_hdf5(file, data, meta_);

    H5::H5File h5(file, H5F_ACC_RDONLY);
    H5::DataSet ds = h5.openDataSet("edep");
    std::vector<double> back(edep.size());
    ds.read(back.data(), H5::PredType::NATIVE_DOUBLE);
    EXPECT_EQ(edep, back);
    hsize_t const raw_bytes = per_slice * sizeof(double);
    for (hsize_t k = 0; k < 5; ++k)
    {
        SCOPED_TRACE("slice " + std::to_string(k));
        hsize_t const offset[3] = {k, 0, 0};
        hsize_t stored = 0;
        ASSERT_GE(H5Dget_chunk_storage_size(ds.getId(), offset, &stored), 0);
        if (k == 2)
            EXPECT_GT(stored, raw_bytes * 95 / 100); // stored after the first step
        else
            EXPECT_LT(stored, raw_bytes / 20);
    }
    std::vector<float> rho_back(rho.size());
    h5.openDataSet("density").read(rho_back.data(), H5::PredType::NATIVE_FLOAT);
    EXPECT_EQ(rho, rho_back);
}

TEST_F(WritersTest, FailedWritesLeaveNoFile)
{
    // The target is a directory: the temporary is written, the rename fails,
    // and the temporary is removed.
    fs::create_directories(dir_ / "run.h5");
    EXPECT_THROW(write_dose_hdf5(path("run.h5"), data_, meta_), RuntimeError);
    fs::create_directories(dir_ / "dd.csv");
    DepthDoseCurve curve = depth_dose_from_batches(geo_, 2, {edep_, edep_});
    EXPECT_THROW(write_depth_dose_csv(path("dd.csv"), curve), RuntimeError);
    fs::create_directories(dir_ / "s.json");
    EXPECT_THROW(write_run_summary_json(path("s.json"), meta_, data_, {}), RuntimeError);
    EXPECT_EQ(3u, files_in_dir()); // only the three directories
    // Mismatched arrays are refused before anything is written.
    std::vector<double> short_edep(3, 1.0);
    DoseGridData bad = data_;
    bad.edep_MeV = make_span(std::as_const(short_edep));
    EXPECT_THROW(write_dose_hdf5(path("bad.h5"), bad, meta_), RuntimeError);
    EXPECT_THROW(write_dose_images(path("bad"), "mha", bad, std::nullopt), RuntimeError);
    EXPECT_EQ(3u, files_in_dir());
}

TEST_F(WritersTest, ImagesOverlayOnTheInputGrid)
{
    auto const paths = write_dose_images(path("run"), "nrrd", data_, 1e9);
    ASSERT_EQ(2u, paths.size());
    ScalarImage const dose = read_scalar_image(paths[0]);
    ScalarImage const unc = read_scalar_image(paths[1]);
    auto const expected = dose_gy_per_particle(data_);
    for (auto const* img : {&dose, &unc})
    {
        EXPECT_EQ(geo_.dims, img->geometry.dims);
        for (int a = 0; a < 3; ++a)
        {
            EXPECT_NEAR(geo_.spacing_cm[a], img->geometry.spacing_cm[a], 1e-6);
            EXPECT_NEAR(geo_.origin_cm[a], img->geometry.origin_cm[a], 1e-6);
        }
        for (int e = 0; e < 9; ++e)
            EXPECT_NEAR(geo_.direction[e], img->geometry.direction[e], 1e-9);
    }
    EXPECT_NEAR(expected[9] * 1e9, dose.values[9], 1e-6 * expected[9] * 1e9);
    EXPECT_FLOAT_EQ(1.0f, float(unc.values[4]));
}

TEST_F(WritersTest, DepthDoseFromBatchesAndCsv)
{
    // Two batches differing by a known amount in one voxel of slab k = 2.
    std::vector<double> a = edep_, b = edep_;
    size_type const v = geo_.linear_index(Int3{{1, 1, 2}});
    a[v] += 0.3;
    b[v] -= 0.3;
    DepthDoseCurve const c = depth_dose_from_batches(geo_, 2, {a, b});
    ASSERT_EQ(5u, c.edep_MeV.size());
    auto const slabs = laterally_integrate(geo_, 2, make_span(std::as_const(edep_)));
    for (int k = 0; k < 5; ++k)
        EXPECT_NEAR(slabs[k], c.edep_MeV[k], 1e-12);
    // Batch means x_b = mean +- 0.3: SEM = sqrt(2 * 0.09 / (2 * 1)) = 0.3.
    EXPECT_NEAR(0.3, c.edep_sigma_MeV[2], 1e-12);
    EXPECT_DOUBLE_EQ(0.0, c.edep_sigma_MeV[0]);
    EXPECT_DOUBLE_EQ(0.0, c.lo_cm[0]); // origin z 0.5 - half voxel
    EXPECT_DOUBLE_EQ(5.0, c.hi_cm[4]);
    // Total over slabs is the total deposit.
    double total = 0;
    for (double e : edep_)
        total += e;
    double slab_total = 0;
    for (double e : slabs)
        slab_total += e;
    EXPECT_NEAR(total, slab_total, 1e-12);

    write_depth_dose_csv(path("dd.csv"), c);
    std::istringstream lines(slurp(path("dd.csv")));
    std::string header, row;
    std::getline(lines, header);
    EXPECT_EQ("z_lo_cm,z_hi_cm,z_mid_cm,edep_MeV,edep_sigma_MeV", header);
    int rows = 0;
    while (std::getline(lines, row))
    {
        if (rows == 2)
        {
            double lo, hi, mid, e, s;
            char comma;
            std::istringstream r(row);
            r >> lo >> comma >> hi >> comma >> mid >> comma >> e >> comma >> s;
            EXPECT_DOUBLE_EQ(2.0, lo);
            EXPECT_DOUBLE_EQ(2.5, mid);
            EXPECT_NEAR(c.edep_MeV[2], e, 1e-9 * c.edep_MeV[2]);
            EXPECT_NEAR(0.3, s, 1e-9);
        }
        ++rows;
    }
    EXPECT_EQ(5, rows);
    EXPECT_THROW(depth_dose_from_batches(geo_, 2, {a}), RuntimeError);
}

// Four histories deposit 1, 1, 2, 0 MeV in slab 1 and nothing elsewhere: per history
// the mean 1 MeV, s^2 = N/(N-1) (sum x^2 - S^2/N) = 4/3 (6 - 4) = 8/3, SEM = s/N.
TEST_F(WritersTest, DepthDoseFromHistorySlabs)
{
    std::vector<double> sums(5, 0.0), sum_sq(5, 0.0);
    sums[1] = 4;
    sum_sq[1] = 6;
    DepthDoseCurve const c = depth_dose_from_history_slabs(geo_, 2, sums, sum_sq, 4);
    ASSERT_EQ(5u, c.edep_MeV.size());
    EXPECT_DOUBLE_EQ(1.0, c.edep_MeV[1]);
    EXPECT_NEAR(std::sqrt(8.0 / 3.0) / 4, c.edep_sigma_MeV[1], 1e-15);
    EXPECT_DOUBLE_EQ(0.0, c.edep_MeV[0]);
    EXPECT_DOUBLE_EQ(0.0, c.edep_sigma_MeV[0]);
    EXPECT_DOUBLE_EQ(1.0, c.lo_cm[1]);
    EXPECT_DOUBLE_EQ(2.0, c.hi_cm[1]);
    // A sum of squares rounded below S^2/N (no spread) gives 0, not a NaN.
    sum_sq[1] = 4 * (1 - 1e-16);
    EXPECT_DOUBLE_EQ(0.0,
                     depth_dose_from_history_slabs(geo_, 2, sums, sum_sq, 4).edep_sigma_MeV[1]);
    EXPECT_THROW(depth_dose_from_history_slabs(geo_, 2, sums, sum_sq, 1), RuntimeError);
    EXPECT_THROW(depth_dose_from_history_slabs(geo_, 1, sums, sum_sq, 4), RuntimeError);
}

TEST_F(WritersTest, LateralProfileAlongAnAxis)
{
    // Through the centre of voxel (0, 2, 3), along index axis j.
    Real3 const p = geo_.voxel_centre_cm(Int3{{0, 2, 3}});
    LateralProfile const prof = lateral_profile(data_, 1, p);
    ASSERT_EQ(4u, prof.dose_Gy.size());
    auto const dose = dose_gy_per_particle(data_);
    for (int j = 0; j < 4; ++j)
        EXPECT_DOUBLE_EQ(dose[geo_.linear_index(Int3{{0, j, 3}})], prof.dose_Gy[j]);
    write_lateral_profile_csv(path("prof.csv"), prof);
    EXPECT_EQ(0u, slurp(path("prof.csv"))
                      .find("y_lo_cm,y_hi_cm,y_mid_cm,dose_Gy_per_particle,"
                            "dose_sigma_Gy_per_particle\n"));
    EXPECT_THROW(lateral_profile(data_, 0, Real3{{100, 0, 0}}), RuntimeError);
}

TEST_F(WritersTest, RunSummaryJsonAndText)
{
    meta_.complete = false;
    meta_.stop_reason = StopReason::interrupted;
    std::string const file = path("summary.json");
    write_run_summary_json(file, meta_, data_, {"a.h5"});
    auto const j = nlohmann::json::parse(slurp(file));
    EXPECT_EQ(1000u, j["histories"].get<std::uint64_t>());
    EXPECT_DOUBLE_EQ(500.0, j["histories_per_s"].get<double>());
    EXPECT_FALSE(j["complete"].get<bool>());
    EXPECT_EQ(meta_.seed, j["seed"].get<std::uint64_t>());
    EXPECT_DOUBLE_EQ(0.05, j["uncertainty"]["mean_relative"].get<double>());
    EXPECT_DOUBLE_EQ(0.0, j["energy_balance_MeV_per_particle"]["relative_imbalance"].get<double>());
    EXPECT_EQ("a.h5", j["outputs"][0]);
    EXPECT_TRUE(j["timing"].empty());
    meta_.steps = {{"phantom", 0.5}, {"hdf5", 1.25}};
    auto const timed = nlohmann::json::parse(run_summary_json(meta_, data_, {}));
    ASSERT_EQ(2u, timed["timing"].size());
    EXPECT_EQ("hdf5", timed["timing"][1]["step"]);
    EXPECT_DOUBLE_EQ(1.25, timed["timing"][1]["seconds"].get<double>());
    std::string const text = run_summary_text(meta_, data_, {"a.h5"});
    EXPECT_NE(std::string::npos, text.find("INCOMPLETE")) << text;
    EXPECT_NE(std::string::npos, text.find("histories/s   : 500")) << text;
    EXPECT_NE(std::string::npos, text.find("time per step : phantom 0.5 s, hdf5 1.25 s")) << text;
}

TEST_F(WritersTest, DvhFiguresInHdf5SummaryAndText)
{
    // The whole grid as the body, its figures and summary as run_study makes them.
    StructureMask body;
    body.name = "body";
    for (size_type v = 0; v < geo_.num_voxels(); ++v)
    {
        body.voxels.push_back(v);
        body.fraction.push_back(1.0f);
    }
    meta_.report.summary = summarize_region(data_, body, 0.05, 0.5);
    meta_.report.dvhs.push_back(structure_dvh(body, data_, 1.0, {0.0}));
    DvhFigures const& f = meta_.report.dvhs.front();

    std::string const file = path("run.h5");
    write_dose_hdf5(file, data_, meta_);
    H5::H5File h5(file, H5F_ACC_RDONLY);
    H5::Group dvh = h5.openGroup("dvh");
    EXPECT_EQ("Gy per particle", read_string_attr(dvh, "dose_unit"));
    EXPECT_EQ("body", read_string_attr(dvh, "summary_region"));
    EXPECT_DOUBLE_EQ(meta_.report.summary->near_max, read_double_attr(dvh, "summary_near_max")[0]);
    H5::Group g = dvh.openGroup("body");
    auto const d50 = read_double_attr(g, "D50");
    ASSERT_EQ(2u, d50.size());
    EXPECT_DOUBLE_EQ(f.d50.value, d50[0]);
    EXPECT_DOUBLE_EQ(f.d50.sigma, d50[1]);
    H5::DataSet curve = g.openDataSet("volume_cm3");
    EXPECT_EQ(hssize_t(dvh_curve_bins + 1), curve.getSpace().getSimpleExtentNpoints());

    auto const j = nlohmann::json::parse(run_summary_json(meta_, data_, {}));
    EXPECT_EQ("body", j["near_max"]["region"]);
    EXPECT_DOUBLE_EQ(f.d2.value, j["structures"][0]["D2"]["value"].get<double>());
    EXPECT_DOUBLE_EQ(100.0, j["structures"][0]["V"][0]["volume_percent"]["value"].get<double>());
    std::string const text = run_summary_text(meta_, data_, {});
    EXPECT_NE(std::string::npos, text.find("near max      : ")) << text;
    // The uncertainty's definition is in the JSON and the docs, not repeated in the text.
    EXPECT_EQ(std::string::npos, text.find("TG-105")) << text;
    EXPECT_NE(std::string::npos, text.find("(1 sigma, mean relative)")) << text;
    EXPECT_NE(j["uncertainty"]["definition"].get<std::string>().find("TG-105"), std::string::npos);
    EXPECT_NE(std::string::npos, text.find("    body (")) << text;
}

TEST_F(WritersTest, MeanUncertaintyOverHighDoseVoxels)
{
    // Dose above half the maximum: compute the expected mean directly.
    auto const dose = dose_gy_per_particle(data_);
    double const dmax = *std::max_element(dose.begin(), dose.end());
    double sum = 0;
    int count = 0;
    for (size_type v = 0; v < dose.size(); ++v)
    {
        if (dose[v] > 0.5 * dmax)
        {
            sum += sigma_[v] / edep_[v];
            ++count;
        }
    }
    ASSERT_GT(count, 0);
    EXPECT_DOUBLE_EQ(sum / count, *mean_relative_uncertainty(data_, 0.5));
    std::vector<double> zeros(edep_.size(), 0.0);
    DoseGridData empty = data_;
    empty.edep_MeV = make_span(std::as_const(zeros));
    EXPECT_FALSE(mean_relative_uncertainty(empty, 0.5));
}

TEST_F(WritersTest, Hdf5GridsInTheBackgroundMakeTheSameFile)
{
    // The grid datasets made on the writer's thread while the caller goes on: the
    // same bytes as the file written whole on the caller's thread, nothing on disk
    // before finish.
    StructureMask const body = whole_grid(geo_);
    meta_.source_particles = 1e12;
    meta_.report.dose_unit = "Gy";
    meta_.report.summary = summarize_region(data_, body, 0.05, 0.5);
    meta_.report.dvhs.push_back(structure_dvh(body, data_, 1e12, {0.0}));
    write_dose_hdf5(path("whole.h5"), data_, meta_);
    RunMetadata grid_meta = meta_;
    grid_meta.report = {};
    grid_meta.uncertainty_reached.reset();
    {
        DoseHdf5Writer writer(path("two.h5"), data_, grid_meta, DoseHdf5Writer::Start::background);
        EXPECT_FALSE(fs::exists(path("two.h5")));
        writer.finish(meta_);
        EXPECT_THROW(writer.finish(meta_), RuntimeError); // once only
    }
    EXPECT_EQ(slurp(path("whole.h5")), slurp(path("two.h5")));
    // A writer abandoned (an error elsewhere) leaves no file.
    {
        DoseHdf5Writer writer(path("abandoned.h5"), data_, grid_meta,
                              DoseHdf5Writer::Start::background);
    }
    EXPECT_FALSE(fs::exists(path("abandoned.h5")));
    // The grid phase's error comes from finish, with the message of the whole writer.
    std::vector<double> short_edep(3, 1.0);
    DoseGridData bad = data_;
    bad.edep_MeV = make_span(std::as_const(short_edep));
    std::string whole_error, two_error;
    try
    {
        write_dose_hdf5(path("bad.h5"), bad, meta_);
    }
    catch (RuntimeError const& e)
    {
        whole_error = e.what();
    }
    DoseHdf5Writer writer(path("bad.h5"), bad, grid_meta, DoseHdf5Writer::Start::background);
    try
    {
        writer.finish(meta_);
    }
    catch (RuntimeError const& e)
    {
        two_error = e.what();
    }
    EXPECT_FALSE(whole_error.empty());
    EXPECT_EQ(whole_error, two_error);
    EXPECT_FALSE(fs::exists(path("bad.h5")));
}

TEST_F(WritersTest, EnergyMaskWritesTheSameFiles)
{
    // The writers fill the voxels without energy by the data's energy mask (no read of
    // their energy) and write the same bytes as without it: the HDF5 file (with dose in
    // Gy too) and both images. Slices of 1200 voxels: the mask's words straddle them.
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{40, 30, 7}}, Real3{{0.2, 0.2, 0.3}}, Real3{{0, 0, 0}});
    size_type const n = g.num_voxels();
    std::vector<double> edep(n, 0.0), sigma(n, 0.0);
    std::vector<float> rho(n, 1.0f);
    std::vector<MaterialIndex> mat(n, 0);
    for (size_type v = 0; v < n; ++v)
    {
        if (v % 401 == 0 || (v > 3000 && v < 3300))
        {
            edep[v] = 1e-3 * double(v % 13 + 1);
            sigma[v] = 0.1 * edep[v];
        }
    }
    DoseGridData data =
        dose_grid_view(g, make_span(std::as_const(edep)), make_span(std::as_const(sigma)),
                       make_span(std::as_const(rho)), make_span(std::as_const(mat)));
    data.material_names = {"water"};
    RunMetadata meta = meta_;
    meta.source_particles = 2.5e9;
    write_dose_hdf5(path("plain.h5"), data, meta);
    write_dose_images(path("plain"), "mha", data, meta.source_particles);
    std::vector<std::uint64_t> const mask = energy_mask(data.edep_MeV);
    size_type empty_words = 0;
    for (std::uint64_t w : mask)
        empty_words += w == 0 ? 1 : 0;
    ASSERT_GT(empty_words, mask.size() / 2); // the masked fill is exercised
    data.has_energy = make_span(mask);
    write_dose_hdf5(path("masked.h5"), data, meta);
    write_dose_images(path("masked"), "mha", data, meta.source_particles);
    EXPECT_EQ(slurp(path("plain.h5")), slurp(path("masked.h5")));
    EXPECT_EQ(slurp(path("plain_dose.mha")), slurp(path("masked_dose.mha")));
    EXPECT_EQ(slurp(path("plain_uncertainty.mha")), slurp(path("masked_uncertainty.mha")));
    // And through the table of the voxels with energy (4 % of them).
    EnergyVoxelTable const table = energy_voxel_table(data);
    ASSERT_EQ(mask.size(), table.before.size());
    data.energy_table = &table;
    write_dose_hdf5(path("table.h5"), data, meta);
    write_dose_images(path("table"), "mha", data, meta.source_particles);
    EXPECT_EQ(slurp(path("plain.h5")), slurp(path("table.h5")));
    EXPECT_EQ(slurp(path("plain_dose.mha")), slurp(path("table_dose.mha")));
    EXPECT_EQ(slurp(path("plain_uncertainty.mha")), slurp(path("table_uncertainty.mha")));
}

// With a mask the fill asks for the values of the mask's voxels only and gives the others
// `empty`, over ranges that start and end inside a word, span several or none.
TEST(FillVoxelValuesTest, AsksOnlyForTheMasksVoxels)
{
    std::vector<double> edep(300, 0.0);
    for (size_type v : {0, 3, 63, 64, 65, 127, 128, 200, 255, 256, 299})
        edep[v] = 0.5 + double(v);
    for (size_type v = 140; v < 180; ++v)
        edep[v] = 1.0;
    std::vector<std::uint64_t> const mask = energy_mask(make_span(std::as_const(edep)));
    DoseGridData data;
    data.edep_MeV = make_span(std::as_const(edep));
    data.has_energy = make_span(mask);
    std::pair<size_type, size_type> const ranges[] = {{0, 300},   {5, 70}, {63, 65},  {64, 128},
                                                      {130, 131}, {7, 7},  {150, 299}};
    for (auto const& [begin, end] : ranges)
    {
        std::vector<double> out(end - begin, -1.0);
        size_type asked = 0;
        fill_voxel_values(data, begin, end, out.data(), 0.0,
                          [&](size_type v)
                          {
                              ++asked;
                              EXPECT_NE(0.0, edep[v]) << "asked for voxel " << v;
                              return 2 * edep[v];
                          });
        size_type with_energy = 0;
        for (size_type v = begin; v < end; ++v)
        {
            EXPECT_EQ(2 * edep[v], out[v - begin])
                << "voxel " << v << " of [" << begin << ", " << end << ")";
            with_energy += edep[v] != 0 ? 1 : 0;
        }
        EXPECT_EQ(with_energy, asked) << "[" << begin << ", " << end << ")";
    }
}

TEST_F(WritersTest, RunOutputsWritesWhatTheStudyAsks)
{
    OutputInput out;
    out.directory = path("results/sub");
    out.name = "case";
    out.image_format = ImageFormat::mha;
    out.lateral_profiles.push_back({0, geo_.voxel_centre_cm(Int3{{1, 1, 1}}), "px"});
    DepthDoseCurve const curve = depth_dose_from_batches(geo_, 2, {edep_, edep_});
    auto const written = write_run_outputs(out, data_, meta_, &curve);
    std::vector<std::string> const expected = {
        "case.h5",     "case_dose.mha",    "case_uncertainty.mha", "case_depth_dose.csv",
        "case_px.csv", "case_summary.json"};
    ASSERT_EQ(expected.size(), written.size());
    for (size_type i = 0; i < expected.size(); ++i)
    {
        EXPECT_EQ((fs::path(out.directory) / expected[i]).string(), written[i]);
        EXPECT_TRUE(fs::exists(written[i])) << written[i];
    }
    auto const summary = nlohmann::json::parse(slurp(written.back()));
    EXPECT_EQ(expected.size(), summary["outputs"].size());
    // Each writer's time, in the order written, in the summary.
    std::vector<std::string> steps;
    for (auto const& s : summary["timing"])
        steps.push_back(s["step"]);
    std::vector<std::string> const timed = {"hdf5", "images", "depth_dose_csv", "profile_csv px"};
    EXPECT_EQ(timed, steps);
}

TEST_F(WritersTest, RunOutputsFinishWhatWasStartedBeforehand)
{
    // The HDF5 file's grids and the images started beforehand (as beside the dose report),
    // then finished: every file, steps in order. Where the HDF5 file fails, the images
    // started beside it are removed too, and so are images whose outputs were abandoned.
    OutputInput out;
    out.directory = path("beside");
    out.name = "case";
    out.image_format = ImageFormat::mha;
    out.depth_dose = false;
    fs::create_directories(out.directory);
    auto started = std::make_unique<StartedOutputs>(out, data_, meta_);
    ASSERT_TRUE(started->hdf5());
    ASSERT_TRUE(started->has_images());
    auto const written = write_run_outputs(out, data_, meta_, nullptr, nullptr, started.get());
    std::vector<std::string> const expected = {"case.h5", "case_dose.mha", "case_uncertainty.mha",
                                               "case_summary.json"};
    ASSERT_EQ(expected.size(), written.size());
    for (size_type i = 0; i < expected.size(); ++i)
        EXPECT_TRUE(fs::exists(fs::path(out.directory) / expected[i])) << expected[i];
    auto const summary = nlohmann::json::parse(slurp(written.back()));
    std::vector<std::string> steps;
    for (auto const& st : summary["timing"])
        steps.push_back(st["step"]);
    EXPECT_EQ((std::vector<std::string>{"hdf5", "images"}), steps);

    out.directory = path("failed");
    fs::create_directories(fs::path(out.directory) / "case.h5"); // the file's place is taken
    auto failing = std::make_unique<StartedOutputs>(out, data_, meta_);
    EXPECT_THROW(write_run_outputs(out, data_, meta_, nullptr, nullptr, failing.get()),
                 RuntimeError);
    EXPECT_FALSE(fs::exists(fs::path(out.directory) / "case_dose.mha"));
    EXPECT_FALSE(fs::exists(fs::path(out.directory) / "case_uncertainty.mha"));
    EXPECT_FALSE(fs::exists(fs::path(out.directory) / "case_summary.json"));
    // Nor under their temporary names: only what took the file's place is there.
    EXPECT_EQ(1, std::distance(fs::directory_iterator(out.directory), fs::directory_iterator{}));

    // Started, then abandoned (the dose report failed): the images are staged, never
    // under their own names, and nothing is left.
    out.directory = path("abandoned");
    {
        StartedOutputs const abandoned(out, data_, meta_);
        EXPECT_FALSE(fs::exists(path("abandoned/case_dose.mha")));
    }
    EXPECT_FALSE(fs::exists(path("abandoned/case_dose.mha")));
    EXPECT_TRUE(fs::is_empty(out.directory));
}
} // namespace mcdose

namespace mcdose
{
TEST_F(WritersTest, FullDiskFailsCleanlyAndLeavesNoFile)
{
    // 40^3 voxels of incompressible values (several 100 kB per dataset)
    // against a 64 kB file-size limit: every writer must fail with a message,
    // leave no file, and the process must end normally (HDF5 shuts down at exit).
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{40, 40, 40}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
    size_type const n = g.num_voxels();
    std::vector<double> edep(n), sigma(n);
    std::vector<float> rho(n, 1.0f);
    std::vector<MaterialIndex> mat(n, 0);
    std::uint64_t x = 99;
    for (size_type v = 0; v < n; ++v)
    {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        edep[v] = double(x >> 11) * 1e-16;
        sigma[v] = 0.01 * edep[v];
    }
    DoseGridData data;
    data.geometry = g;
    data.edep_MeV = make_span(std::as_const(edep));
    data.edep_sigma_MeV = make_span(std::as_const(sigma));
    data.density_g_cm3 = make_span(std::as_const(rho));
    data.material = make_span(std::as_const(mat));
    data.material_names = {"water"};
    auto expect_clean_failure = [&](char const* what, auto&& write)
    {
        int const status = test::run_with_file_size_limit(64 * 1024,
                                                          [&]
                                                          {
                                                              try
                                                              {
                                                                  write();
                                                              }
                                                              catch (RuntimeError const&)
                                                              {
                                                                  return 0;
                                                              }
                                                              return 1;
                                                          });
        EXPECT_EQ(0, status) << what << " (" << status << ": 1 = no error, >128 = signal)";
        EXPECT_EQ(0u, files_in_dir()) << what << ": a file was left behind";
    };
    expect_clean_failure("hdf5", [&] { write_dose_hdf5(path("d.h5"), data, meta_); });
    expect_clean_failure("images", [&] { write_dose_images(path("d"), "mha", data, {}); });
}
} // namespace mcdose

namespace mcdose
{
TEST(RunTimingsTest, PartsTimedInsideAStepFollowWhatTheyLeaveOfIt)
{
    // A step whose parts were timed where they ran (the transport's batches and final
    // grids): the first name gets the rest, the parts keep their times, and together
    // they are the step's wall time.
    StepClock clock;
    clock.mark("before");
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    clock.mark_parts("setup", {{"batches", 0.010}, {"final", 0.005}});
    auto const& steps = clock.steps();
    ASSERT_EQ(4u, steps.size());
    EXPECT_EQ("setup", steps[1].step);
    EXPECT_EQ("batches", steps[2].step);
    EXPECT_EQ("final", steps[3].step);
    EXPECT_EQ(0.010, steps[2].seconds);
    EXPECT_EQ(0.005, steps[3].seconds);
    EXPECT_GE(steps[1].seconds + 0.015, 0.030);
    // Parts longer than the step (time from another process, e.g. resumed) leave 0, not less.
    clock.mark_parts("setup", {{"batches", 1e3}});
    EXPECT_EQ(0.0, clock.steps()[4].seconds);
}
} // namespace mcdose
