//! \file io/SpectrumFile.hh
//! Emission spectra as discrete lines from a two-column text file: one line per energy,
//! "energy_MeV weight" separated by a comma, semicolon, tab or spaces (a CSV from a
//! spreadsheet, or a radionuclide table such as NUDAT's copied as text). Lines starting
//! with '#' and blank lines are skipped; so is a first line that is a header (not two
//! numbers). Weights are relative (e.g. emission probabilities per decay).
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
struct SpectrumLines
{
    std::vector<double> energies_MeV;
    std::vector<double> weights;
    std::vector<int> line_numbers; //!< where each entry is in the file (for messages)
};

//! Read a line spectrum. Throws InputError naming the file, the line and the fix for a
//! missing or unreadable file, a row that is not two numbers, an energy that is not
//! positive and finite, a negative or non-finite weight, and a file without a positive
//! weight. Energies are not checked against the physics tables here (the source does).
SpectrumLines read_spectrum_lines(std::string const& path);
} // namespace mcdose
