//! Phase spaces through whole runs on the CPU: a plane's crossings written and
//! read back as a source (the same dose as the pencil beam they came from),
//! weights, recycling, reproducibility, skipped types, the example studies, and
//! bad input refused before transport with no output written.
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "RunCommand.hh"
#include "StudyFixture.hh"
#include "TestMacros.hh"
#include "core/Constants.hh"
#include "dose/DoseReader.hh"
#include "io/InputError.hh"
#include "io/McplFile.hh"
#include "study/StudyRunner.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
//! Water, 3 x 3 x 10 cm in 1 cm voxels: x, y in [-1.5, 1.5], z in [0, 10].
nlohmann::json study_json(nlohmann::json const& source, std::string const& out,
                          std::string const& name)
{
    nlohmann::json j = nlohmann::json::parse(R"({
      "phantom": {"type": "shapes",
                  "grid": {"dimensions": [3, 3, 10], "spacing_cm": [1, 1, 1],
                           "origin_cm": [-1, -1, 0.5]},
                  "background": {"material": "water"}},
      "rng": {"generator": "philox", "seed": 7},
      "tally": {"method": "fx", "batches": 5},
      "backend": "cpu"})");
    j["sources"] = nlohmann::json::array({source});
    j["outputs"] = {{"directory", out}, {"name", name}, {"image_format", "none"}};
    return j;
}

nlohmann::json pencil(double z, double energy = 1.25)
{
    return {{"type", "pencil"},
            {"particle", "photon"},
            {"energy_MeV", energy},
            {"position_cm", {0.25, -0.25, z}},
            {"direction", {0, 0, 1}}};
}

std::string slurp(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

//! The particles of an MCPL file: PDG code, energy, position, direction, weight.
std::vector<std::array<double, 9>> particles(std::string const& path)
{
    std::vector<std::array<double, 9>> all;
    McplReader r(path);
    McplParticle p;
    while (r.read(p))
    {
        all.push_back({double(p.pdg_code), p.energy_MeV, p.position_cm[0], p.position_cm[1],
                       p.position_cm[2], p.direction[0], p.direction[1], p.direction[2], p.weight});
    }
    return all;
}
} // namespace

class PhaseSpaceRunTest : public StudyFixture
{
  protected:
    void SetUp() override
    {
        if (!mcpl_available())
            GTEST_SKIP() << "built without MCPL";
        StudyFixture::SetUp();
    }

    StudyRunSummary run(nlohmann::json const& j, std::string const& name, int threads = 2,
                        int groups = 1)
    {
        std::string const path = this->write_json(name + ".json", j);
        StudyRunOptions o;
        o.cpu_threads = threads;
        o.cpu_groups = groups;
        return run_study(load_study(path), o);
    }
    std::vector<double> dose(std::string const& name) const
    {
        return read_dose_grid((dir_ / "out" / (name + ".h5")).string()).values;
    }
    std::string out() const { return (dir_ / "out").string(); }

    //! `n` photons of 1 MeV at (0, 0, -1) along +z with weight `w`, made by `primaries`
    //! histories (0: not recorded).
    std::string photons(std::string const& name, int n, double w,
                        std::vector<std::int32_t> const& pdg = {22},
                        std::uint64_t primaries = 0) const
    {
        std::string const path = (dir_ / name).string();
        McplWriter writer(path, "test", {});
        McplParticle p;
        p.energy_MeV = 1;
        p.position_cm[2] = -1;
        p.weight = w;
        for (int i = 0; i < n; ++i)
        {
            p.pdg_code = pdg[i % pdg.size()];
            writer.add(p);
        }
        writer.commit(primaries);
        return path;
    }
};

