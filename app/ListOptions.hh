//! \file app/ListOptions.hh
//! Comma-separated lists from the command line ("1e7,3e9", "fa,kas").
#pragma once

#include <cmath>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "core/Assert.hh"

namespace mcdose::app
{
//! "a,b,c" -> {"a", "b", "c"} (an empty item stays, so callers can reject it).
inline std::vector<std::string> split_commas(std::string const& list)
{
    std::vector<std::string> items;
    std::istringstream is(list);
    std::string item;
    while (std::getline(is, item, ','))
        items.push_back(item);
    return items;
}

//! "1e7,3e9" -> whole numbers (scientific notation allowed); errors name `option`.
inline std::vector<std::uint64_t> parse_counts(std::string const& list, char const* option)
{
    std::vector<std::uint64_t> result;
    for (std::string const& item : split_commas(list))
    {
        long double v = -1;
        std::size_t used = 0;
        // Decimal digits, a point and an exponent only (std::stold also takes hex and "inf").
        bool const decimal =
            !item.empty() && item.find_first_not_of("0123456789.eE+") == std::string::npos;
        try
        {
            v = std::stold(item, &used);
        }
        catch (std::exception const&)
        {
            used = 0;
        }
        MCDOSE_VALIDATE(
            decimal && used == item.size() && v >= 1 && v == std::floor(v) && v < 0x1p63L,
            << "'" << option << "' takes positive whole numbers such as 1e7 or "
            << "3000000000, comma-separated (got '" << item << "')");
        result.push_back(static_cast<std::uint64_t>(v));
    }
    MCDOSE_VALIDATE(!result.empty(), << "'" << option << "' is empty; give e.g. 1e7");
    return result;
}
} // namespace mcdose::app
