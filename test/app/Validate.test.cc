//! \file test/app/Validate.test.cc
//! `mcdose validate` as a user runs it: on copies of the committed 20 MeV
//! electron case, the unchanged copy passes (report, CSV, plot) and a copy whose
//! reference carries a planted 2 % dose error fails with a non-zero exit status
//! and a report that says which criterion failed. Transport on the CPU with the
//! case's quick history count.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"

namespace mcdose::test
{
namespace
{
namespace fs = std::filesystem;

std::string read_text(fs::path const& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

//! Copy the committed case to `dir/name`; with `scale` != 1 multiply the
//! reference's energy deposited (edep_MeV, column 6) by it.
void copy_case(fs::path const& dir, std::string const& name, double scale)
{
    fs::path const from = fs::path(source_dir()) / "validation" / "electron_20MeV_water";
    fs::path const to = dir / name;
    fs::create_directories(to);
    for (char const* f : {"case.json", "study.json", "README.md"})
        fs::copy_file(from / f, to / f);
    std::ifstream in(from / "reference_penelope_idd.csv");
    std::ofstream out(to / "reference_penelope_idd.csv");
    std::string line;
    std::getline(in, line);
    out << line << '\n';
    while (std::getline(in, line))
    {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
            cells.push_back(cell);
        ASSERT_GE(cells.size(), 7u) << line;
        std::ostringstream v;
        v.precision(9);
        v << std::stod(cells[5]) * scale;
        cells[5] = v.str();
        for (std::size_t i = 0; i < cells.size(); ++i)
            out << (i ? "," : "") << cells[i];
        out << '\n';
    }
}

struct ValidateFixture : ::testing::Test
{
    fs::path dir;
    void SetUp() override
    {
        // One folder per test: ctest runs the tests of this file in parallel.
        dir = fs::temp_directory_path() /
              ("mcdose_validate_" +
               std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string validate(std::string const& cases, std::string const& extra = "")
    {
        return mcdose_exe() + " validate --quick --backend cpu --cases-dir " +
               (dir / cases).string() + " --output-dir " + (dir / (cases + "_report")).string() +
               extra;
    }
};
} // namespace

TEST_F(ValidateFixture, UnchangedCasePassesAndPlantedTwoPercentErrorFails)
{
    copy_case(dir / "good", "electron_20MeV_water", 1.0);
    auto const ok = run_command(validate("good"));
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    fs::path const report = dir / "good_report";
    std::string const md = read_text(report / "report.md");
    EXPECT_NE(md.find("| 20 MeV electron pencil beam in water | cpu | 40000 |"), std::string::npos)
        << md;
    EXPECT_NE(md.find("every case passes"), std::string::npos) << md;
    EXPECT_TRUE(fs::is_regular_file(report / "electron_20MeV_water" / "comparison.csv"));
    bool const matplotlib = run_command("python3 -c 'import matplotlib'").exit_code == 0 ||
                            run_command("/usr/bin/python3 -c 'import matplotlib'").exit_code == 0;
    EXPECT_EQ(fs::is_regular_file(report / "electron_20MeV_water" / "electron_20MeV_water.png"),
              matplotlib)
        << md;

    // The reference 2 % high in every bin: the energy deposited is 0.98 of it.
    // Without a python3 (MCDOSE_PYTHON names none) the report says that the curves are in
    // the CSV.
    copy_case(dir / "planted", "electron_20MeV_water", 1.02);
    auto const bad = run_command("env MCDOSE_PYTHON=/nonexistent/python3 " + validate("planted"));
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
    std::string const bad_md = read_text(dir / "planted_report" / "report.md");
    EXPECT_NE(bad_md.find("**at least one case fails**"), std::string::npos) << bad_md;
    EXPECT_NE(bad_md.find("| energy deposited per history |"), std::string::npos) << bad_md;
    auto const row = bad_md.find("| energy deposited per history |");
    EXPECT_NE(bad_md.substr(row, bad_md.find('\n', row) - row).find("**FAIL**"), std::string::npos)
        << bad_md;
    EXPECT_NE(bad_md.find("python3 with matplotlib was not found"), std::string::npos) << bad_md;
}

TEST_F(ValidateFixture, ListsCasesAndRefusesUnknownOnes)
{
    auto const list =
        run_command(mcdose_exe() + " validate --list --cases-dir " + source_dir() + "/validation");
    EXPECT_EQ(list.exit_code, 0) << list.output;
    EXPECT_NE(list.output.find("electron_20MeV_water: 20 MeV electron pencil beam in water"),
              std::string::npos)
        << list.output;
    EXPECT_NE(list.output.find("photon_6MeV_water"), std::string::npos) << list.output;

    auto const unknown = run_command(mcdose_exe() + " validate --case nosuch --cases-dir " +
                                     source_dir() + "/validation");
    EXPECT_NE(unknown.exit_code, 0) << unknown.output;
    EXPECT_NE(unknown.output.find("--case 'nosuch': no such case"), std::string::npos)
        << unknown.output;
    EXPECT_NE(unknown.output.find("electron_20MeV_water"), std::string::npos) << unknown.output;

    auto const empty = run_command(mcdose_exe() + " validate --cases-dir " + dir.string());
    EXPECT_NE(empty.exit_code, 0) << empty.output;
    EXPECT_NE(empty.output.find("does not exist"), std::string::npos) << empty.output;
}
} // namespace mcdose::test