// A phase space that records the primary histories that made it gives the dose per primary
// history of that first run: the dose per history of this run times transported / primaries.
TEST_F(PhaseSpaceRunTest, DoseIsPerPrimaryHistoryOfTheFirstRun)
{
    std::string const plain = this->photons("plain.mcpl", 300, 1);
    std::string const recorded = this->photons("recorded.mcpl", 300, 1, {22}, 1200);
    auto source = [](std::string const& file) {
        return nlohmann::json{{"type", "phase_space"}, {"file", file}, {"recycle", 3}};
    };
    StudyRunSummary const a = this->run(study_json(source(plain), this->out(), "plain"), "plain");
    StudyRunSummary const b =
        this->run(study_json(source(recorded), this->out(), "recorded"), "recorded");
    EXPECT_EQ(900u, b.histories);
    EXPECT_NE(std::string::npos, b.dose_description.find("per primary history"))
        << b.dose_description;
    EXPECT_NE(std::string::npos, b.dose_description.find("1200")) << b.dose_description;
    std::vector<double> const per_history = this->dose("plain");
    std::vector<double> const per_primary = this->dose("recorded");
    ASSERT_EQ(per_history.size(), per_primary.size());
    double total = 0;
    for (std::size_t v = 0; v < per_history.size(); ++v)
    {
        EXPECT_NEAR(per_history[v] * 300.0 / 1200.0, per_primary[v], 1e-12 * per_history[v]) << v;
        total += per_primary[v];
    }
    EXPECT_GT(total, 0);
    EXPECT_EQ(std::string::npos, a.dose_description.find("primary")) << a.dose_description;
}

// A pencil beam crosses a plane 1 cm before the phantom: the file holds exactly
// its particles there. Read back as a source it gives bitwise the dose of the
// pencil beam started on that plane (same seed: Philox keyed by history, and a
// phase-space particle draws no random number).
TEST_F(PhaseSpaceRunTest, PlaneBeforeThePhantomRoundTrip)
{
    auto head = study_json(pencil(-5), this->out(), "head");
    head["run"] = {{"histories", 2000}};
    head["outputs"]["phase_space"] = {{"axis", "+z"}, {"position_cm", -1}};
    StudyRunSummary const s = this->run(head, "head");
    std::string const file = (dir_ / "out" / "head_phase_space.mcpl").string();
    ASSERT_TRUE(fs::exists(file));
    EXPECT_NE(std::string::npos, s.phase_space_output.find("2000 particles"))
        << s.phase_space_output;
    EXPECT_NE(s.files.end(), std::find(s.files.begin(), s.files.end(), file));
    McplReader r(file);
    ASSERT_EQ(2000u, r.size());
    McplParticle p;
    while (r.read(p))
    {
        ASSERT_EQ(22, p.pdg_code);
        ASSERT_EQ(1.25, p.energy_MeV);
        ASSERT_EQ(0.25, p.position_cm[0]);
        ASSERT_EQ(-0.25, p.position_cm[1]);
        ASSERT_EQ(-1, p.position_cm[2]);
        ASSERT_EQ(1, p.direction[2]);
        ASSERT_EQ(1, p.weight);
    }

    auto patient = study_json({{"type", "phase_space"}, {"file", file}}, this->out(), "patient");
    StudyRunSummary const ps = this->run(patient, "patient");
    EXPECT_EQ(2000u, ps.histories); // the whole file
    auto reference = study_json(pencil(-1), this->out(), "reference");
    reference["run"] = {{"histories", 2000}};
    this->run(reference, "reference");
    EXPECT_EQ(this->dose("reference"), this->dose("patient"));
    EXPECT_GT(this->dose("patient")[4], 0);
}

