//! \file test/transport/engine/ScaleOut.test.cc
//! A distributed run's partition and reduction on the CPU: worker groups
//! (the multi-GPU path without GPUs) give the FX + Philox dose bitwise equal
//! to one group, and a run stopped at a batch boundary and resumed from its
//! checkpoint (with another group count) equals the uninterrupted run.
//! The MPI rank counts are tested by test/app/mpi_reproducibility.py.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "TestMacros.hh"
#include "core/Hash.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"
#include "transport/engine/Checkpoint.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
//! The study's pencil beam.
char const* const pencil_source = R"([{"type": "pencil", "particle": "photon", "energy_MeV": 6.0,
               "position_cm": [5, 5, -1], "direction": [0, 0, 1]}])";

//! The study; the batch method unless `uncertainty` says otherwise (the CPU backend's
//! default, history by history, runs on one worker group only).
std::string study_text(std::string const& generator, std::string const& method, int seed,
                       std::string const& sources = pencil_source,
                       std::string const& uncertainty = "batch")
{
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [5, 5, 12], "spacing_cm": [2, 2, 1], "origin_cm": [0, 0, 0.5]},
    "background": {"material": "water"},
    "shapes": [{"type": "slab", "material": "bone_cortical_icrp", "axis": "z", "from_cm": 4, "to_cm": 6}]},
  "sources": )" +
           sources + R"(,
  "rng": {"generator": ")" +
           generator + R"(", "seed": )" + std::to_string(seed) + R"(},
  "tally": {"method": ")" +
           method + R"(", "batches": 8, "uncertainty": ")" + uncertainty + R"("},
  "run": {"histories": 16000},
  "backend": "cpu",
  "outputs": {"directory": "unused", "name": "t", "image_format": "none"}
})";
}

StudyInput study_of(std::string const& text, fs::path const& dir)
{
    return parse_study(text, (dir / "study.json").string());
}

std::vector<double> read_dataset(fs::path const& file, char const* name)
{
    hid_t const f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0) << file;
    hid_t const d = H5Dopen2(f, name, H5P_DEFAULT);
    EXPECT_GE(d, 0) << name;
    hid_t const space = H5Dget_space(d);
    std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    return v;
}

