//! \file test/study/OutputFiles.test.cc
//! Files a run writes and trusts on a shared machine: the output lock and the outputs
//! never written through a planted link; "overwrite" replaces the earlier results only
//! when the new ones and their manifest are whole; a killed run's staging removed by the
//! next; outputs of every command compared with every input; inputs that are FIFOs
//! refused at once.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "StudyFixture.hh"
#include "TestMacros.hh"
#include "core/AtomicFile.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
std::string slurp(fs::path const& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool contains(std::string const& s, std::string const& part)
{
    return s.find(part) != std::string::npos;
}

//! Entries of `dir` whose names start like a staging directory.
std::size_t staging_entries(fs::path const& dir)
{
    std::size_t n = 0;
    for (auto const& e : fs::directory_iterator(dir))
        n += e.path().filename().string().rfind(staging_prefix, 0) == 0;
    return n;
}
} // namespace

class OutputFilesTest : public StudyFixture
{
  protected:
    //! The minimal study writing `r_*` files (a profile among them) into dir_/out.
    nlohmann::json study_json() const
    {
        auto j = minimal();
        j["outputs"] = {
            {"directory", (dir_ / "out").string()},
            {"name", "r"},
            {"image_format", "none"},
            {"lateral_profiles", {{{"axis", "x"}, {"position_cm", {0, 0, 0}}, {"name", "px"}}}}};
        return j;
    }
    std::string run(std::string const& study, std::string const& args = "") const
    {
        return mcdose_exe() + " run " + study + " --threads 2 " + args;
    }
    fs::path out() const { return dir_ / "out"; }
};

// A link planted as the output lock (by whoever can write the directory) is never
// followed: the run is refused and the file it points to is untouched.
TEST_F(OutputFilesTest, LinkPlantedAsTheLockIsRefusedNotFollowed)
{
    fs::create_directories(out());
    std::ofstream(dir_ / "victim") << "root-only data";
    fs::create_symlink(dir_ / "victim", out() / ".mcdose.lock");
    auto const r = run_command(run(write_json("s.json", study_json())));
    EXPECT_EQ(1, r.exit_code) << r.output;
    EXPECT_TRUE(contains(r.output, "symbolic link")) << r.output;
    EXPECT_EQ("root-only data", slurp(dir_ / "victim"));
    EXPECT_FALSE(fs::exists(out() / "r_summary.json"));
}

// A lock file that is there already is opened as it is, never truncated; one with another
// name (a hard link) is not written at all.
TEST_F(OutputFilesTest, ExistingLockFileIsNeverTruncated)
{
    fs::create_directories(out());
    std::string const text = "not a lock file at all, and longer than any process id\n";
    std::ofstream(dir_ / "victim") << text;
    fs::create_hard_link(dir_ / "victim", out() / ".mcdose.lock");
    auto const r = run_command(run(write_json("s.json", study_json())));
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_EQ(text, slurp(dir_ / "victim"));
}

// Links planted at the outputs' names are replaced by the files, never written through.
TEST_F(OutputFilesTest, LinksPlantedAtOutputsAreNotWrittenThrough)
{
    fs::create_directories(out());
    std::ofstream(dir_ / "victim") << "precious";
    fs::create_symlink(dir_ / "victim", out() / "r_summary.json");
    fs::create_symlink(dir_ / "victim", out() / "r_px.csv");
    auto j = study_json();
    j["outputs"]["if_exists"] = "overwrite";
    auto const r = run_command(run(write_json("s.json", j)));
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_EQ("precious", slurp(dir_ / "victim"));
    EXPECT_FALSE(fs::is_symlink(out() / "r_summary.json"));
    EXPECT_TRUE(contains(slurp(out() / "r_summary.json"), "histories"));
}

