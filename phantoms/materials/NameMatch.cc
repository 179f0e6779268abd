//! \file phantoms/materials/NameMatch.cc
#include "phantoms/materials/NameMatch.hh"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace mcdose
{
std::size_t name_distance(std::string const& a, std::string const& b)
{
    // Single-row dynamic programme of the edit distance.
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            std::size_t const up = row[j];
            bool const same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                              std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string closest_name_hint(std::string const& name, std::vector<std::string> const& candidates)
{
    std::string best;
    std::size_t best_d = std::string::npos;
    for (auto const& c : candidates)
    {
        std::size_t const d = name_distance(name, c);
        if (d < best_d)
        {
            best_d = d;
            best = c;
        }
    }
    // A name that is the start of a candidate ("density" for "density_g_cm3") is a hint too
    for (auto const& c : candidates)
    {
        if (name.size() >= 3 && c.size() > name.size() && c.compare(0, name.size(), name) == 0 &&
            best_d > 1)
            return " (did you mean '" + c + "'?)";
    }
    if (best.empty() || best_d > std::max<std::size_t>(2, name.size() / 2))
        return {};
    return " (did you mean '" + best + "'?)";
}
} // namespace mcdose
