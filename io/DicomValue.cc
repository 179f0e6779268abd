//! \file io/DicomValue.cc
#include "io/DicomValue.hh"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/Assert.hh"

namespace mcdose
{
std::string trim_dicom_value(std::string s)
{
    while (!s.empty() && (s.back() == '\0' || s.back() == ' '))
        s.pop_back();
    std::size_t b = 0;
    while (b < s.size() && s[b] == ' ')
        ++b;
    return s.substr(b);
}

std::vector<double> dicom_decimals(std::string const& text, std::string const& where,
                                   std::string const& fix)
{
    std::vector<double> values;
    if (trim_dicom_value(text).empty())
        return values;
    std::istringstream items(text);
    std::string item;
    while (std::getline(items, item, '\\'))
    {
        item = trim_dicom_value(item);
        char* end = nullptr;
        double const x = std::strtod(item.c_str(), &end);
        MCDOSE_VALIDATE(!item.empty() && end == item.c_str() + item.size() && std::isfinite(x),
                        << where << ": '" << item << "' is not a finite decimal number; " << fix);
        values.push_back(x);
    }
    return values;
}
} // namespace mcdose
