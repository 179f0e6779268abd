//! run_study end to end on the CPU: a fixed-history run and a run to a target
//! uncertainty, with the files a user gets.
#include "study/StudyRunner.hh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "dose/DoseData.hh"
#include "study/StudyInput.hh"
#include "validation/DepthDoseComparison.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
struct DoseResultLike
{
    std::vector<double> edep, sigma;
    double deposited_MeV{0};
};

DoseResultLike read_curve(std::string const& path)
{
    auto const c = read_depth_dose_csv(path);
    return {c.edep_MeV, c.edep_sigma_MeV, 0};
}

std::string study_text(std::string const& run, std::string const& out_dir)
{
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [1, 1, 20], "spacing_cm": [20, 20, 1], "origin_cm": [0, 0, 0.5]},
    "background": {"material": "water"}},
  "sources": [{"type": "pencil", "particle": "photon", "energy_MeV": 1.0,
               "position_cm": [0, 0, -1], "direction": [0, 0, 1]}],
  "rng": {"generator": "philox", "seed": 5},
  "tally": {"method": "fx", "batches": 10},
  "run": )" +
           run + R"(,
  "backend": "cpu",
  "outputs": {"directory": ")" +
           out_dir + R"(", "name": "t", "image_format": "none"}
})";
}
} // namespace

TEST(StudyRunTest, FixedHistoriesWritesOutputsAndClosesBalance)
{
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_studyrun_fixed_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    StudyInput const study = parse_study(study_text(R"({"histories": 20000})", dir.string()),
                                         (dir / "study.json").string());
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    std::vector<std::uint64_t> mask, expected;
    opts.on_dose = [&](DoseGridData const& d, StudyInput const&)
    {
        mask.assign(d.has_energy.begin(), d.has_energy.end());
        expected = energy_mask(d.edep_MeV);
    };
    auto const s = run_study(study, opts);
    // The run's dose data carry the mask of its voxels with energy.
    ASSERT_FALSE(mask.empty());
    EXPECT_EQ(expected, mask);
    EXPECT_EQ(20000u, s.histories);
    EXPECT_TRUE(s.complete);
    EXPECT_EQ("cpu", s.backend);
    EXPECT_LT(std::fabs(s.balance.relative_imbalance()), 1e-9);
    EXPECT_TRUE(fs::exists(dir / "t.h5"));
    EXPECT_TRUE(fs::exists(dir / "t_depth_dose.csv"));
    EXPECT_TRUE(fs::exists(dir / "t_summary.json"));
    // The transport step in its parts, in order: set-up, this process's batches, final grids.
    std::vector<std::string> names;
    double batches_s = -1;
    for (StepTime const& t : s.steps)
    {
        names.push_back(t.step);
        if (t.step == "transport")
            batches_s = t.seconds;
    }
    auto const setup = std::find(names.begin(), names.end(), "transport_setup");
    ASSERT_NE(names.end(), setup);
    ASSERT_LE(setup + 2, names.end() - 1);
    EXPECT_EQ("transport", *(setup + 1));
    EXPECT_EQ("final_grids", *(setup + 2));
    EXPECT_EQ(s.transport_time_s, batches_s); // not resumed: all its batches ran here
    fs::remove_all(dir);
}

TEST(StudyRunTest, TargetUncertaintyStopsWhenReached)
{
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_studyrun_target_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    StudyInput const study = parse_study(
        study_text(R"({"target_uncertainty": 0.02, "batch_histories": 2000, "time_limit_s": 60})",
                   dir.string()),
        (dir / "study.json").string());
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    auto const s = run_study(study, opts);
    ASSERT_TRUE(s.uncertainty_reached.has_value());
    EXPECT_LE(*s.uncertainty_reached, 0.02);
    EXPECT_GE(s.histories, 10u * 2000u); // at least 10 batches before stopping
    EXPECT_EQ(0u, s.histories % 2000u);
    EXPECT_TRUE(s.complete);
    std::ifstream summary(dir / "t_summary.json");
    std::string const text((std::istreambuf_iterator<char>(summary)), {});
    EXPECT_NE(text.find("target_uncertainty"), std::string::npos) << text;
    fs::remove_all(dir);
}

TEST(StudyRunTest, ElectronSourceRunsWithCondensedHistory)
{
    std::string text = study_text(R"({"histories": 400})", "/tmp");
    text.replace(text.find("\"photon\""), 8, "\"electron\"");
    StudyInput const study = parse_study(text, "/tmp/study.json");
    StudyRunOptions opts;
    opts.write_outputs = false;
    auto const s = run_study(study, opts);
    EXPECT_EQ(400u, s.histories);
    EXPECT_LT(std::fabs(s.balance.relative_imbalance()), 1e-9);
    EXPECT_GT(s.balance.deposited_MeV, 0);
}

