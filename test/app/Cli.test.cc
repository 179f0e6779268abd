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
} // namespace mcdose::test
