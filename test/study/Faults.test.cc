//! Faults and hostile input through `mcdose check` and `mcdose run`: outputs
//! checked and locked before transport, signals, concurrent runs, images that
//! are not what they claim, CLI options, and `check` refusing what `run`
//! refuses. Each test names the behaviour it keeps.
#include <chrono>
#include <cmath>
#include <csignal>
#include <functional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "StudyFixture.hh"
#include "TestMacros.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
//! A process started in the background (`sh -c "exec <command>"`, so the pid is the command's).
class Background
{
  public:
    Background(std::string const& command, std::string const& log)
    {
        std::fflush(nullptr);
        pid_ = ::fork();
        if (pid_ == 0)
        {
            std::string const full = "exec " + command + " > '" + log + "' 2>&1";
            ::execl("/bin/sh", "sh", "-c", full.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
    }
    ~Background()
    {
        if (pid_ > 0 && status_ < 0)
        {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    Background(Background const&) = delete;
    Background& operator=(Background const&) = delete;

    pid_t pid() const { return pid_; }
    void signal(int sig) const { ::kill(pid_, sig); }
    //! Exit status (128 + signal if killed), or -1 if still running after `timeout_s`.
    int wait(double timeout_s)
    {
        auto const end =
            std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (std::chrono::steady_clock::now() < end)
        {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_)
            {
                status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                return status_;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return -1;
    }

  private:
    pid_t pid_{-1};
    int status_{-1};
};

bool wait_for_file(fs::path const& p, double timeout_s)
{
    auto const end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end)
    {
        if (fs::exists(p))
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

//! Whether every thread of process `pid` is stopped (state T), waiting up to `timeout_s`.
bool wait_until_stopped(pid_t pid, double timeout_s)
{
    auto const end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    fs::path const tasks = fs::path("/proc") / std::to_string(pid) / "task";
    while (std::chrono::steady_clock::now() < end)
    {
        bool all = true;
        std::error_code ec;
        for (auto const& t : fs::directory_iterator(tasks, ec))
        {
            std::ifstream in(t.path() / "stat");
            std::string line;
            std::getline(in, line);
            // "pid (comm) S ...": the state follows the last ')'.
            auto const close = line.rfind(')');
            all = all && close != std::string::npos && close + 2 < line.size() &&
                  line[close + 2] == 'T';
        }
        if (all && !ec)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

std::string slurp(fs::path const& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::size_t count_temporaries(fs::path const& dir)
{
    std::size_t n = 0;
    std::error_code ec;
    for (auto const& e : fs::recursive_directory_iterator(dir, ec))
    {
        std::string const name = e.path().filename().string();
        n += name.find(".tmp.") != std::string::npos || name.rfind(".mcdose-tmp.", 0) == 0;
    }
    return n;
}

bool contains(std::string const& s, std::string const& part)
{
    return s.find(part) != std::string::npos;
}
} // namespace

class FaultsTest : public StudyFixture
{
  protected:
    //! A photon study whose two batches would take hours: only a signal ends it.
    nlohmann::json endless() const
    {
        auto j = minimal();
        j["sources"][0]["particle"] = "photon";
        j["sources"][0]["energy_MeV"] = 1;
        j["run"]["histories"] = 4000000000000LL;
        j["tally"] = {{"batches", 2}};
        j["outputs"] = {{"directory", (dir_ / "out").string()}, {"name", "e"}};
        return j;
    }
    std::string run(std::string const& study, std::string const& args = "") const
    {
        return mcdose_exe() + " run " + study + " --threads 2 " + args;
    }
};

// Signals: SIGTERM (and SIGINT) stop within about a second, not at the end of a
// batch, write the results of the completed batches marked incomplete.
TEST_F(FaultsTest, SigtermAndSigintStopWithinASecondWithPartialResults)
{
    for (int sig : {SIGTERM, SIGINT})
    {
        fs::remove_all(dir_ / "out");
        auto const study = write_json("endless.json", endless());
        Background p(run(study), (dir_ / "log.txt").string());
        ASSERT_TRUE(wait_for_file(dir_ / "out" / ".mcdose.lock", 20)) << slurp(dir_ / "log.txt");
        std::this_thread::sleep_for(std::chrono::milliseconds(500)); // in transport
        auto const t0 = std::chrono::steady_clock::now();
        p.signal(sig);
        int const status = p.wait(30);
        double const stop_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::string const log = slurp(dir_ / "log.txt");
        EXPECT_EQ(130, status) << log;
        EXPECT_LT(stop_s, 5.0) << "a batch of this study takes hours; " << log;
        auto const summary = nlohmann::json::parse(slurp(dir_ / "out" / "e_summary.json"));
        EXPECT_FALSE(summary["complete"].get<bool>());
        EXPECT_EQ("interrupted", summary["stop_reason"]);
        auto const manifest = nlohmann::json::parse(slurp(dir_ / "out" / "e_manifest.json"));
        EXPECT_FALSE(manifest["complete"].get<bool>());
        EXPECT_EQ(0u, count_temporaries(dir_));
    }
}

// On a GPU the running kernel sees the signal too: the run stops within seconds,
// not at the end of a batch that would take hours, with partial results.
TEST_F(FaultsTest, SigintStopsAGpuRunWithinSeconds)
{
    MCDOSE_SKIP_IF_NO_GPU();
    auto j = endless();
    j["backend"] = "gpu";
    j["run"]["histories"] = 400000000000000LL; // hours per batch at 10^8 histories/s
    auto const study = write_json("endless.json", j);
    Background p(mcdose_exe() + " run " + study, (dir_ / "log.txt").string());
    ASSERT_TRUE(wait_for_file(dir_ / "out" / ".mcdose.lock", 60)) << slurp(dir_ / "log.txt");
    std::this_thread::sleep_for(std::chrono::seconds(3)); // in the first batch's kernel
    auto const t0 = std::chrono::steady_clock::now();
    p.signal(SIGINT);
    int const status = p.wait(60);
    double const stop_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string const log = slurp(dir_ / "log.txt");
    EXPECT_EQ(130, status) << log;
    EXPECT_LT(stop_s, 10.0) << "a batch of this study takes hours; " << log;
    auto const summary = nlohmann::json::parse(slurp(dir_ / "out" / "e_summary.json"));
    EXPECT_FALSE(summary["complete"].get<bool>());
    EXPECT_EQ("interrupted", summary["stop_reason"]);
    EXPECT_EQ(0u, count_temporaries(dir_));
}

// A second signal ends the process at once, leaving no temporary file and no
// results. The two signals are made to arrive together, whatever the machine's
// load: the process is held stopped while SIGINT and SIGTERM are queued (two
// different signals, so neither coalesces), and both are delivered when it resumes.
TEST_F(FaultsTest, SecondSignalExitsAtOnce)
{
    auto const study = write_json("endless.json", endless());
    Background p(run(study), (dir_ / "log.txt").string());
    ASSERT_TRUE(wait_for_file(dir_ / "out" / ".mcdose.lock", 20));
    p.signal(SIGSTOP);
    ASSERT_TRUE(wait_until_stopped(p.pid(), 20)) << slurp(dir_ / "log.txt");
    p.signal(SIGINT);
    p.signal(SIGTERM);
    p.signal(SIGCONT);
    int const status = p.wait(20);
    std::string const log = slurp(dir_ / "log.txt");
    EXPECT_TRUE(status == 128 + SIGINT || status == 128 + SIGTERM) << status << '\n' << log;
    EXPECT_TRUE(contains(log, "signal again to end at once")) << log;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "e_summary.json")) << "the run went on to its results";
    EXPECT_EQ(0u, count_temporaries(dir_));
}

// Two runs into one directory: the second is refused before transport.
TEST_F(FaultsTest, SecondRunIntoALockedDirectoryIsRefused)
{
    auto const study = write_json("endless.json", endless());
    Background first(run(study), (dir_ / "log.txt").string());
    ASSERT_TRUE(wait_for_file(dir_ / "out" / ".mcdose.lock", 20));
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // lock taken after the file
    auto j = endless();
    j["outputs"]["name"] = "other";
    auto const second = run_command(run(write_json("second.json", j)));
    EXPECT_EQ(1, second.exit_code) << second.output;
    EXPECT_TRUE(
        contains(second.output, "another mcdose run (process " + std::to_string(first.pid()) + ")"))
        << second.output;
    first.signal(SIGKILL); // ends the first run (its lock goes with the process)
    first.wait(10);
    EXPECT_FALSE(fs::exists(dir_ / "out" / "other_summary.json"));
}

// Outputs are checked before transport; a rerun neither overwrites silently
// nor keeps stale files.
TEST_F(FaultsTest, IfExistsErrorOverwriteIncrement)
{
    auto j = minimal();
    j["outputs"] = {
        {"directory", (dir_ / "out").string()},
        {"name", "r"},
        {"lateral_profiles", {{{"axis", "x"}, {"position_cm", {0, 0, 0}}, {"name", "px"}}}}};
    auto const study = write_json("s.json", j);
    ASSERT_EQ(0, run_command(run(study)).exit_code);
    ASSERT_TRUE(fs::exists(dir_ / "out" / "r_px.csv"));
    auto const again = run_command(run(study));
    EXPECT_EQ(1, again.exit_code) << again.output;
    EXPECT_TRUE(contains(again.output, "/outputs/if_exists")) << again.output;
    EXPECT_TRUE(contains(again.output, "earlier run")) << again.output;
    auto const forced = run_command(run(study, "--if-exists overwrite"));
    EXPECT_EQ(0, forced.exit_code) << forced.output;

    // "overwrite" removes what the earlier run's manifest lists (the profile
    // no longer asked for included).
    j["outputs"]["lateral_profiles"] = nlohmann::json::array();
    j["outputs"]["if_exists"] = "overwrite";
    auto const over = run_command(run(write_json("s.json", j)));
    EXPECT_EQ(0, over.exit_code) << over.output;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "r_px.csv"));
    EXPECT_TRUE(fs::exists(dir_ / "out" / "r_summary.json"));

    j["outputs"]["if_exists"] = "increment";
    auto const inc = run_command(run(write_json("s.json", j)));
    EXPECT_EQ(0, inc.exit_code) << inc.output;
    EXPECT_TRUE(fs::exists(dir_ / "out" / "r_2_summary.json"));
    EXPECT_TRUE(fs::exists(dir_ / "out" / "r_2_manifest.json"));
}

// Name collisions with each other and with the inputs, names with '/', profile
// points outside the phantom, unwritable directories: refused by `check` and
// by `run` alike, before transport, with nothing written.
TEST_F(FaultsTest, CheckRefusesWhatRunRefusesBeforeTransport)
{
    auto const profile = [](char const* name, double x) {
        return nlohmann::json{{"axis", "x"}, {"position_cm", {x, 0, 0}}, {"name", name}};
    };
    fs::create_directories(dir_ / "blocked");
    fs::permissions(dir_ / "blocked", fs::perms::owner_read | fs::perms::owner_exec);
    std::ofstream(dir_ / "file") << "x";
    struct Case
    {
        char const* what;
        std::function<void(nlohmann::json&)> change;
        char const* expect;
    };
    std::vector<Case> const cases = {
        {"lcg",
         [](auto& j) {
             j["rng"] = {{"generator", "lcg"}};
         },
         "/rng/generator"},
        {"ran2",
         [](auto& j) {
             j["rng"] = {{"generator", "ran2"}};
         },
         "baseline"},
        {"gpu", [](auto& j) { j["backend"] = "gpu"; }, "backend 'gpu'"},
        {"local electrons",
         [](auto& j) {
             j["physics"] = {{"electron_transport", "local"}};
         },
         "/sources/0/particle"},
        {"particles on some sources",
         [](auto& j)
         {
             j["sources"].push_back(j["sources"][0]);
             j["sources"][0]["particles"] = 1e9;
         },
         "/sources/1/particles"},
        {"profile named depth_dose",
         [&](auto& j) { j["outputs"]["lateral_profiles"] = {profile("depth_dose", 0)}; },
         "/outputs/lateral_profiles/0/name"},
        {"duplicate profiles",
         [&](auto& j) {
             j["outputs"]["lateral_profiles"] = {profile("p", 0), profile("p", 1)};
         },
         "/outputs/lateral_profiles/1/name"},
        {"profile outside",
         [&](auto& j) { j["outputs"]["lateral_profiles"] = {profile("p", 100)}; },
         "outside the phantom"},
        {"slash in a name",
         [&](auto& j) { j["outputs"]["lateral_profiles"] = {profile("a/b", 0)}; },
         "cannot be part of a file name"},
        {"unwritable",
         [&](auto& j) { j["outputs"]["directory"] = (dir_ / "blocked" / "x").string(); },
         "/outputs/directory"},
        {"under a file", [&](auto& j) { j["outputs"]["directory"] = "/dev/null/x"; },
         "/outputs/directory"},
        {"directory is a file",
         [&](auto& j) { j["outputs"]["directory"] = (dir_ / "file").string(); }, "not a directory"},
        {"empty directory", [&](auto& j) { j["outputs"]["directory"] = ""; },
         "/outputs/directory: is empty"},
        {"under /proc", [&](auto& j) { j["outputs"]["directory"] = "/proc/self/x"; },
         "a file system of the kernel"},
        {"under /sys", [&](auto& j) { j["outputs"]["directory"] = "/sys/x"; },
         "a file system of the kernel"},
        {"name too long for the file system",
         [&](auto& j)
         {
             j["outputs"]["name"] = std::string(150, 'n');
             j["outputs"]["lateral_profiles"] = {profile(std::string(150, 'p').c_str(), 0)};
         },
         "the file system takes"},
    };
    for (auto const& c : cases)
    {
        if (std::string(c.what) == "unwritable" && ::geteuid() == 0)
            continue; // permissions do not bind root
        if (std::string(c.what) == "gpu" && device_count() > 0)
            continue; // refused only where no GPU can be used
        auto j = minimal();
        j["outputs"] = {{"directory", (dir_ / "out").string()}, {"name", "c"}};
        c.change(j);
        auto const study = write_json("case.json", j);
        auto const checked = run_command(mcdose_exe() + " check " + study);
        auto const ran = run_command(run(study));
        EXPECT_EQ(1, checked.exit_code) << c.what << ": " << checked.output;
        EXPECT_EQ(1, ran.exit_code) << c.what << ": " << ran.output;
        EXPECT_TRUE(contains(checked.output, c.expect)) << c.what << ": " << checked.output;
        EXPECT_EQ(checked.output, ran.output) << c.what;
        EXPECT_FALSE(fs::exists(dir_ / "out" / "c_summary.json")) << c.what;
    }
    fs::permissions(dir_ / "blocked", fs::perms::owner_all);
}

// An output that would overwrite the study's own input CT is refused.
TEST_F(FaultsTest, OutputOverAnInputIsRefused)
{
    fs::copy_file(source_dir() + "/examples/synthetic_ct.mha", dir_ / "ct_dose.mha");
    auto j = minimal();
    j["phantom"] = {{"type", "ct_image"}, {"image", "ct_dose.mha"}};
    j["outputs"] = {{"name", "ct"}, {"if_exists", "overwrite"}};
    auto const r = run_command(mcdose_exe() + " check " + write_json("ct.json", j));
    EXPECT_EQ(1, r.exit_code) << r.output;
    EXPECT_TRUE(contains(r.output, "would overwrite the input named by /phantom/image"))
        << r.output;
}

// Empty runs are warned about and marked in the summary.
TEST_F(FaultsTest, ZeroDoseRunIsWarnedAndMarked)
{
    auto j = minimal();
    j["sources"][0]["direction"] = {0, 0, -1}; // away from the phantom
    j["outputs"] = {{"directory", (dir_ / "out").string()}, {"name", "z"}};
    auto const r = run_command(run(write_json("z.json", j)));
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_TRUE(contains(r.output, "warning: no energy was deposited")) << r.output;
    auto const summary = nlohmann::json::parse(slurp(dir_ / "out" / "z_summary.json"));
    EXPECT_TRUE(summary["zero_dose"].get<bool>());
    EXPECT_EQ(1u, summary["warnings"].size());
}

// Command-line options are as strict as the study.
TEST_F(FaultsTest, LaxCommandLineOptionsAreRefused)
{
    auto const study = write_json("s.json", minimal());
    for (char const* args : {"--histories 5e18", "--histories 0x10", "--histories ''",
                             "--histories inf", "--threads -7", "--threads 100000"})
    {
        auto const r = run_command(run(study, args));
        EXPECT_NE(0, r.exit_code) << args << ": " << r.output;
        EXPECT_TRUE(contains(r.output, "--histories") || contains(r.output, "--threads"))
            << args << ": " << r.output;
        EXPECT_FALSE(fs::exists(dir_ / "s_summary.json")) << args;
    }
}

// Inputs that are not what they claim: a FIFO as the CT (would block), a
// truncated CT, a study that is a directory, an image with no voxels, a NaN image.
TEST_F(FaultsTest, BadInputFilesAreNamedNotMisattributed)
{
    auto ct_study = [&](std::string const& image)
    {
        auto j = minimal();
        j["phantom"] = {{"type", "ct_image"}, {"image", image}};
        return write_json("ct.json", j);
    };
    ASSERT_EQ(0, ::mkfifo((dir_ / "fifo.mha").c_str(), 0600));
    auto const fifo = run_command("timeout 20 " + mcdose_exe() + " check " + ct_study("fifo.mha"));
    EXPECT_EQ(1, fifo.exit_code) << fifo.output;
    EXPECT_TRUE(contains(fifo.output, "FIFO")) << fifo.output;

    std::string const bytes = slurp(source_dir() + "/examples/synthetic_ct.mha");
    std::ofstream(dir_ / "cut.mha", std::ios::binary) << bytes.substr(0, bytes.size() - 1000);
    auto const cut = run_command(mcdose_exe() + " check " + ct_study("cut.mha"));
    EXPECT_EQ(1, cut.exit_code) << cut.output;
    EXPECT_TRUE(contains(cut.output, "/phantom/image")) << cut.output;
    EXPECT_TRUE(contains(cut.output, "truncated")) << cut.output;

    std::ofstream(dir_ / "empty.mha")
        << "ObjectType = Image\nNDims = 3\nBinaryData = True\nCompressedData = False\n"
           "ElementSpacing = 1 1 1\nDimSize = 4 0 4\nElementType = MET_SHORT\n"
           "ElementDataFile = LOCAL\n";
    auto const empty = run_command(mcdose_exe() + " check " + ct_study("empty.mha"));
    EXPECT_TRUE(contains(empty.output, "/phantom/image")) << empty.output;
    EXPECT_FALSE(contains(empty.output, "calibration")) << empty.output;

    std::ofstream nan(dir_ / "nan.mha", std::ios::binary);
    nan << "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
           "CompressedData = False\nElementSpacing = 1 1 1\nDimSize = 2 2 2\n"
           "ElementType = MET_FLOAT\nElementDataFile = LOCAL\n";
    float const values[8] = {0, 0, 0, std::nanf(""), 0, 0, 0, 0};
    nan.write(reinterpret_cast<char const*>(values), sizeof(values));
    nan.close();
    auto j = minimal();
    j["phantom"] = {
        {"type", "ct_image"}, {"image", "nan.mha"}, {"calibration", {{"out_of_range", "clamp"}}}};
    auto const nan_r = run_command(mcdose_exe() + " check " + write_json("nan.json", j));
    EXPECT_TRUE(contains(nan_r.output, "/phantom/image")) << nan_r.output;
    EXPECT_TRUE(contains(nan_r.output, "not finite")) << nan_r.output;

    auto const dir = run_command(mcdose_exe() + " check " + dir_.string());
    EXPECT_EQ(1, dir.exit_code) << dir.output;
    EXPECT_TRUE(contains(dir.output, "is a directory")) << dir.output;
    EXPECT_FALSE(contains(dir.output, "malformed")) << dir.output;
}

// Hostile JSON through the CLI: deep nesting inside materials, 1e400,
// duplicate keys: one clean line each, no library text, no crash.
TEST_F(FaultsTest, HostileJsonIsRefusedCleanly)
{
    auto deep = minimal().dump();
    deep.insert(1, "\"materials\": " + std::string(100000, '[') + std::string(100000, ']') + ",");
    auto huge = minimal().dump();
    huge.replace(huge.find("1000"), 4, "1e400");
    auto dup = minimal().dump();
    dup.insert(1, "\"phantom\": {\"type\": \"shapes\"},");
    for (auto const& [name, text, expect] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"deep", deep, "nesting deeper"},
             {"huge", huge, "too large for a double"},
             {"dup", dup, "duplicate key 'phantom'"}})
    {
        auto const path = write(name + ".json", text);
        for (char const* command : {" check ", " compare-tallies --study "})
        {
            auto const r = run_command(mcdose_exe() + command + path);
            EXPECT_EQ(1, r.exit_code) << name << command << r.output;
            EXPECT_TRUE(contains(r.output, expect)) << name << command << r.output;
            EXPECT_FALSE(contains(r.output, "json.exception")) << r.output;
        }
    }
}
} // namespace mcdose::test

namespace mcdose::test
{
// Resource failures are reported with what was asked and what to change, not
// "terminate called" or a bare std::bad_alloc. (ulimit -v: not under
// AddressSanitizer, which reserves terabytes of address space.)
TEST_F(FaultsTest, ThreadAndMemoryFailuresAreExplained)
{
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "ulimit -v cannot be combined with AddressSanitizer";
#endif
    auto j = minimal();
    j["outputs"] = {{"directory", (dir_ / "out").string()}, {"name", "t"}};
    auto const study = write_json("t.json", j);
    // 4000 threads reserve 32 GB of stacks: more than the 3 GB allowed.
    auto const threads =
        run_command("ulimit -v 3000000; " + mcdose_exe() + " run " + study + " --threads 4000");
    EXPECT_EQ(1, threads.exit_code) << threads.output;
    EXPECT_TRUE(contains(threads.output, "cannot start CPU thread")) << threads.output;
    EXPECT_TRUE(contains(threads.output, "of 4000")) << threads.output;
    EXPECT_FALSE(contains(threads.output, "terminate called")) << threads.output;

    j["phantom"]["grid"]["dimensions"] = {1290, 1290, 1290}; // just below 2^31 voxels
    j["phantom"]["grid"]["spacing_cm"] = {0.01, 0.01, 0.01};
    auto const memory =
        run_command("ulimit -v 3000000; " + mcdose_exe() + " check " + write_json("m.json", j));
    EXPECT_EQ(1, memory.exit_code) << memory.output;
    EXPECT_TRUE(contains(memory.output, "out of memory")) << memory.output;
    EXPECT_TRUE(contains(memory.output, "coarser grid")) << memory.output;
}
} // namespace mcdose::test