// A plane 1 cm past the phantom gets the particles leaving through its far side, on
// the plane, moving along +z; what is written is at most what escaped. The file is
// the same for any number of threads and worker groups.
TEST_F(PhaseSpaceRunTest, ExitPlaneIsWrittenReproducibly)
{
    auto j = study_json(pencil(-5, 6), this->out(), "exit");
    j["run"] = {{"histories", 3000}};
    j["physics"] = {{"electron_cutoff_MeV", 0.5}};
    j["outputs"]["phase_space"] = {{"point_cm", {0, 0, 11}}, {"normal", {0, 0, 2}}};
    StudyRunSummary const s = this->run(j, "exit", 2, 1);
    std::string const file = (dir_ / "out" / "exit_phase_space.mcpl").string();
    McplReader r(file);
    EXPECT_GT(r.size(), 1000u);
    McplParticle p;
    double written_MeV = 0;
    int charged = 0;
    while (r.read(p))
    {
        ASSERT_TRUE(p.pdg_code == 22 || p.pdg_code == 11 || p.pdg_code == -11) << p.pdg_code;
        ASSERT_NEAR(11, p.position_cm[2], 1e-5);
        ASSERT_GT(p.direction[2], 0);
        ASSERT_LE(p.energy_MeV, 6 * (1 + 1e-6));
        written_MeV += p.energy_MeV * p.weight;
        charged += p.pdg_code != 22;
    }
    EXPECT_GT(charged, 0);
    EXPECT_LE(written_MeV, s.balance.escaped_MeV * (1 + 1e-6));
    std::string const first = slurp(file);

    j["outputs"]["if_exists"] = "overwrite";
    this->run(j, "exit", 1, 2);
    EXPECT_TRUE(first == slurp(file)) << "the file depends on threads or groups";
}

// A particle's weight multiplies everything it deposits: weight 2 doubles the dose
// of weight 1 exactly (one thread, HB tally: the same additions, each doubled).
TEST_F(PhaseSpaceRunTest, WeightsMultiplyDeposits)
{
    std::vector<std::vector<double>> doses;
    for (double w : {1.0, 2.0})
    {
        std::string const name = w == 1 ? "w1" : "w2";
        auto j =
            study_json({{"type", "phase_space"}, {"file", this->photons(name + ".mcpl", 500, w)}},
                       this->out(), name);
        j["tally"]["method"] = "hb";
        StudyRunSummary const s = this->run(j, name, 1);
        EXPECT_EQ(500u, s.histories);
        EXPECT_DOUBLE_EQ(500 * w * 1.0, s.balance.emitted_MeV);
        doses.push_back(this->dose(name));
    }
    ASSERT_EQ(doses[0].size(), doses[1].size());
    double total = 0;
    for (std::size_t v = 0; v < doses[0].size(); ++v)
    {
        EXPECT_EQ(2 * doses[0][v], doses[1][v]) << "voxel " << v;
        total += doses[0][v];
    }
    EXPECT_GT(total, 0);
}

// A stop during a CPU batch discards that batch: the phase space written holds the
// crossings of the completed batches only, the same particles as a run of just those
// batches (one worker group and two).
TEST_F(PhaseSpaceRunTest, StopDuringABatchWritesOnlyTheCompletedBatches)
{
    std::uint64_t const per_batch = 20000;
    auto study = [&](std::string const& name, std::uint64_t batches)
    {
        auto j = study_json(pencil(-5, 6), this->out(), name);
        j["run"] = {{"histories", batches * per_batch}};
        j["tally"]["batches"] = batches;
        j["physics"] = {{"electron_cutoff_MeV", 0.5}};
        j["outputs"]["phase_space"] = {{"point_cm", {0, 0, 11}}, {"normal", {0, 0, 1}}};
        j["outputs"]["if_exists"] = "overwrite";
        return j;
    };
    for (int groups : {1, 2})
    {
        SCOPED_TRACE(std::to_string(groups) + " groups");
        std::atomic<int> batches{0};
        StudyRunOptions o;
        o.cpu_threads = 2;
        o.cpu_groups = groups;
        o.on_batch = [&batches](TransportProgress const&)
        {
            ++batches;
            return true;
        };
        // Asked for during the third batch (polled every 10 ms; a batch takes longer).
        o.stop_requested = [&batches] { return batches.load() >= 2; };
        StudyRunSummary const s =
            run_study(load_study(this->write_json("stopped.json", study("stopped", 5))), o);
        ASSERT_FALSE(s.complete);
        ASSERT_EQ(std::uint64_t(batches.load()) * per_batch, s.histories);
        ASSERT_LT(s.histories, 5 * per_batch);
        auto const written = particles((dir_ / "out" / "stopped_phase_space.mcpl").string());

        this->run(study("done", s.histories / per_batch), "done");
        auto const done = particles((dir_ / "out" / "done_phase_space.mcpl").string());
        EXPECT_GT(done.size(), 0u);
        EXPECT_EQ(done.size(), written.size()) << "crossings of the discarded batch written";
        EXPECT_TRUE(done == written);
    }
}

