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

//! The InputError message of reading `text` from `name`, or "" when it is accepted.
std::string error_of(std::string const& text, std::string const& name = "bad.csv")
{
    std::string const path = write_file(name, text);
    try
    {
        read_spectrum_file(path);
    }
    catch (InputError const& e)
    {
        std::filesystem::remove(path);
        return std::string(e.pointer()) + ": " + e.problem();
    }
    std::filesystem::remove(path);
    return "";
}

SpectrumFileData read_text(std::string const& name, std::string const& text,
                           SpectrumFileFormat format = SpectrumFileFormat::automatic,
                           bool per_MeV = false)
{
    std::string const path = write_file(name, text);
    SpectrumFileData s = read_spectrum_file(path, format, per_MeV);
    std::filesystem::remove(path);
    return s;
}
} // namespace

TEST(SpectrumFile, ReadsLinesWithHeaderCommentsAndSeparators)
{
    SpectrumFileData const s =
        read_text("co60.csv", "# Co-60 gamma lines (emission probability per decay)\n"
                              "energy_MeV,weight\n"
                              "1.173228, 0.9985\n"
                              "\n"
                              "1.332492\t0.999826\n"
                              "0.347140 ; 7.5e-5\n");
    ASSERT_EQ(s.lines_MeV.size(), 3u);
    EXPECT_TRUE(s.edges_MeV.empty());
    EXPECT_DOUBLE_EQ(s.lines_MeV[0], 1.173228);
    EXPECT_DOUBLE_EQ(s.line_weights[1], 0.999826);
    EXPECT_DOUBLE_EQ(s.line_weights[2], 7.5e-5);
    EXPECT_EQ(s.line_rows[0], 3);
    EXPECT_EQ(s.line_rows[2], 6);
}

// Rows of three numbers are bins; a gap becomes a zero-weight bin; lines and bins mix.
TEST(SpectrumFile, ReadsBinsAndLinesTogether)
{
    SpectrumFileData const s = read_text("mixed.txt", "# low high weight, or energy weight\n"
                                                      "0.0 0.5 2\n"
                                                      "0.5 1.0 3\n"
                                                      "0.511 4\n"
                                                      "2.0 3.0 1\n");
    EXPECT_EQ(s.edges_MeV, (std::vector<double>{0.0, 0.5, 1.0, 2.0, 3.0}));
    EXPECT_EQ(s.bin_weights, (std::vector<double>{2, 3, 0, 1}));
    EXPECT_EQ(s.lines_MeV, (std::vector<double>{0.511}));
    EXPECT_EQ(s.line_weights, (std::vector<double>{4}));
    EXPECT_TRUE(s.edge_density.empty());

    // Per MeV: a bin's weight is the value times its width.
    SpectrumFileData const d =
        read_text("per_mev.txt", "0 0.5 2\n0.5 2.5 3\n", SpectrumFileFormat::columns, true);
    EXPECT_EQ(d.bin_weights, (std::vector<double>{1.0, 6.0}));
}

// The EGSnrc format, modes 0 to 3 (BEAMnrc/DOSXYZnrc ensrc, egs++ EGS_TabulatedSpectrum).
TEST(SpectrumFile, ReadsEgsnrcSpectra)
{
    // Mode 1: counts per MeV times the width of each bin (the first starts at ENMIN).
    SpectrumFileData const m1 = read_text("m1.spectrum", " test spectrum: cts/MeV\n"
                                                         "   3, 0.1, 1\n"
                                                         "   0.5, 2.0\n"
                                                         "   1.0, 1.0\n"
                                                         "   2.0, 0.5\n");
    EXPECT_EQ(m1.title, " test spectrum: cts/MeV");
    EXPECT_EQ(m1.edges_MeV, (std::vector<double>{0.1, 0.5, 1.0, 2.0}));
    ASSERT_EQ(m1.bin_weights.size(), 3u);
    EXPECT_DOUBLE_EQ(m1.bin_weights[0], 0.8);
    EXPECT_DOUBLE_EQ(m1.bin_weights[1], 0.5);
    EXPECT_DOUBLE_EQ(m1.bin_weights[2], 0.5);
    EXPECT_EQ(m1.edge_rows, (std::vector<int>{2, 3, 4, 5}));

    // Mode 0: counts per bin as given; Fortran exponents.
    SpectrumFileData const m0 = read_text("m0.ensrc", "title\n2 0 0\n1.0 3.0D-1\n3.0 7.0d-1\n");
    EXPECT_EQ(m0.edges_MeV, (std::vector<double>{0.0, 1.0, 3.0}));
    EXPECT_DOUBLE_EQ(m0.bin_weights[0], 0.3);
    EXPECT_DOUBLE_EQ(m0.bin_weights[1], 0.7);

    // Mode 2: lines; ENMIN unused.
    SpectrumFileData const m2 =
        read_text("co60.spectrum", "Co-60 lines\n2, 0.0, 2\n1.17, 0.5\n1.33, 0.5\n");
    EXPECT_TRUE(m2.edges_MeV.empty());
    EXPECT_EQ(m2.lines_MeV, (std::vector<double>{1.17, 1.33}));
    EXPECT_EQ(m2.line_rows, (std::vector<int>{3, 4}));

    // Mode 3: points of a piecewise-linear density; bin weights are trapezoids.
    SpectrumFileData const m3 =
        read_text("lin.spectrum", "linear\n3, 0.0, 3\n1.0, 0.0\n2.0, 2.0\n4.0, 1.0\n");
    EXPECT_EQ(m3.edges_MeV, (std::vector<double>{1.0, 2.0, 4.0}));
    EXPECT_EQ(m3.edge_density, (std::vector<double>{0.0, 2.0, 1.0}));
    EXPECT_EQ(m3.bin_weights, (std::vector<double>{1.0, 3.0}));

    // A .txt file read as EGSnrc when asked.
    SpectrumFileData const forced =
        read_text("m0.txt", "title\n1 0 0\n1.0 1\n", SpectrumFileFormat::egsnrc);
    EXPECT_EQ(forced.edges_MeV, (std::vector<double>{0.0, 1.0}));
}