std::string read_text(fs::path const& p)
{
    std::ifstream in(p);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

bool bitwise_equal(std::vector<double> const& a, std::vector<double> const& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

struct RunFiles
{
    std::vector<double> edep, dose, sigma;
    std::string depth_dose;
};

RunFiles files_of(fs::path const& dir)
{
    return {read_dataset(dir / "t.h5", "edep"), read_dataset(dir / "t.h5", "dose"),
            read_dataset(dir / "t.h5", "dose_uncertainty"), read_text(dir / "t_depth_dose.csv")};
}

StudyRunSummary run_into(StudyInput const& study, fs::path const& dir, int threads, int groups,
                         std::function<void(StudyRunOptions&)> const& more = {})
{
    StudyRunOptions opts;
    opts.cpu_threads = threads;
    opts.cpu_groups = groups;
    opts.output_dir = dir.string();
    if (more)
        more(opts);
    return run_study(study, opts);
}

class ScaleOutTest : public ::testing::Test
{
  protected:
    fs::path dir_;
    void SetUp() override
    {
        // One directory per test: ctest runs the cases of this file in parallel.
        dir_ = fs::temp_directory_path() /
               (std::string("mcdose_scaleout_") + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
};

TEST_F(ScaleOutTest, FxDoseIsBitwiseIndependentOfWorkerGroups)
{
    StudyInput const study = study_of(study_text("philox", "fx", 11), dir_);
    auto const s1 = run_into(study, dir_ / "g1", 2, 1);
    EXPECT_EQ(1u, s1.groups);
    // The CPU samples each source particle where its history starts.
    EXPECT_EQ(0, nlohmann::json::parse(read_text(dir_ / "g1" / "t_summary.json"))
                     .at("source_particles_sampled_ahead"));
    RunFiles const one = files_of(dir_ / "g1");
    for (int groups : {2, 3, 4})
    {
        auto const s = run_into(study, dir_ / ("g" + std::to_string(groups)), 4, groups);
        EXPECT_EQ(std::size_t(groups), s.groups);
        EXPECT_EQ(16000u, s.histories);
        // Every group's balance is counted once.
        EXPECT_NEAR(s1.balance.emitted_MeV, s.balance.emitted_MeV, 1e-9 * s1.balance.emitted_MeV);
        RunFiles const g = files_of(dir_ / ("g" + std::to_string(groups)));
        EXPECT_TRUE(bitwise_equal(one.edep, g.edep)) << groups << " groups";
        EXPECT_TRUE(bitwise_equal(one.dose, g.dose)) << groups << " groups";
        EXPECT_TRUE(bitwise_equal(one.sigma, g.sigma)) << groups << " groups";
        EXPECT_EQ(one.depth_dose, g.depth_dose) << groups << " groups";
    }
}

// Several batches per launch, each into its own batch grid (what a GPU run
// does to spare short batches a kernel's tail each): a history's batch is
// fixed by its index, so dose, sigma and the depth dose (per-batch slab sums)
// are bitwise those of one batch per launch, also for a run stopped inside a
// launch's batches and resumed with another launch size.
TEST_F(ScaleOutTest, FxDoseIsBitwiseIndependentOfBatchesPerLaunch)
{
    StudyInput const study = study_of(study_text("philox", "fx", 13), dir_);
    auto per_launch = [](std::uint64_t k)
    { return [k](StudyRunOptions& o) { o.batches_per_launch = k; }; };
    run_into(study, dir_ / "k1", 2, 1, per_launch(1));
    RunFiles const one = files_of(dir_ / "k1");
    for (std::uint64_t k : {3u, 8u, 100u})
    {
        fs::path const out = dir_ / ("k" + std::to_string(k));
        auto const s = run_into(study, out, 2, 1, per_launch(k));
        EXPECT_EQ(16000u, s.histories);
        RunFiles const f = files_of(out);
        EXPECT_TRUE(bitwise_equal(one.edep, f.edep)) << k << " batches per launch";
        EXPECT_TRUE(bitwise_equal(one.sigma, f.sigma)) << k << " batches per launch";
        EXPECT_EQ(one.depth_dose, f.depth_dose) << k << " batches per launch";
    }
    // Stopped after the first launch of 3 batches, resumed 2 per launch.
    fs::path const ck = dir_ / "run.ckpt";
    auto const first =
        run_into(study, dir_ / "part", 2, 1,
                 [&](StudyRunOptions& o)
                 {
                     o.batches_per_launch = 3;
                     o.checkpoint_path = ck.string();
                     o.on_batch = [](TransportProgress const& p) { return p.batches_done < 2; };
                 });
    EXPECT_EQ(6000u, first.histories); // the launch of batches 0-2 ran whole
    auto const second = run_into(study, dir_ / "resumed", 2, 1,
                                 [&](StudyRunOptions& o)
                                 {
                                     o.batches_per_launch = 2;
                                     o.resume_path = ck.string();
                                 });
    EXPECT_EQ(3u, second.resumed_batches);
    RunFiles const resumed = files_of(dir_ / "resumed");
    EXPECT_TRUE(bitwise_equal(one.edep, resumed.edep));
    EXPECT_TRUE(bitwise_equal(one.sigma, resumed.sigma));
    EXPECT_EQ(one.depth_dose, resumed.depth_dose);
}

// The same on a GPU: the kernel deposits each history into its batch's grid
// and the device folds only the strips a batch touched.
TEST_F(ScaleOutTest, GpuFxDoseIsBitwiseIndependentOfBatchesPerLaunch)
{
    MCDOSE_SKIP_IF_NO_GPU();
    StudyInput const study = study_of(study_text("philox", "fx", 17), dir_);
    auto on_gpu = [](std::uint64_t k)
    {
        return [k](StudyRunOptions& o)
        {
            o.backend = Backend::gpu;
            o.batches_per_launch = k;
        };
    };
    run_into(study, dir_ / "k1", 2, 1, on_gpu(1));
    run_into(study, dir_ / "k8", 2, 1, on_gpu(8));
    RunFiles const one = files_of(dir_ / "k1"), eight = files_of(dir_ / "k8");
    EXPECT_TRUE(bitwise_equal(one.edep, eight.edep));
    EXPECT_TRUE(bitwise_equal(one.sigma, eight.sigma));
    EXPECT_EQ(one.depth_dose, eight.depth_dose);
}

// Source particles sampled ahead of the transport by a kernel of their own (a beam with a
// spectrum and a point source, so every history's particle takes random numbers): the
// same dose bit for bit as each thread sampling its own, also when a launch's histories
// are sampled and transported in several pieces.
TEST_F(ScaleOutTest, GpuFxDoseIsBitwiseIndependentOfSourceSamplingAhead)
{
    MCDOSE_SKIP_IF_NO_GPU();
    std::string const sources = R"([
      {"type": "beam", "particle": "photon", "isocentre_cm": [5, 5, 6], "sad_cm": 100,
       "jaws_cm": {"x1": -2, "x2": 3, "y1": -3, "y2": 2}, "weight": 3,
       "spectrum": {"edges_MeV": [0.5, 2, 6], "weights": [2, 1], "lines_MeV": [1.25],
                    "line_weights": [1]}},
      {"type": "point", "particle": "electron", "energy_MeV": 4, "position_cm": [5, 5, -95],
       "direction": [0, 0, 1], "field": {"shape": "circle", "diameter_cm": 4, "distance_cm": 100}}])";
    std::string const text = study_text("philox", "fx", 19, sources);
    StudyInput const study = study_of(text, dir_);
    auto on_gpu = [](std::uint64_t ahead, std::uint64_t per_launch)
    {
        return [ahead, per_launch](StudyRunOptions& o)
        {
            o.backend = Backend::gpu;
            o.source_particles_ahead = ahead;
            o.batches_per_launch = per_launch;
        };
    };
    EXPECT_EQ(0u, run_into(study, dir_ / "inline", 2, 1, on_gpu(0, 8)).source_particles_ahead);
    RunFiles const in_place = files_of(dir_ / "inline");
    for (auto [ahead, per_launch] :
         {std::pair<std::uint64_t, std::uint64_t>{1u << 22, 8}, {3000, 8}, {2500, 1}})
    {
        fs::path const out =
            dir_ / ("ahead" + std::to_string(ahead) + "_" + std::to_string(per_launch));
        // Every history's particle sampled ahead, each launch once.
        EXPECT_EQ(16000u,
                  run_into(study, out, 2, 1, on_gpu(ahead, per_launch)).source_particles_ahead);
        EXPECT_EQ(16000, nlohmann::json::parse(read_text(out / "t_summary.json"))
                             .at("source_particles_sampled_ahead"));
        RunFiles const f = files_of(out);
        EXPECT_TRUE(bitwise_equal(in_place.edep, f.edep)) << ahead << ", " << per_launch;
        EXPECT_TRUE(bitwise_equal(in_place.sigma, f.sigma)) << ahead << ", " << per_launch;
        EXPECT_EQ(in_place.depth_dose, f.depth_dose) << ahead << ", " << per_launch;
    }
}

// Per-thread engines get distinct streams per group: with two groups the
// dose differs from one group's (no group replays another's numbers) but
// agrees within the uncertainty.
TEST_F(ScaleOutTest, PerThreadEnginesGetDistinctStreamsPerGroup)
{
    StudyInput const study = study_of(study_text("hybrid-taus", "fx", 3), dir_);
    run_into(study, dir_ / "g1", 2, 1);
    run_into(study, dir_ / "g2", 2, 2);
    RunFiles const a = files_of(dir_ / "g1"), b = files_of(dir_ / "g2");
    EXPECT_FALSE(bitwise_equal(a.edep, b.edep));
    double sa = 0, sb = 0;
    for (std::size_t i = 0; i < a.edep.size(); ++i)
    {
        sa += a.edep[i];
        sb += b.edep[i];
    }
    // Total deposit per history: the run-to-run spread of a 16000-history
    // mean is far below 5 % for 6 MeV photons in 12 cm of water and bone.
    EXPECT_NEAR(sa, sb, 0.05 * sa);
}

TEST_F(ScaleOutTest, ResumedRunIsBitwiseTheUninterruptedRun)
{
    StudyInput const study = study_of(study_text("philox", "fx", 21), dir_);
    run_into(study, dir_ / "full", 2, 1);
    RunFiles const full = files_of(dir_ / "full");

    // Stop after 3 of 8 batches (as Ctrl-C would), writing a checkpoint.
    fs::path const ck = dir_ / "run.ckpt";
    auto const first =
        run_into(study, dir_ / "part", 2, 1,
                 [&](StudyRunOptions& o)
                 {
                     o.checkpoint_path = ck.string();
                     o.on_batch = [](TransportProgress const& p) { return p.batches_done < 3; };
                 });
    EXPECT_FALSE(first.complete);
    EXPECT_EQ(6000u, first.histories); // 3 batches of 2000
    ASSERT_TRUE(fs::exists(ck));
    auto const saved = deserialize_checkpoint(read_checkpoint_bytes(ck.string()), ck.string());
    EXPECT_EQ(3u, saved.batches_done);
    EXPECT_FALSE(saved.finished);
    EXPECT_EQ(3u, saved.batch_digests.size());

    // Resume with a different split (3 worker groups): same histories, same dose.
    auto const second = run_into(study, dir_ / "resumed", 3, 3,
                                 [&](StudyRunOptions& o)
                                 {
                                     o.resume_path = ck.string();
                                     o.checkpoint_path = ck.string();
                                 });
    EXPECT_TRUE(second.complete);
    EXPECT_EQ(16000u, second.histories);
    EXPECT_EQ(3u, second.resumed_batches);
    // Energy bookkeeping spans both segments.
    EXPECT_NEAR(16000 * 6.0, second.balance.emitted_MeV, 1e-6);
    RunFiles const resumed = files_of(dir_ / "resumed");
    EXPECT_TRUE(bitwise_equal(full.edep, resumed.edep));
    EXPECT_TRUE(bitwise_equal(full.dose, resumed.dose));
    EXPECT_TRUE(bitwise_equal(full.sigma, resumed.sigma));
    EXPECT_EQ(full.depth_dose, resumed.depth_dose);
    EXPECT_TRUE(deserialize_checkpoint(read_checkpoint_bytes(ck.string()), ck.string()).finished);
}

// History by history (the CPU default): a run stopped after 3 of 8 batches and resumed
// on 3 worker groups (their squares summed per batch) gives the uninterrupted one-group
// run's dose, sigma and depth dose bit for bit (FX: integer sums of words and squares),
// as does an uninterrupted run on 2 groups.
TEST_F(ScaleOutTest, HistoryByHistoryIsBitwiseIndependentOfGroupsAndResume)
{
    StudyInput const study = study_of(study_text("philox", "fx", 23, pencil_source, "auto"), dir_);
    run_into(study, dir_ / "full", 2, 1);
    RunFiles const full = files_of(dir_ / "full");
    fs::path const ck = dir_ / "run.ckpt";
    run_into(study, dir_ / "part", 2, 1,
             [&](StudyRunOptions& o)
             {
                 o.checkpoint_path = ck.string();
                 o.on_batch = [](TransportProgress const& p) { return p.batches_done < 3; };
             });
    auto const second = run_into(study, dir_ / "resumed", 3, 3,
                                 [&](StudyRunOptions& o) { o.resume_path = ck.string(); });
    EXPECT_TRUE(second.complete);
    EXPECT_EQ(3u, second.resumed_batches);
    run_into(study, dir_ / "groups", 2, 2);
    EXPECT_NE(std::string::npos, full.depth_dose.find("\n0,")) << "no depth dose written";
    for (char const* other : {"resumed", "groups"})
    {
        SCOPED_TRACE(other);
        RunFiles const o = files_of(dir_ / other);
        EXPECT_TRUE(bitwise_equal(full.edep, o.edep));
        EXPECT_TRUE(bitwise_equal(full.sigma, o.sigma));
        EXPECT_EQ(full.depth_dose, o.depth_dose);
    }
    std::ifstream summary(dir_ / "groups" / "t_summary.json");
    EXPECT_EQ("history by history", nlohmann::json::parse(summary).at("uncertainty_method"));
}

TEST_F(ScaleOutTest, MismatchedOrDamagedCheckpointIsRefused)
{
    fs::path const ck = dir_ / "run.ckpt";
    StudyInput const study = study_of(study_text("philox", "fx", 21), dir_);
    run_into(study, dir_ / "a", 2, 1,
             [&](StudyRunOptions& o)
             {
                 o.checkpoint_path = ck.string();
                 o.on_batch = [](TransportProgress const& p) { return p.batches_done < 2; };
             });
    auto expect_refused = [&](StudyInput const& s, std::string const& needle,
                              std::function<void(StudyRunOptions&)> more)
    {
        try
        {
            run_into(s, dir_ / "b", 2, 1,
                     [&](StudyRunOptions& o)
                     {
                         o.resume_path = ck.string();
                         if (more)
                             more(o);
                     });
            ADD_FAILURE() << "resume accepted; expected an error containing '" << needle << "'";
        }
        catch (RuntimeError const& e)
        {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    // Another seed: a different study text.
    expect_refused(study_of(study_text("philox", "fx", 22), dir_), "different study or options",
                   {});
    // Same study, other history count: the driver's part of the fingerprint.
    expect_refused(study, "histories=16000", [](StudyRunOptions& o) { o.histories = 20000; });

    std::string bytes = read_checkpoint_bytes(ck.string());
    bytes.resize(bytes.size() / 2);
    std::ofstream(ck, std::ios::binary) << bytes;
    expect_refused(study, "truncated or corrupt", {});
    std::ofstream(ck, std::ios::binary) << "not a checkpoint";
    expect_refused(study, "is not an mcdose checkpoint", {});
}

// Empty arrays read back (no memcpy to an empty vector's null data()); an array count so large
// that count * 8 wraps around is refused as corrupt, with a valid checksum over it.
TEST_F(ScaleOutTest, CheckpointEmptyArraysReadBackAndAWrappingCountIsRefused)
{
    TransportCheckpoint ck;
    ck.fingerprint = "x";
    ck.batches_done = 1;
    ck.histories_done = 5;
    ck.tally.batches = 1;
    ck.tally.histories = 5;
    ck.tally.min_batch_histories = ck.tally.max_batch_histories = 5;
    ck.tally.reference_batch_histories = 5;
    ck.batch_digests.emplace_back();
    std::string bytes = serialize_checkpoint(ck);
    TransportCheckpoint const back = deserialize_checkpoint(bytes, "empty.ckpt");
    EXPECT_TRUE(back.tally.total_hi.empty());
    EXPECT_TRUE(back.tally.history_sum_sq.empty());
    ASSERT_EQ(1u, back.batch_digests.size());
    EXPECT_TRUE(back.batch_digests[0].empty());

    // The count of tally.total_hi follows the magic line, the fingerprint (length + text),
    // batches_done, histories_done, finished (1 byte) and transport_time_s.
    std::size_t const at = std::strlen("MCDOSE-CHECKPOINT 4\n") + 8 + 1 + 8 + 8 + 1 + 8;
    std::uint64_t const wraps = (std::uint64_t(1) << 61) + 1; // * 8 == 8 modulo 2^64
    std::memcpy(&bytes[at], &wraps, sizeof wraps);
    std::size_t const body = bytes.size() - sizeof(std::uint64_t);
    std::uint64_t const sum = fnv1a64(std::string_view(bytes).substr(0, body));
    std::memcpy(&bytes[body], &sum, sizeof sum);
    try
    {
        deserialize_checkpoint(bytes, "wrapped.ckpt");
        ADD_FAILURE() << "a count of 2^61 + 1 doubles was accepted";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("truncated or corrupt"), std::string::npos)
            << e.what();
    }
}
} // namespace
} // namespace mcdose::test
