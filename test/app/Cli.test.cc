//! What users see from the CLI: version, info, usage errors.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"
#include "core/Config.hh"

namespace mcdose::test
{
TEST(CliTest, VersionExitsZero)
{
    auto r = run_command(mcdose_exe() + " --version");
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find(std::string("mcdose ") + BuildInfo::version), std::string::npos)
        << r.output;
}

TEST(CliTest, InfoDescribesBuildAndGpus)
{
    auto r = run_command(mcdose_exe() + " info");
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("CUDA"), std::string::npos) << r.output;
    if (device_count() == 0)
        EXPECT_NE(r.output.find("the CPU backend will be used"), std::string::npos) << r.output;
    else
        EXPECT_NE(r.output.find("compute capability"), std::string::npos) << r.output;

    auto j = run_command(mcdose_exe() + " info --json");
    EXPECT_EQ(0, j.exit_code) << j.output;
    EXPECT_NE(j.output.find("\"gpus\""), std::string::npos) << j.output;
}

TEST(CliTest, UnknownSubcommandFailsWithHint)
{
    auto r = run_command(mcdose_exe() + " frobnicate");
    EXPECT_NE(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("--help"), std::string::npos) << r.output;
}

TEST(CliTest, NoSubcommandFailsWithHint)
{
    auto r = run_command(mcdose_exe());
    EXPECT_NE(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("--help"), std::string::npos) << r.output;
}

TEST(CliTest, HelpListsCommands)
{
    auto r = run_command(mcdose_exe() + " --help");
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("info"), std::string::npos) << r.output;
}
// `run --histories` takes scientific notation and names itself on bad values.
TEST(CliTest, RunHistoriesAcceptsScientificNotation)
{
    auto const out = std::filesystem::temp_directory_path() / "mcdose_cli_histories";
    std::filesystem::remove_all(out);
    std::string const study = source_dir() + "/validation/electron_20MeV_water/study.json";
    auto ok = run_command(mcdose_exe() + " run " + study + " --backend cpu --histories 2e2" +
                          " --output-dir " + out.string());
    EXPECT_EQ(0, ok.exit_code) << ok.output;
    EXPECT_NE(ok.output.find("histories        : 200"), std::string::npos) << ok.output;
    auto bad = run_command(mcdose_exe() + " run " + study + " --backend cpu --histories 1.5" +
                           " --output-dir " + out.string());
    EXPECT_NE(0, bad.exit_code) << bad.output;
    EXPECT_NE(bad.output.find("'--histories' takes positive whole numbers"), std::string::npos)
        << bad.output;
    std::filesystem::remove_all(out);
}

// `run --if-exists` takes the spellings of outputs.if_exists (the run below takes
// "overwrite") and names them on anything else, before the study runs.
TEST(CliTest, RunIfExistsTakesTheStudySpellings)
{
    std::string const study = source_dir() + "/validation/electron_20MeV_water/study.json";
    auto bad = run_command(mcdose_exe() + " run " + study + " --backend cpu --if-exists Overwrite");
    EXPECT_NE(0, bad.exit_code) << bad.output;
    EXPECT_NE(bad.output.find("--if-exists"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find("error,overwrite,increment"), std::string::npos) << bad.output;
    EXPECT_EQ(bad.output.find("histories        :"), std::string::npos) << bad.output;
}

TEST(CliTest, RunReadsThePhysicsTablesFromTheCacheTheSecondTime)
{
    namespace fs = std::filesystem;
    auto const out = fs::temp_directory_path() / "mcdose_cli_table_cache";
    fs::remove_all(out);
    std::string const study = source_dir() + "/validation/electron_20MeV_water/study.json";
    std::string const run = mcdose_exe() + " run " + study +
                            " --backend cpu --histories 200 --if-exists overwrite --output-dir " +
                            (out / "results").string();
    std::string const cache = " --table-cache-dir " + (out / "cache").string();

    auto first = run_command(run + cache);
    ASSERT_EQ(0, first.exit_code) << first.output;
    EXPECT_NE(first.output.find("physics tables   : built in"), std::string::npos) << first.output;
    auto second = run_command(run + cache);
    ASSERT_EQ(0, second.exit_code) << second.output;
    EXPECT_NE(second.output.find("physics tables   : read from the cache"), std::string::npos)
        << second.output;

    // A damaged file: a warning, the tables rebuilt, the run goes on.
    for (auto const& f : fs::directory_iterator(out / "cache"))
        fs::resize_file(f.path(), fs::file_size(f.path()) / 2);
    auto damaged = run_command(run + cache);
    ASSERT_EQ(0, damaged.exit_code) << damaged.output;
    EXPECT_NE(damaged.output.find("warning: ignored the cached physics tables"), std::string::npos)
        << damaged.output;

    auto off = run_command(run + cache + " --no-table-cache");
    ASSERT_EQ(0, off.exit_code) << off.output;
    EXPECT_NE(off.output.find("physics tables   : built in"), std::string::npos) << off.output;
    EXPECT_NE(off.output.find("not cached"), std::string::npos) << off.output;
    fs::remove_all(out);
}
} // namespace mcdose::test