// Each particle starts `recycle` histories: by default the whole file x recycle; a
// history count that is not whole particles, or more than the file holds, is refused.
// The same seed gives the same dose, for any number of worker groups (FX tally), with
// and without read-ahead.
TEST_F(PhaseSpaceRunTest, RecyclingHistoriesAndReproducibility)
{
    std::string const file = this->photons("r.mcpl", 300, 1);
    nlohmann::json const source = {{"type", "phase_space"}, {"file", file}, {"recycle", 3}};
    auto j = study_json(source, this->out(), "r");
    StudyRunSummary const all = this->run(j, "r");
    EXPECT_EQ(900u, all.histories);
    {
        // A particle's uses are correlated: "auto" takes the batch method, which keeps
        // them in one batch, not history by history.
        std::ifstream summary(fs::path(this->out()) / "r_summary.json");
        EXPECT_EQ("5 batches", nlohmann::json::parse(summary).at("uncertainty_method"));
    }
    std::vector<double> const first = this->dose("r");
    j["outputs"]["if_exists"] = "overwrite";
    this->run(j, "r", 2, 3);
    EXPECT_EQ(first, this->dose("r"));
    j["sources"][0]["read_ahead"] = false; // each piece read when its batch starts
    this->run(j, "r", 2, 3);
    EXPECT_EQ(first, this->dose("r"));
    j["sources"][0].erase("read_ahead");

    j["run"] = {{"histories", 600}};
    EXPECT_EQ(600u, this->run(j, "r").histories);
    for (int bad : {601, 1200})
    {
        j["run"] = {{"histories", bad}};
        try
        {
            this->run(j, "r");
            ADD_FAILURE() << bad << " histories accepted";
        }
        catch (InputError const& e)
        {
            EXPECT_EQ("/run/histories", e.pointer()) << e.what();
            EXPECT_NE(std::string::npos, std::string(e.what()).find("multiple of 3")) << e.what();
        }
    }
}

// Types mcdose does not transport are counted and reported, not dropped silently.
TEST_F(PhaseSpaceRunTest, SkippedTypesAreReported)
{
    std::string const file = this->photons("n.mcpl", 400, 1, {22, 2112, 2112, 22});
    auto j = study_json({{"type", "phase_space"}, {"file", file}}, this->out(), "n");
    StudyRunSummary const s = this->run(j, "n");
    EXPECT_EQ(200u, s.histories);
    EXPECT_NE(std::string::npos, s.phase_space_source.find("200 skipped")) << s.phase_space_source;
    bool warned = false;
    for (auto const& w : s.warnings)
        warned |= w.find("200 neutron (2112)") != std::string::npos;
    EXPECT_TRUE(warned);
}

