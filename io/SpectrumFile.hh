//! \file io/SpectrumFile.hh
//! Emission spectra from files, in the two formats users have:
//!
//! - **columns** (plain text or CSV; fields separated by a comma, semicolon, tab or spaces;
//!   `#` starts a comment row; blank rows and a first header row that is not numbers are
//!   skipped): a row of two numbers `energy_MeV weight` is a discrete line (a radionuclide's
//!   emission lines with their probabilities per decay), a row of three numbers
//!   `low_MeV high_MeV weight` a histogram bin. Both kinds may be mixed in one file (a line +
//!   continuum spectrum). Bins are given in increasing energy without overlap; a gap between
//!   two bins is a bin of weight 0. A bin's weight is the relative number of particles in the
//!   bin, or, when read with `per_MeV`, per MeV of the bin (multiplied by its width here).
//! - **egsnrc**: the EGSnrc spectrum file (`.spectrum`, `.ensrc`) read by BEAMnrc, DOSXYZnrc
//!   (ensrc.mortran) and egs++ (EGS_TabulatedSpectrum): row 1 a title; row 2 `NENSRC, ENMIN,
//!   MODE`; then NENSRC rows `energy, value`. MODE 0: a histogram, `energy` the top of a bin
//!   (ENMIN the bottom of the first), `value` the counts in the bin; MODE 1: the same with
//!   `value` in counts per MeV (multiplied by the bin width here); MODE 2: discrete lines,
//!   `value` the probability of the line (ENMIN unused); MODE 3: a piecewise-linear
//!   spectrum, `value` the density at `energy` (ENMIN unused).
//!
//! The reader checks the form (numbers, order, signs); whether the energies are within the
//! physics tables is the source's check (sources/Source.json.cc).
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
enum class SpectrumFileFormat
{
    automatic, //!< egsnrc for a `.spectrum` or `.ensrc` file, columns otherwise
    columns,
    egsnrc
};

//! A spectrum as read: histogram bins and discrete lines, each weight the relative number
//! of particles (per bin, per line; both on one scale).
struct SpectrumFileData
{
    std::string title;                //!< EGSnrc: the title row
    std::vector<double> edges_MeV;    //!< bin edges, n_bins + 1 (empty without bins)
    std::vector<double> bin_weights;  //!< n_bins
    std::vector<double> edge_density; //!< EGSnrc mode 3: density at each edge, else empty
    std::vector<int> edge_rows;       //!< the file row of each edge (for messages)
    std::vector<double> lines_MeV;
    std::vector<double> line_weights;
    std::vector<int> line_rows; //!< the file row of each line (for messages)
};

//! Read a spectrum file. Throws InputError naming the file, the row and the fix for a
//! missing or unreadable file, a malformed row, a negative or non-finite weight or energy,
//! bin edges that do not increase strictly, an unknown EGSnrc mode and a spectrum without
//! a positive weight. `per_MeV` applies to the bins of a columns file.
SpectrumFileData read_spectrum_file(std::string const& path,
                                    SpectrumFileFormat format = SpectrumFileFormat::automatic,
                                    bool per_MeV = false);
} // namespace mcdose