// A volume source of electrons in lung inside water, with a line spectrum from a file and
// bremsstrahlung photons discarded: emitted = deposited + escaped (the discarded photons
// count as escaped), the emitted energy is the spectrum's mean, and particles start only
// in the lung (the dose outside it, beyond the electrons' range, is 0).
TEST(StudyRunTest, VolumeSourceClosesTheEnergyBalance)
{
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_studyrun_volume_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "lines.csv") << "energy_MeV,weight\n0.5,1\n1.5,3\n";
    std::string const text = R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [1, 1, 40], "spacing_cm": [40, 40, 0.5], "origin_cm": [0, 0, 0.25]},
    "background": {"material": "water"},
    "shapes": [{"type": "slab", "axis": "z", "from_cm": 8, "to_cm": 12,
                "material": "lung_icrp", "density_g_cm3": 0.26}]},
  "sources": [{"type": "volume", "particle": "electron", "spectrum_file": "lines.csv",
               "emission": "per_mass", "material": "lung_icrp"}],
  "physics": {"bremsstrahlung_photons": "discard"},
  "rng": {"generator": "philox", "seed": 3},
  "tally": {"method": "fx", "batches": 10},
  "run": {"histories": 20000},
  "backend": "cpu",
  "outputs": {"directory": ")" +
                             dir.string() +
                             R"(", "name": "v", "image_format": "none"}
})";
    StudyInput const study = parse_study(text, (dir / "study.json").string());
    ASSERT_EQ(study.sources.at(0).spectrum->lines_MeV.size(), 2u);
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    auto const s = run_study(study, opts);
    EXPECT_LT(std::fabs(s.balance.relative_imbalance()), 1e-9);
    double const mean = (0.5 * 1 + 1.5 * 3) / 4.0;
    // Binomial: 20000 draws of 0.5 or 1.5 MeV (sd 0.433 per draw): 4 sigma.
    EXPECT_NEAR(s.balance.emitted_MeV / 20000, mean, 4 * 0.433 / std::sqrt(20000.0));
    auto const curve = read_curve((dir / "v_depth_dose.csv").string());
    double inside = 0, outside = 0;
    for (std::size_t k = 0; k < curve.edep.size(); ++k)
    {
        double const z = 0.5 * k + 0.25;
        // 1.5 MeV electrons reach 0.8 cm into water (CSDA range 0.72 g/cm^2).
        (z > 7 && z < 13 ? inside : outside) += curve.edep[k];
    }
    EXPECT_GT(inside, 0);
    EXPECT_EQ(outside, 0);
    fs::remove_all(dir);
}

// Several sources: each history draws one with probability proportional to
// its weight (or to its 'particles' when every source gives them): a 1 MeV
// photon (weight 1) and a 2 MeV electron (weight 3) emit 1.75 MeV per history
// on average (binomial 4-sigma bound); 'particles' 100 and 300 select exactly
// as weights 1 and 3 (same random numbers, same result up to the order of
// the per-thread sums).
TEST(StudyRunTest, SeveralSourcesAreMixedByWeightOrParticles)
{
    StudyInput study = parse_study(study_text(R"({"histories": 4000})", "/tmp"), "/tmp/s.json");
    SourceInput electron = study.sources.front();
    electron.particle = ParticleType::electron;
    electron.energy_MeV = 2.0;
    electron.weight = 3;
    electron.pointer = "/sources/1";
    study.sources.push_back(electron);
    StudyRunOptions opts;
    opts.write_outputs = false;
    auto const by_weight = run_study(study, opts);
    double const mean = by_weight.balance.emitted_MeV / 4000;
    EXPECT_NEAR(1.75, mean, 4 * std::sqrt(0.75 * 0.25 / 4000));
    EXPECT_LT(std::fabs(by_weight.balance.relative_imbalance()), 1e-9);

    study.sources[0].particles = 100;
    study.sources[1].particles = 300;
    study.sources[0].weight = 7; // ignored when particles are given
    auto const by_particles = run_study(study, opts);
    EXPECT_EQ(by_weight.balance.emitted_MeV, by_particles.balance.emitted_MeV);
    // (per-thread double sums are added in scheduling order: equal to rounding)
    EXPECT_NEAR(by_weight.balance.deposited_MeV, by_particles.balance.deposited_MeV,
                1e-9 * by_weight.balance.deposited_MeV);

    study.sources[1].particles.reset();
    try
    {
        run_study(study, opts);
        FAIL() << "'particles' on only some sources must be refused";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("give it for every source"), std::string::npos)
            << e.what();
    }
}

