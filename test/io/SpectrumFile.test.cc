//! \file test/io/SpectrumFile.test.cc
#include "io/SpectrumFile.hh"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "io/InputError.hh"
#include "io/InputPath.hh"

namespace mcdose::test
{
namespace
{
std::string write_file(std::string const& name, std::string const& text)
{
    auto const path = std::filesystem::temp_directory_path() /
                      ("mcdose_spectrum_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(path) << text;
    return path.string();
}

//! The InputError message of reading `text`, or "" when it is accepted.
std::string error_of(std::string const& text)
{
    std::string const path = write_file("bad.csv", text);
    try
    {
        read_spectrum_lines(path);
    }
    catch (InputError const& e)
    {
        std::filesystem::remove(path);
        return std::string(e.pointer()) + ": " + e.problem();
    }
    std::filesystem::remove(path);
    return "";
}
} // namespace

TEST(SpectrumFile, ReadsLinesWithHeaderCommentsAndSeparators)
{
    std::string const path =
        write_file("co60.csv", "# Co-60 gamma lines (emission probability per decay)\n"
                               "energy_MeV,weight\n"
                               "1.173228, 0.9985\n"
                               "\n"
                               "1.332492\t0.999826\n"
                               "0.347140 ; 7.5e-5\n");
    SpectrumLines const s = read_spectrum_lines(path);
    std::filesystem::remove(path);
    ASSERT_EQ(s.energies_MeV.size(), 3u);
    EXPECT_DOUBLE_EQ(s.energies_MeV[0], 1.173228);
    EXPECT_DOUBLE_EQ(s.weights[1], 0.999826);
    EXPECT_DOUBLE_EQ(s.weights[2], 7.5e-5);
    EXPECT_EQ(s.line_numbers[0], 3);
    EXPECT_EQ(s.line_numbers[2], 6);
}

TEST(SpectrumFile, ErrorsNameTheLineAndTheFix)
{
    EXPECT_EQ(error_of("1.0,1\n2.0\n"),
              "line 2: expected two numbers, energy_MeV and weight (got '2.0')");
    EXPECT_EQ(error_of("1.0,1\n-2,1\n"), "line 2: the energy must be a positive number of MeV");
    EXPECT_EQ(error_of("1.0,-1\n"), "line 1: the weight must be a finite number >= 0");
    EXPECT_EQ(error_of("energy,weight\n1.0,0\n"),
              ": all weights are zero; give at least one positive weight");
    EXPECT_EQ(error_of("# only a comment\n"),
              ": no spectrum lines; give rows of energy_MeV and weight");
    EXPECT_EQ(error_of("1.0,1\nfoo,bar\n"),
              "line 2: expected two numbers, energy_MeV and weight (got 'foo,bar')");
    try
    {
        read_spectrum_lines("/nonexistent/spectrum.csv");
        ADD_FAILURE() << "read a missing file";
    }
    catch (InputError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/spectrum.csv"), std::string::npos);
    }
}

TEST(InputPath, RelativeToTheInputFile)
{
    EXPECT_EQ(input_base_dir("studies/a/study.json"), "studies/a");
    EXPECT_EQ(input_base_dir("study.json"), "");
    EXPECT_EQ(resolve_input_path("data/x.mha", "studies/a"), "studies/a/data/x.mha");
    EXPECT_EQ(resolve_input_path("../x.mha", "studies/a"), "studies/x.mha");
    EXPECT_EQ(resolve_input_path("/abs/x.mha", "studies/a"), "/abs/x.mha");
    EXPECT_EQ(resolve_input_path("x.mha", ""), "x.mha");
}
} // namespace mcdose::test
