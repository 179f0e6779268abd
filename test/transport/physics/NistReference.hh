//! \file test/transport/physics/NistReference.hh
//! Reading the NIST reference tables committed in validation/nist/ (provenance in its
//! README). A missing file is a test failure, never a silent skip.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "TestMacros.hh"

namespace mcdose::test
{
//! Columns of a CSV table keyed by header name ('#' lines are comments).
struct CsvTable
{
    std::vector<std::string> header;
    std::map<std::string, std::vector<double>> columns;
    std::size_t rows() const { return columns.empty() ? 0 : columns.begin()->second.size(); }
    std::vector<double> const& operator[](std::string const& name) const
    {
        static std::vector<double> const none;
        auto it = columns.find(name);
        return it == columns.end() ? none : it->second;
    }
};

//! Read validation/<relative>; adds a failure naming the path if it is missing.
inline CsvTable read_reference_csv(std::string const& relative)
{
    std::string const path = source_dir() + "/validation/" + relative;
    CsvTable t;
    std::ifstream in(path);
    if (!in)
    {
        ADD_FAILURE() << "reference data " << path
                      << " is missing (it is part of the repository: validation/nist/)";
        return t;
    }
    std::string line;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#')
            continue;
        std::stringstream ss(line);
        std::string cell;
        std::vector<std::string> cells;
        while (std::getline(ss, cell, ','))
            cells.push_back(cell);
        if (t.header.empty())
        {
            t.header = cells;
            continue;
        }
        for (std::size_t i = 0; i < cells.size() && i < t.header.size(); ++i)
            t.columns[t.header[i]].push_back(std::stod(cells[i]));
    }
    if (t.rows() == 0)
        ADD_FAILURE() << "reference data " << path << " has no rows";
    return t;
}
} // namespace mcdose::test