TEST(StudyRunTest, ElectronSourceWithLocalDepositionIsRefusedClearly)
{
    std::string text = study_text(R"({"histories": 10})", "/tmp");
    text.replace(text.find("\"photon\""), 8, "\"electron\"");
    StudyInput study = parse_study(text, "/tmp/study.json");
    study.physics.transport.electron.condensed_history = false;
    try
    {
        run_study(study, {});
        FAIL() << "electron sources need condensed history";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("electron_transport"), std::string::npos) << e.what();
    }
}
} // namespace mcdose::test

namespace mcdose::test
{
// The same study on the CPU threads and in the persistent GPU kernel: depth
// doses agree within 4 combined batch sigma in every slab and the totals
// within 4 sigma (host and device libm differ, so the streams diverge: the
// agreement is statistical, not bitwise).
void expect_host_and_device_agree(std::string const& name, std::string const& study_json)
{
    fs::path const dir = fs::temp_directory_path() /
                         ("mcdose_studyrun_hostdev_" + name + "_" + std::to_string(::getpid()));
    std::vector<DoseResultLike> runs;
    for (Backend b : {Backend::cpu, Backend::gpu})
    {
        fs::remove_all(dir);
        fs::create_directories(dir);
        StudyInput study = parse_study(study_json, (dir / "study.json").string());
        study.backend = b;
        study.outputs.directory = dir.string();
        StudyRunOptions opts;
        opts.cpu_threads = 2;
        auto const s = run_study(study, opts);
        ASSERT_EQ(b == Backend::gpu ? "gpu" : "cpu", s.backend);
        // The ledger is kept in double; single-precision transport rounds each
        // loss and its deposit separately (float ulps per step). Measured for
        // the mixed single-precision study: 2.4e-9 (CPU), 1.7e-9 (H100).
        double const closure = study.physics.precision == Precision::double_ ? 1e-9 : 1e-7;
        EXPECT_LT(std::fabs(s.balance.relative_imbalance()), closure);
        runs.push_back(read_curve((dir / "t_depth_dose.csv").string()));
        runs.back().deposited_MeV = s.balance.deposited_MeV / s.histories;
    }
    ASSERT_EQ(runs[0].edep.size(), runs[1].edep.size());
    for (std::size_t i = 0; i < runs[0].edep.size(); ++i)
    {
        double const s = std::hypot(runs[0].sigma[i], runs[1].sigma[i]);
        EXPECT_NEAR(runs[0].edep[i], runs[1].edep[i], 4 * s) << "slab " << i;
    }
    // Slab sigmas are positively correlated, so their quadrature sum
    // underestimates the total's sigma: bound it by the linear sum instead.
    double lin = 0;
    for (std::size_t i = 0; i < runs[0].edep.size(); ++i)
        lin += std::hypot(runs[0].sigma[i], runs[1].sigma[i]);
    EXPECT_NEAR(runs[0].deposited_MeV, runs[1].deposited_MeV, 4 * lin);
    fs::remove_all(dir);
}

// With release_gpus the GPU is released beside the outputs: the same energy and sigma bit
// for bit (FX, Philox) as a run that keeps it, and the next run starts it again.
TEST(StudyRunDeviceTest, ReleasedGpuGivesTheSameDoseAndServesTheNextRun)
{
    MCDOSE_SKIP_IF_NO_GPU();
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_studyrun_release_" + std::to_string(::getpid()));
    std::vector<std::vector<double>> edep, sigma;
    for (bool release : {true, false, true})
    {
        fs::remove_all(dir);
        StudyInput study = parse_study(study_text(R"({"histories": 20000})", dir.string()),
                                       (dir / "study.json").string());
        study.backend = Backend::gpu;
        StudyRunOptions opts;
        opts.release_gpus = release;
        opts.on_dose = [&](DoseGridData const& d, StudyInput const&)
        {
            edep.emplace_back(d.edep_MeV.begin(), d.edep_MeV.end());
            sigma.emplace_back(d.edep_sigma_MeV.begin(), d.edep_sigma_MeV.end());
        };
        auto const s = run_study(study, opts);
        EXPECT_EQ("gpu", s.backend);
        EXPECT_EQ(20000u, s.histories);
        EXPECT_TRUE(fs::exists(dir / "t_summary.json")) << "release " << release;
    }
    ASSERT_EQ(3u, edep.size());
    EXPECT_GT(*std::max_element(edep[0].begin(), edep[0].end()), 0.0);
    for (int r : {1, 2})
    {
        EXPECT_EQ(edep[0], edep[r]) << "run " << r;
        EXPECT_EQ(sigma[0], sigma[r]) << "run " << r;
    }
    fs::remove_all(dir);
}

TEST(StudyRunDeviceTest, HostAndDeviceAgree)
{
    MCDOSE_SKIP_IF_NO_GPU();
    fs::path const dir = fs::temp_directory_path() /
                         ("mcdose_studyrun_hostdev_photons_" + std::to_string(::getpid()));
    expect_host_and_device_agree("photons", study_text(R"({"histories": 200000})", dir.string()));
}

// Condensed history on both backends, with three sources (each history draws
// one by weight: electrons, positrons, photons) on water with a bone slab, in
// single precision as the examples run.
TEST(StudyRunDeviceTest, HostAndDeviceAgreeForMixedChargedSources)
{
    MCDOSE_SKIP_IF_NO_GPU();
    expect_host_and_device_agree("mixed", R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [5, 5, 20], "spacing_cm": [1, 1, 0.5], "origin_cm": [-2, -2, 0.25]},
    "background": {"material": "water"},
    "shapes": [{"type": "slab", "axis": "z", "from_cm": 2, "to_cm": 3,
                "material": "bone_cortical_icrp", "density_g_cm3": 1.85}]},
  "sources": [
    {"type": "pencil", "particle": "electron", "energy_MeV": 6, "weight": 2,
     "position_cm": [0, 0, -1], "direction": [0, 0, 1]},
    {"type": "pencil", "particle": "positron", "energy_MeV": 3, "weight": 1,
     "position_cm": [0.3, 0, -1], "direction": [0, 0, 1]},
    {"type": "pencil", "particle": "photon", "energy_MeV": 2, "weight": 1,
     "position_cm": [0, 0.3, -1], "direction": [0, 0, 1]}],
  "physics": {"precision": "single"},
  "rng": {"generator": "philox", "seed": 11},
  "tally": {"method": "hb", "batches": 10},
  "run": {"histories": 100000},
  "backend": "cpu",
  "outputs": {"directory": "unused", "name": "t", "image_format": "none", "depth_axis": "z"}
})");
}
} // namespace mcdose::test

