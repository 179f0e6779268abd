//! \file io/SpectrumFile.cc
#include "io/SpectrumFile.hh"

#include <cmath>
#include <sstream>

#include "io/InputError.hh"
#include "io/InputFile.hh"

namespace mcdose
{
namespace
{
//! The fields of a row split at commas, semicolons, tabs and spaces.
std::vector<std::string> split_fields(std::string const& row)
{
    std::vector<std::string> fields;
    std::string current;
    for (char c : row)
    {
        if (c == ',' || c == ';' || c == '\t' || c == ' ' || c == '\r')
        {
            if (!current.empty())
                fields.push_back(current);
            current.clear();
            continue;
        }
        current += c;
    }
    if (!current.empty())
        fields.push_back(current);
    return fields;
}

//! The whole field as a number (a Fortran exponent `1.5D-3` too), or false.
bool to_number(std::string text, double* value)
{
    for (char& c : text)
    {
        if (c == 'D' || c == 'd')
            c = 'E';
    }
    try
    {
        std::size_t used = 0;
        *value = std::stod(text, &used);
        return used == text.size();
    }
    catch (std::exception const&)
    {
        return false;
    }
}

bool all_numbers(std::vector<std::string> const& fields, double* values)
{
    for (std::size_t i = 0; i < fields.size(); ++i)
    {
        if (!to_number(fields[i], &values[i]))
            return false;
    }
    return true;
}

std::string row_name(int row)
{
    return "line " + std::to_string(row);
}

void check_weight(std::string const& path, int row, double w)
{
    if (!(w >= 0) || !std::isfinite(w))
    {
        std::ostringstream os;
        os << "the weight " << w
           << " is not a finite number >= 0; weights are relative numbers of particles";
        throw InputError(path, row_name(row), os.str());
    }
}

void check_energy(std::string const& path, int row, double e, bool zero_allowed)
{
    if (!std::isfinite(e) || e < 0 || (!zero_allowed && e == 0))
    {
        std::ostringstream os;
        os << "the energy " << e << " must be a "
           << (zero_allowed ? "finite number >= 0" : "positive number") << " of MeV";
        throw InputError(path, row_name(row), os.str());
    }
}

//! Append the bin [lo, hi) with weight w (a zero-weight bin fills a gap before it).
void add_bin(SpectrumFileData& s, std::string const& path, int row, double lo, double hi, double w)
{
    check_energy(path, row, lo, true);
    check_energy(path, row, hi, true);
    check_weight(path, row, w);
    if (!(hi > lo))
    {
        throw InputError(path, row_name(row),
                         "the bin's high edge must be above its low edge (got " +
                             std::to_string(lo) + " to " + std::to_string(hi) +
                             " MeV); give low_MeV high_MeV weight");
    }
    if (!s.edges_MeV.empty() && lo < s.edges_MeV.back())
    {
        throw InputError(path, row_name(row),
                         "the bin starts at " + std::to_string(lo) +
                             " MeV, below the end of the previous bin (" +
                             std::to_string(s.edges_MeV.back()) +
                             " MeV); give bins in increasing energy without overlap");
    }
    if (s.edges_MeV.empty() || lo > s.edges_MeV.back())
    {
        if (!s.edges_MeV.empty())
            s.bin_weights.push_back(0); // the gap
        s.edges_MeV.push_back(lo);
        s.edge_rows.push_back(row);
    }
    s.edges_MeV.push_back(hi);
    s.edge_rows.push_back(row);
    s.bin_weights.push_back(w);
}

void add_line(SpectrumFileData& s, std::string const& path, int row, double e, double w)
{
    check_energy(path, row, e, false);
    check_weight(path, row, w);
    s.lines_MeV.push_back(e);
    s.line_weights.push_back(w);
    s.line_rows.push_back(row);
}

SpectrumFileData read_columns(std::string const& path, std::istream& in, bool per_MeV)
{
    SpectrumFileData s;
    std::string text;
    bool first_data_row = true;
    for (int row = 1; std::getline(in, text); ++row)
    {
        auto const fields = split_fields(text);
        if (fields.empty() || fields.front().front() == '#')
            continue;
        double v[3] = {0, 0, 0};
        bool const numeric = (fields.size() == 2 || fields.size() == 3) && all_numbers(fields, v);
        bool const header = first_data_row && !to_number(fields[0], &v[0]);
        first_data_row = false;
        if (header)
            continue;
        if (!numeric)
        {
            throw InputError(path, row_name(row),
                             "expected two numbers, energy_MeV and weight (a line), or three, "
                             "low_MeV high_MeV weight (a bin) (got '" +
                                 text + "')");
        }
        if (fields.size() == 2)
            add_line(s, path, row, v[0], v[1]);
        else
            add_bin(s, path, row, v[0], v[1], per_MeV ? v[2] * (v[1] - v[0]) : v[2]);
    }
    return s;
}

SpectrumFileData read_egsnrc(std::string const& path, std::istream& in)
{
    SpectrumFileData s;
    std::string text;
    if (!std::getline(in, s.title))
        throw InputError(path, "", "empty file; an EGSnrc spectrum starts with a title row");
    auto const head = split_fields(std::getline(in, text) ? text : std::string());
    double h[3] = {0, 0, 0};
    if (head.size() < 3 || !to_number(head[0], &h[0]) || !to_number(head[1], &h[1]) ||
        !to_number(head[2], &h[2]))
    {
        throw InputError(path, row_name(2),
                         "expected 'NENSRC, ENMIN, MODE' (the number of rows, the lowest "
                         "energy in MeV, the mode 0 to 3) (got '" +
                             text + "')");
    }
    int const n = int(h[0]);
    int const mode = int(h[2]);
    if (!(h[0] >= 1) || double(n) != h[0] || h[0] > 1e7)
        throw InputError(path, row_name(2),
                         "NENSRC must be a whole number >= 1 (the rows that follow)");
    if (double(mode) != h[2] || mode < 0 || mode > 3)
    {
        throw InputError(path, row_name(2),
                         "MODE must be 0 (counts per bin), 1 (counts per MeV), 2 (lines) or 3 "
                         "(points of a piecewise-linear spectrum) (got '" +
                             head[2] + "')");
    }
    bool const histogram = mode == 0 || mode == 1;
    if (histogram)
    {
        check_energy(path, 2, h[1], true);
        s.edges_MeV.push_back(h[1]);
        s.edge_rows.push_back(2);
    }
    for (int i = 0; i < n; ++i)
    {
        int const row = 3 + i;
        auto const fields =
            std::getline(in, text) ? split_fields(text) : std::vector<std::string>();
        double v[2] = {0, 0};
        if (fields.size() < 2 || !to_number(fields[0], &v[0]) || !to_number(fields[1], &v[1]))
        {
            throw InputError(path, row_name(row),
                             "expected 'energy, value' (row " + std::to_string(i + 1) + " of the " +
                                 std::to_string(n) + " that row 2 announces) (got '" + text + "')");
        }
        if (mode == 2)
        {
            add_line(s, path, row, v[0], v[1]);
            continue;
        }
        check_energy(path, row, v[0], true);
        check_weight(path, row, v[1]);
        if (!s.edges_MeV.empty() && !(v[0] > s.edges_MeV.back()))
        {
            throw InputError(
                path, row_name(row),
                "the energy " + std::to_string(v[0]) + " MeV does not exceed the previous one (" +
                    std::to_string(s.edges_MeV.back()) + " MeV); energies must increase strictly" +
                    (i == 0 ? " from ENMIN" : ""));
        }
        double const width = s.edges_MeV.empty() ? 0 : v[0] - s.edges_MeV.back();
        s.edges_MeV.push_back(v[0]);
        s.edge_rows.push_back(row);
        if (mode == 3)
        {
            if (!s.edge_density.empty())
                s.bin_weights.push_back(0.5 * (s.edge_density.back() + v[1]) * width);
            s.edge_density.push_back(v[1]);
        }
        else
        {
            s.bin_weights.push_back(mode == 1 ? v[1] * width : v[1]);
        }
    }
    if (mode == 3 && n < 2)
        throw InputError(path, row_name(2), "MODE 3 needs at least two points (NENSRC >= 2)");
    return s;
}
} // namespace

SpectrumFileData read_spectrum_file(std::string const& path, SpectrumFileFormat format,
                                    bool per_MeV)
{
    std::istringstream in(read_input_file(path, "spectrum file"));
    if (format == SpectrumFileFormat::automatic)
    {
        auto const ends_with = [&](std::string const& tail)
        {
            return path.size() >= tail.size() &&
                   path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
        };
        format = ends_with(".spectrum") || ends_with(".ensrc") ? SpectrumFileFormat::egsnrc
                                                               : SpectrumFileFormat::columns;
    }
    SpectrumFileData s = format == SpectrumFileFormat::egsnrc ? read_egsnrc(path, in)
                                                              : read_columns(path, in, per_MeV);
    double total = 0;
    for (double w : s.bin_weights)
        total += w;
    for (double w : s.line_weights)
        total += w;
    if (!(total > 0))
    {
        throw InputError(path, "",
                         s.bin_weights.empty() && s.line_weights.empty()
                             ? "no spectrum rows; give rows of energy_MeV and weight (lines) or "
                               "low_MeV high_MeV weight (bins)"
                             : "all weights are zero; give at least one positive weight");
    }
    return s;
}
} // namespace mcdose
