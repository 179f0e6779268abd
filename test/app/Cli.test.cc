//! What users see from the CLI: version, info, usage errors.
#include <filesystem>

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
