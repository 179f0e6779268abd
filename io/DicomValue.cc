//! \file io/DicomValue.cc
#include "io/DicomValue.hh"

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
} // namespace mcdose
