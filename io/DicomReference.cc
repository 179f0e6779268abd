//! \file io/DicomReference.cc
#include "io/DicomReference.hh"

namespace mcdose
{
bool is_dicom_uid(std::string const& uid)
{
    if (uid.empty() || uid.size() > 64)
        return false;
    std::size_t start = 0;
    while (start <= uid.size())
    {
        std::size_t end = uid.find('.', start);
        if (end == std::string::npos)
            end = uid.size();
        std::string const part = uid.substr(start, end - start);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
            (part.size() > 1 && part[0] == '0'))
        {
            return false;
        }
        start = end + 1;
    }
    return true;
}
} // namespace mcdose