namespace mcdose::test
{
// The CAS-loop methods deposit through a per-block cache of hot voxels in the
// GPU kernel (tally/BlockTallyCache.hh). With Philox keyed by history each
// history makes the same deposits whatever the tally method, so the depth
// doses of CAS and WAG must equal HB's to double rounding (summation order)
// and KAS's to its float-pair bound; on 500 voxels (direct cache) and on
// 4096 voxels (more than the 2048 slots: hashed; misses to the grid are
// covered by TallyDeviceTest.BlockCacheExactOnDivergentPatterns).
TEST(StudyRunDeviceTest, BlockCachedTallyMethodsMatchHardwareDouble)
{
    MCDOSE_SKIP_IF_NO_GPU();
    for (
        std::string const grid :
        {R"("dimensions": [5, 5, 20], "spacing_cm": [1, 1, 0.5], "origin_cm": [-2, -2, 0.25])",
         R"("dimensions": [16, 16, 16], "spacing_cm": [0.5, 0.5, 0.5], "origin_cm": [-3.75, -3.75, 0.25])"})
    {
        fs::path const dir = fs::temp_directory_path() /
                             ("mcdose_studyrun_blockcache_" + std::to_string(::getpid()));
        std::vector<DoseResultLike> runs;
        std::vector<std::string> const methods{"hb", "cas", "wag", "kas"};
        for (std::string const& method : methods)
        {
            fs::remove_all(dir);
            fs::create_directories(dir);
            std::string const text = R"({
  "phantom": {"type": "shapes", "grid": {)" +
                                     grid + R"(},
    "background": {"material": "water"}, "shapes": []},
  "sources": [{"type": "pencil", "particle": "electron", "energy_MeV": 6,
     "position_cm": [0, 0, -1], "direction": [0, 0, 1]}],
  "physics": {"precision": "double"},
  "rng": {"generator": "philox", "seed": 5},
  "tally": {"method": ")" + method + R"(", "batches": 2},
  "run": {"histories": 20000},
  "backend": "gpu",
  "outputs": {"directory": ")" + dir.string() +
                                     R"(", "name": "t", "image_format": "none",
              "depth_axis": "z"}
})";
            StudyInput const study = parse_study(text, (dir / "study.json").string());
            auto const s = run_study(study, {});
            ASSERT_EQ("gpu", s.backend);
            runs.push_back(read_curve((dir / "t_depth_dose.csv").string()));
        }
        for (std::size_t m = 1; m < methods.size(); ++m)
        {
            ASSERT_EQ(runs[0].edep.size(), runs[m].edep.size());
            // The CSV keeps 10 significant digits; KAS: Kahan float pair.
            double const rel = methods[m] == "kas" ? 1e-6 : 1e-9;
            for (std::size_t i = 0; i < runs[0].edep.size(); ++i)
                EXPECT_NEAR(runs[0].edep[i], runs[m].edep[i], rel * runs[0].edep[i])
                    << methods[m] << " slab " << i;
        }
        fs::remove_all(dir);
    }
}
} // namespace mcdose::test