namespace mcdose::test
{
// Global options after the subcommand: `mcdose run x.json -q` and `mcdose check x.json -q`
// are accepted (and -q silences `check`'s OK line); an unknown option is still an error.
TEST(CliHabits, GlobalOptionsAfterTheSubcommand)
{
    auto const out = std::filesystem::temp_directory_path() / "mcdose_cli_quiet_after";
    std::filesystem::remove_all(out);
    std::string const study = source_dir() + "/validation/electron_20MeV_water/study.json";
    auto run = run_command(mcdose_exe() + " run " + study + " --backend cpu --histories 200" +
                           " --output-dir " + out.string() + " -q");
    EXPECT_EQ(0, run.exit_code) << run.output;
    auto check_before = run_command(mcdose_exe() + " -q check " + study);
    auto check_after = run_command(mcdose_exe() + " check " + study + " --quiet");
    EXPECT_EQ(0, check_before.exit_code) << check_before.output;
    EXPECT_EQ(0, check_after.exit_code) << check_after.output;
    EXPECT_EQ(check_after.output, check_before.output);
    EXPECT_EQ(check_after.output.find("OK"), std::string::npos) << check_after.output;
    auto loud = run_command(mcdose_exe() + " check " + study);
    EXPECT_NE(loud.output.find("OK"), std::string::npos) << loud.output;
    auto bad = run_command(mcdose_exe() + " check " + study + " --frobnicate");
    EXPECT_EQ(2, bad.exit_code) << bad.output;
    EXPECT_NE(bad.output.find("frobnicate"), std::string::npos) << bad.output;
    std::filesystem::remove_all(out);
}

// --help points to the study fields' reference and to the completion script.
TEST(CliHabits, HelpPointsToTheStudyFields)
{
    auto r = run_command(mcdose_exe() + " --help");
    EXPECT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("docs/study-reference.md"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("outputs"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("completion bash"), std::string::npos) << r.output;
}

// `mcdose completion bash` lists every command and each command's own options, and bash
// accepts the script (bash -n) and completes from it.
TEST(CliHabits, BashCompletionListsCommandsAndOptions)
{
    auto r = run_command(mcdose_exe() + " completion bash");
    ASSERT_EQ(0, r.exit_code) << r.output;
    for (char const* word : {"complete -o filenames -F _mcdose mcdose",
                             " run) opts=", " calibrate) opts=", " compare) opts=", "--histories",
                             "--point-cm", "--quiet"})
    {
        EXPECT_NE(r.output.find(word), std::string::npos) << word << "\n" << r.output;
    }
    auto const script = std::filesystem::temp_directory_path() / "mcdose_completion.bash";
    {
        std::ofstream(script) << r.output;
    }
    auto syntax = run_command("bash -n " + script.string());
    EXPECT_EQ(0, syntax.exit_code) << syntax.output;
    // Complete "mcdose run --hist" as bash would.
    auto complete = run_command(
        "bash -c 'source " + script.string() +
        "; COMP_WORDS=(mcdose run --hist); COMP_CWORD=2; _mcdose; echo \"${COMPREPLY[@]}\"'");
    EXPECT_EQ(0, complete.exit_code) << complete.output;
    EXPECT_NE(complete.output.find("--histories"), std::string::npos) << complete.output;
    auto bad = run_command(mcdose_exe() + " completion fish");
    EXPECT_EQ(2, bad.exit_code) << bad.output;
    std::filesystem::remove(script);
}

// -V names the version, the commit and the backends built in.
TEST(CliHabits, ShortVersionFlagNamesTheBuild)
{
    auto r = run_command(mcdose_exe() + " -V");
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(
        r.output.find(std::string("mcdose ") + BuildInfo::version + " (" + BuildInfo::git_describe),
        std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(MCDOSE_USE_CUDA ? "backends: CPU and CUDA GPU" : "backends: CPU only"),
              std::string::npos)
        << r.output;
}

// --help lists the developer commands apart, after the commands a user runs.
TEST(CliHabits, HelpGroupsTheDeveloperCommands)
{
    auto r = run_command(mcdose_exe() + " --help");
    ASSERT_EQ(0, r.exit_code) << r.output;
    auto const developer = r.output.find("Developer commands");
    ASSERT_NE(developer, std::string::npos) << r.output;
    for (char const* name : {"compare-tallies", "crosscheck", "rng ", "tally-bench"})
        EXPECT_GT(r.output.find(std::string("  ") + name), developer) << name << "\n" << r.output;
    for (char const* name : {"run ", "check ", "compare ", "validate "})
        EXPECT_LT(r.output.find(std::string("  ") + name), developer) << name << "\n" << r.output;
}

// -q prints only the paths written (stdout, one a line); the step timings and the
// uncertainty's long definition are not printed by default, the timings with -v.
TEST(CliHabits, QuietPrintsThePathsAndVerboseTheTimings)
{
    namespace fs = std::filesystem;
    auto const out = fs::temp_directory_path() / "mcdose_cli_quiet_paths";
    fs::remove_all(out);
    std::string const study = source_dir() + "/validation/electron_20MeV_water/study.json";
    std::string const run = mcdose_exe() + " run " + study +
                            " --backend cpu --histories 200 --if-exists overwrite --output-dir " +
                            out.string();
    auto quiet = run_command(run + " -q 2>/dev/null");
    ASSERT_EQ(0, quiet.exit_code) << quiet.output;
    std::istringstream lines(quiet.output);
    int paths = 0;
    for (std::string line; std::getline(lines, line);)
    {
        EXPECT_TRUE(fs::is_regular_file(line)) << "not a path written: '" << line << "'";
        ++paths;
    }
    EXPECT_GE(paths, 3) << quiet.output;
    auto plain = run_command(run);
    ASSERT_EQ(0, plain.exit_code) << plain.output;
    EXPECT_EQ(plain.output.find("time per step"), std::string::npos) << plain.output;
    EXPECT_EQ(plain.output.find("TG-105"), std::string::npos) << plain.output;
    EXPECT_NE(plain.output.find("wrote"), std::string::npos) << plain.output;
    auto verbose = run_command(run + " -v");
    ASSERT_EQ(0, verbose.exit_code) << verbose.output;
    EXPECT_NE(verbose.output.find("time per step    : phantom"), std::string::npos)
        << verbose.output;
    fs::remove_all(out);
}

// --resume continues an interrupted run into its own outputs without --if-exists (the
// README's resume line); the results of a complete run are still protected.
TEST(CliHabits, ResumeReplacesTheInterruptedRunsOwnOutputs)
{
    namespace fs = std::filesystem;
    auto const out = fs::temp_directory_path() / "mcdose_cli_resume_outputs";
    fs::remove_all(out);
    std::string const study = source_dir() + "/validation/electron_20MeV_water/study.json";
    std::string const checkpoint = (out / "run.ckpt").string();
    std::string const run = mcdose_exe() + " run " + study +
                            " --backend cpu --histories 400 --output-dir " + (out / "r").string() +
                            " --checkpoint " + checkpoint;
    auto first = run_command(run);
    ASSERT_EQ(0, first.exit_code) << first.output;
    // The first run complete: its results are not replaced by a resumed run unasked.
    auto refused = run_command(run + " --resume " + checkpoint);
    EXPECT_EQ(1, refused.exit_code) << refused.output;
    EXPECT_NE(refused.output.find("if_exists"), std::string::npos) << refused.output;
    // Its manifest as an interrupted run leaves it (the results of the batches so far).
    fs::path manifest;
    for (auto const& f : fs::directory_iterator(out / "r"))
    {
        if (f.path().string().find("_manifest.json") != std::string::npos)
            manifest = f.path();
    }
    ASSERT_FALSE(manifest.empty());
    std::string text;
    {
        std::ifstream in(manifest);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto const at = text.find("\"complete\": true");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, 16, "\"complete\": false");
    std::ofstream(manifest) << text;
    auto resumed = run_command(run + " --resume " + checkpoint);
    EXPECT_EQ(0, resumed.exit_code) << resumed.output;
    EXPECT_NE(resumed.output.find("resumed"), std::string::npos) << resumed.output;
    fs::remove_all(out);
}

// Hostile JSON is refused with a short message, never a crash: a materials file nested
// 100,000 deep, a study with a 70,000-character key (named by its start and length).
TEST(CliHabits, HostileJsonIsRefusedBriefly)
{
    namespace fs = std::filesystem;
    auto const dir = fs::temp_directory_path() / "mcdose_cli_hostile_json";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "deep.json") << std::string(100000, '[') << std::string(100000, ']');
    auto deep = run_command(mcdose_exe() + " materials --material water --materials-file " +
                            (dir / "deep.json").string());
    EXPECT_EQ(1, deep.exit_code) << deep.output.substr(0, 500);
    EXPECT_NE(deep.output.find("nesting deeper than"), std::string::npos)
        << deep.output.substr(0, 500);
    std::ofstream(dir / "key.json")
        << R"({"phantom": {"type": "shapes", ")" << std::string(70000, 'k') << R"(": 1}})";
    auto key = run_command(mcdose_exe() + " check " + (dir / "key.json").string());
    EXPECT_NE(0, key.exit_code);
    EXPECT_LT(key.output.size(), 2000u) << key.output.substr(0, 500);
    EXPECT_NE(key.output.find("(70000 characters)"), std::string::npos)
        << key.output.substr(0, 500);
    fs::remove_all(dir);
}
} // namespace mcdose::test
