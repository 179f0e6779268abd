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

//! The whole field as a number, or false.
bool to_number(std::string const& text, double* value)
{
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
} // namespace

SpectrumLines read_spectrum_lines(std::string const& path)
{
    std::istringstream in(read_input_file(path, "spectrum file"));
    SpectrumLines lines;
    std::string row;
    bool first_data_row = true;
    double total = 0;
    for (int number = 1; std::getline(in, row); ++number)
    {
        auto const fields = split_fields(row);
        if (fields.empty() || fields.front().front() == '#')
            continue;
        std::string const where = "line " + std::to_string(number);
        double energy = 0, weight = 0;
        bool const numeric =
            fields.size() == 2 && to_number(fields[0], &energy) && to_number(fields[1], &weight);
        bool const header = first_data_row && !to_number(fields[0], &energy);
        first_data_row = false;
        if (header)
            continue;
        if (!numeric)
        {
            throw InputError(path, where,
                             "expected two numbers, energy_MeV and weight (got '" + row + "')");
        }
        if (!(energy > 0) || !std::isfinite(energy))
            throw InputError(path, where, "the energy must be a positive number of MeV");
        if (!(weight >= 0) || !std::isfinite(weight))
            throw InputError(path, where, "the weight must be a finite number >= 0");
        lines.energies_MeV.push_back(energy);
        lines.weights.push_back(weight);
        lines.line_numbers.push_back(number);
        total += weight;
    }
    if (!(total > 0))
    {
        throw InputError(path, "",
                         lines.weights.empty()
                             ? "no spectrum lines; give rows of energy_MeV and weight"
                             : "all weights are zero; give at least one positive "
                               "weight");
    }
    return lines;
}
} // namespace mcdose