// Bad phase-space input stops `mcdose run` before transport, naming the field and
// the fix, and writes nothing.
TEST_F(PhaseSpaceRunTest, BadInputIsRefusedBeforeTransport)
{
    std::string const good = this->photons("good.mcpl", 50, 1);
    std::string const bytes = slurp(good);
    this->write("empty.mcpl", "");
    this->write("cut.mcpl", bytes.substr(0, bytes.size() - 20));
    this->write("corrupt.mcpl", "MCPL" + std::string(200, 'x'));
    std::string unclosed = bytes;
    std::uint64_t const zero = 0;
    std::memcpy(&unclosed[8], &zero, sizeof zero); // the count a writer that died left
    this->write("unclosed.mcpl", unclosed);
    this->photons("weightless.mcpl", 20, 0);
    ASSERT_EQ(0, ::mkfifo((dir_ / "fifo.mcpl").c_str(), 0600));
    struct Case
    {
        char const* what;
        nlohmann::json study;
        char const* expected;
    };
    auto with_source = [&](nlohmann::json const& s)
    {
        auto j = study_json(s, this->out(), "bad");
        return j;
    };
    nlohmann::json const ok = {{"type", "phase_space"}, {"file", "good.mcpl"}};
    auto field = [&](char const* key, nlohmann::json v)
    {
        auto s = ok;
        s[key] = v;
        return with_source(s);
    };
    auto typo = with_source(ok);
    typo["sources"][0]["rotation"] = {0, 0, 90};
    auto cutting = with_source(ok);
    cutting["outputs"]["phase_space"] = {{"axis", "+z"}, {"position_cm", 5}};
    auto taus = with_source(ok);
    taus["outputs"]["phase_space"] = {{"axis", "-z"}, {"position_cm", -2}};
    taus["rng"]["generator"] = "hybrid-taus";
    auto recycled_history = field("recycle", 2);
    recycled_history["tally"] = {{"uncertainty", "history"}};
    auto local = with_source(ok);
    local["sources"][0]["file"] = this->photons("e.mcpl", 10, 1, {11});
    local["physics"] = {{"electron_transport", "local"}};
    auto partial = field("recycle", 4);
    partial["run"] = {{"histories", 101}};
    auto too_many = field("recycle", 4);
    too_many["tally"]["batches"] = 51;
    Case const cases[] = {
        {"missing", field("file", "nowhere.mcpl"), "/sources/0/file"},
        {"empty", field("file", "empty.mcpl"), "/sources/0/file"},
        {"truncated", field("file", "cut.mcpl"), "/sources/0/file"},
        {"corrupt", field("file", "corrupt.mcpl"), "/sources/0/file"},
        {"placement typo", typo, "rotation_deg"},
        {"recycle 0", field("recycle", 0), "/sources/0/recycle"},
        {"history by history, particles recycled", recycled_history, "/tally/uncertainty"},
        {"plane cuts the grid", cutting, "/outputs/phase_space"},
        {"not philox", taus, "/rng/generator"},
        {"local electrons", local, "electron_transport"},
        {"never closed", field("file", "unclosed.mcpl"), "\"recover\": true"},
        {"all weights 0", field("file", "weightless.mcpl"), "weigh 0"},
        {"a FIFO", field("file", "fifo.mcpl"), "regular file"},
        {"histories not whole particles", partial, "/run/histories"},
        {"more batches than particles", too_many, "/tally/batches"},
    };
    for (Case const& c : cases)
    {
        SCOPED_TRACE(c.what);
        fs::remove_all(dir_ / "out");
        std::string const path = this->write_json("bad.json", c.study);
        // `check` refuses what `run` would, with the same field.
        auto const check = run_command(mcdose_exe() + " check " + path);
        EXPECT_NE(0, check.exit_code) << check.output;
        EXPECT_NE(std::string::npos, check.output.find(c.expected)) << check.output;
        EXPECT_EQ(std::string::npos, check.output.find("MCPL ERROR")) << check.output;
        auto const r = run_command(mcdose_exe() + " run " + path);
        EXPECT_NE(0, r.exit_code) << r.output;
        EXPECT_NE(std::string::npos, r.output.find(c.expected)) << r.output;
        EXPECT_EQ(std::string::npos, r.output.find("histories        :")) << r.output;
        bool const wrote = fs::exists(dir_ / "out") && !fs::is_empty(dir_ / "out");
        EXPECT_FALSE(wrote) << "output written";
    }
}