// "overwrite", then a run that fails after transport: the earlier results stay whole
// (the files and the manifest that lists them), and nothing of the failed run is left.
TEST_F(OutputFilesTest, OverwriteThenAFailingRunKeepsTheEarlierSet)
{
    auto j = study_json();
    std::string const path = write_json("s.json", j);
    ASSERT_EQ(0, run_command(run(path)).exit_code);
    std::string const summary = slurp(out() / "r_summary.json");
    std::string const manifest = slurp(out() / "r_manifest.json");
    std::string const profile = slurp(out() / "r_px.csv");

    j["outputs"]["if_exists"] = "overwrite";
    j["rng"] = {{"seed", 99}};
    StudyInput const study = parse_study(j.dump(), path);
    StudyRunOptions opts;
    opts.cpu_threads = 2;
    opts.on_dose = [](auto const&, auto const&) { throw RuntimeError("disk gone"); };
    EXPECT_THROW(run_study(study, opts), RuntimeError);
    EXPECT_EQ(summary, slurp(out() / "r_summary.json"));
    EXPECT_EQ(manifest, slurp(out() / "r_manifest.json"));
    EXPECT_EQ(profile, slurp(out() / "r_px.csv"));
    EXPECT_EQ(0u, staging_entries(out()));

    // A write that fails (a directory where a new file goes): none of the new files is
    // moved in, so no output is left without its manifest.
    j["outputs"]["lateral_profiles"].push_back(
        {{"axis", "y"}, {"position_cm", {0, 0, 0}}, {"name", "py"}});
    fs::create_directories(out() / "r_py.csv");
    auto const failed = run_command(run(write_json("s.json", j)));
    EXPECT_EQ(1, failed.exit_code) << failed.output;
    EXPECT_EQ(summary, slurp(out() / "r_summary.json"));
    EXPECT_EQ(manifest, slurp(out() / "r_manifest.json"));
    EXPECT_EQ(0u, staging_entries(out()));

    // The same run whole: the new set in place, listed by the new manifest.
    fs::remove(out() / "r_py.csv");
    auto const whole = run_command(run(write_json("s.json", j)));
    EXPECT_EQ(0, whole.exit_code) << whole.output;
    EXPECT_NE(summary, slurp(out() / "r_summary.json"));
    EXPECT_TRUE(contains(slurp(out() / "r_manifest.json"), "r_py.csv"));
}

// The staging directory of a run killed outright (SIGKILL) is removed by the next run
// into that directory; a live process's is left alone.
TEST_F(OutputFilesTest, KilledRunsStagingIsRemovedByTheNextRun)
{
    pid_t const dead = ::fork();
    if (dead == 0)
        ::_exit(0);
    ::waitpid(dead, nullptr, 0);
    fs::path const stale = out() / (staging_prefix + std::to_string(dead) + ".3");
    fs::path const live = out() / (staging_prefix + std::to_string(::getpid()) + ".3");
    fs::create_directories(stale);
    fs::create_directories(live);
    std::ofstream(stale / "r_dose.mha") << "half an image";
    ASSERT_EQ(0, run_command(run(write_json("s.json", study_json()))).exit_code);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(live));
}

// --checkpoint, compare's --json and --gamma-map, calibrate -o: refused by name where
// they name an input of the command, before any work; the input is untouched.
TEST_F(OutputFilesTest, OutputsOfEveryCommandAreComparedWithItsInputs)
{
    std::string const study = write_json("s.json", study_json());
    std::string const before = slurp(study);
    auto const ck = run_command(run(study, "--checkpoint " + study));
    EXPECT_EQ(1, ck.exit_code) << ck.output;
    EXPECT_TRUE(contains(ck.output, "--checkpoint file would overwrite")) << ck.output;
    // Through another spelling of the same file (a link) too.
    fs::create_symlink(study, dir_ / "alias.json");
    auto const alias = run_command(run(study, "--checkpoint " + (dir_ / "alias.json").string()));
    EXPECT_EQ(1, alias.exit_code) << alias.output;
    EXPECT_EQ(before, slurp(study));

    auto const cal =
        run_command(mcdose_exe() + " calibrate " + study + " --point-cm 0 0 0.5 -o " + study);
    EXPECT_EQ(1, cal.exit_code) << cal.output;
    EXPECT_TRUE(contains(cal.output, "calibration (-o) would overwrite")) << cal.output;
    EXPECT_EQ(before, slurp(study));

    std::string const dose = source_dir() + "/examples/synthetic_ct.mha";
    fs::copy_file(dose, dir_ / "ref.mha");
    std::string const ref = (dir_ / "ref.mha").string();
    std::string const ref_bytes = slurp(ref);
    for (std::string const option : {"--json", "--gamma-map"})
    {
        auto const cmp =
            run_command(mcdose_exe() + " compare " + ref + " " + ref + " " + option + " " + ref);
        EXPECT_EQ(1, cmp.exit_code) << cmp.output;
        EXPECT_TRUE(contains(cmp.output, "would overwrite the reference dose")) << cmp.output;
        EXPECT_EQ(ref_bytes, slurp(ref));
    }
}

// A FIFO given to --resume is refused at once by name (a read would wait forever).
TEST_F(OutputFilesTest, FifoAsResumeIsRefusedWithoutBlocking)
{
    std::string const fifo = (dir_ / "ck.fifo").string();
    ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));
    auto const r = run_command(run(write_json("s.json", study_json()), "--resume " + fifo));
    EXPECT_EQ(1, r.exit_code) << r.output;
    EXPECT_TRUE(contains(r.output, "FIFO")) << r.output;
}
} // namespace mcdose::test