TEST(SpectrumFile, ErrorsNameTheLineAndTheFix)
{
    EXPECT_EQ(error_of("1.0,1\n2.0\n"),
              "line 2: expected two numbers, energy_MeV and weight (a line), or three, low_MeV "
              "high_MeV weight (a bin) (got '2.0')");
    EXPECT_EQ(error_of("1.0,1\n-2,1\n"), "line 2: the energy -2 must be a positive number of MeV");
    EXPECT_EQ(error_of("1.0,-1\n"),
              "line 1: the weight -1 is not a finite number >= 0; weights are relative numbers "
              "of particles");
    EXPECT_EQ(error_of("energy,weight\n1.0,0\n"),
              ": all weights are zero; give at least one positive weight");
    EXPECT_EQ(error_of("# only a comment\n"),
              ": no spectrum rows; give rows of energy_MeV and weight (lines) or low_MeV "
              "high_MeV weight (bins)");
    // Unsorted, overlapping and duplicate bins.
    EXPECT_EQ(error_of("1 2 1\n0.5 1.5 1\n"),
              "line 2: the bin starts at 0.500000 MeV, below the end of the previous bin "
              "(2.000000 MeV); give bins in increasing energy without overlap");
    EXPECT_EQ(error_of("1 1 1\n"),
              "line 1: the bin's high edge must be above its low edge (got 1.000000 to "
              "1.000000 MeV); give low_MeV high_MeV weight");
    // EGSnrc: the header, the mode, the order and the count of rows.
    EXPECT_EQ(error_of("t\n2 0\n1 1\n2 1\n", "a.spectrum"),
              "line 2: expected 'NENSRC, ENMIN, MODE' (the number of rows, the lowest energy "
              "in MeV, the mode 0 to 3) (got '2 0')");
    EXPECT_EQ(error_of("t\n2 0 4\n1 1\n2 1\n", "a.spectrum"),
              "line 2: MODE must be 0 (counts per bin), 1 (counts per MeV), 2 (lines) or 3 "
              "(points of a piecewise-linear spectrum) (got '4')");
    EXPECT_EQ(error_of("t\n2 0 0\n1 1\n1 1\n", "a.spectrum"),
              "line 4: the energy 1.000000 MeV does not exceed the previous one (1.000000 "
              "MeV); energies must increase strictly");
    EXPECT_EQ(error_of("t\n2 1.5 1\n1 1\n2 1\n", "a.spectrum"),
              "line 3: the energy 1.000000 MeV does not exceed the previous one (1.500000 "
              "MeV); energies must increase strictly from ENMIN");
    EXPECT_EQ(error_of("t\n3 0 1\n1 1\n2 1\n", "a.spectrum"),
              "line 5: expected 'energy, value' (row 3 of the 3 that row 2 announces) (got '')");
    EXPECT_EQ(error_of("t\n2 0 1\n1 -1\n2 1\n", "a.spectrum"),
              "line 3: the weight -1 is not a finite number >= 0; weights are relative "
              "numbers of particles");
    EXPECT_EQ(error_of("t\n2 0 1\n1 0\n2 0\n", "a.spectrum"),
              ": all weights are zero; give at least one positive weight");
    try
    {
        read_spectrum_file("/nonexistent/spectrum.csv");
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