// The GPU backend writes the same plane crossings as the CPU (a primary's path before the
// phantom involves no physics) and reads them back as a source. Skipped without a GPU.
TEST_F(PhaseSpaceRunTest, GpuWritesAndReadsThePlane)
{
    MCDOSE_SKIP_IF_NO_GPU();
    auto head = study_json(pencil(-5), this->out(), "gpu_head");
    head["backend"] = "gpu";
    head["run"] = {{"histories", 20000}};
    head["outputs"]["phase_space"] = {{"axis", "+z"}, {"position_cm", -1}};
    this->run(head, "gpu_head");
    std::string const file = (dir_ / "out" / "gpu_head_phase_space.mcpl").string();
    McplReader r(file);
    ASSERT_EQ(20000u, r.size());
    McplParticle p;
    while (r.read(p))
    {
        ASSERT_EQ(22, p.pdg_code);
        ASSERT_EQ(1.25, p.energy_MeV);
        ASSERT_EQ(-1, p.position_cm[2]);
    }
    auto patient = study_json({{"type", "phase_space"}, {"file", file}, {"recycle", 2}},
                              this->out(), "gpu_patient");
    patient["backend"] = "gpu";
    StudyRunSummary const s = this->run(patient, "gpu_patient");
    EXPECT_EQ(40000u, s.histories);
    EXPECT_DOUBLE_EQ(40000 * 1.25, s.balance.emitted_MeV);
    EXPECT_GT(s.balance.deposited_MeV, 0);
    EXPECT_LT(std::fabs(s.balance.relative_imbalance()), 1e-6);
}

// On a GPU the read-ahead also copies the next piece to the GPU while a batch runs: the
// dose is bitwise that of reading and copying each piece when its batch starts, for
// particles that differ from each other (energy and place), so a piece or offset mixed up
// would show. Skipped without a GPU.
TEST_F(PhaseSpaceRunTest, GpuReadAheadGivesTheSameDose)
{
    MCDOSE_SKIP_IF_NO_GPU();
    std::string const file = (dir_ / "varied.mcpl").string();
    {
        McplWriter writer(file, "test", {});
        McplParticle p;
        p.pdg_code = 22;
        p.position_cm[2] = -1;
        for (int i = 0; i < 3001; ++i)
        {
            p.energy_MeV = 0.2 + 0.001 * i;
            p.position_cm[0] = -1.4 + 2.8 * (i % 97) / 96.0;
            p.position_cm[1] = -1.4 + 2.8 * (i % 89) / 88.0;
            writer.add(p);
        }
        writer.commit();
    }
    auto j = study_json({{"type", "phase_space"}, {"file", file}}, this->out(), "gpu_ahead");
    j["backend"] = "gpu";
    j["tally"]["batches"] = 7; // pieces of unequal size
    StudyRunSummary const s = this->run(j, "gpu_ahead");
    EXPECT_EQ(3001u, s.histories);
    std::vector<double> const ahead = this->dose("gpu_ahead");
    j["outputs"]["if_exists"] = "overwrite";
    j["sources"][0]["read_ahead"] = false;
    this->run(j, "gpu_ahead");
    EXPECT_EQ(ahead, this->dose("gpu_ahead"));
}

// The example studies: the head writes a phase space (fewer histories: only its statistics
// change), the patient reads the committed one as shipped: 2,018 particles used 4 times in
// 10 batches of 804 or 808 histories, whose unequal sizes the batch statistics weigh.
TEST_F(PhaseSpaceRunTest, ExamplesRun)
{
    struct Example
    {
        char const* name;
        char const* options;
        char const* histories;
    };
    for (Example const& e : {Example{"phase_space_head.json", " --histories 400", "400"},
                             Example{"phase_space_water.json", "", "8072"}})
    {
        SCOPED_TRACE(e.name);
        std::string const example = source_dir() + "/examples/" + e.name;
        auto const check = run_command(mcdose_exe() + " check " + example);
        EXPECT_EQ(0, check.exit_code) << check.output;
        auto const r = run_command(mcdose_exe() + " run " + example + " --backend cpu" + e.options +
                                   " --output-dir " + (dir_ / e.name).string());
        EXPECT_EQ(0, r.exit_code) << r.output;
        EXPECT_NE(std::string::npos,
                  r.output.find(std::string("histories        : ") + e.histories))
            << r.output;
    }
    // The head's phase space records the 400 primary histories that made it.
    std::size_t written = 0;
    for (auto const& f : fs::recursive_directory_iterator(dir_ / "phase_space_head.json"))
    {
        if (f.path().extension() == ".mcpl")
        {
            EXPECT_EQ(400u, McplReader(f.path().string()).primary_histories()) << f.path();
            ++written;
        }
    }
    EXPECT_EQ(1u, written);
}
} // namespace mcdose::test
