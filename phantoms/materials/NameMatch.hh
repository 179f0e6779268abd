//! \file phantoms/materials/NameMatch.hh
//! "Did you mean ...?" hints for misspelt names.
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
//! Case-insensitive Levenshtein distance (Levenshtein, Sov. Phys. Dokl. 10, 707 (1966)).
std::size_t name_distance(std::string const& a, std::string const& b);

//! " (did you mean 'X'?)" for the closest candidate, or "" if none is close
//! (distance more than half the name's length).
std::string closest_name_hint(std::string const& name, std::vector<std::string> const& candidates);
} // namespace mcdose
