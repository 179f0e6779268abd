//! \file io/InputFile.cc
#include "io/InputFile.hh"

#include "io/InputError.hh"

namespace mcdose
{
FileHandle open_input_file(std::string const& path, char const* what, std::uint64_t max_bytes,
                           bool follow_link)
{
    try
    {
        return open_regular_file(path, what, max_bytes, follow_link);
    }
    catch (RegularFileError const& e)
    {
        throw InputError(path, "", e.what());
    }
}

std::string read_opened_file(FileHandle fd, std::string const& path, char const* what)
{
    try
    {
        return read_opened_file(std::move(fd), what);
    }
    catch (RegularFileError const& e)
    {
        throw InputError(path, "", e.what());
    }
}

void require_regular_file(std::string const& path, char const* what, std::uint64_t max_bytes)
{
    (void)open_input_file(path, what, max_bytes);
}

std::string read_input_file(std::string const& path, char const* what, std::uint64_t max_bytes)
{
    return read_opened_file(open_input_file(path, what, max_bytes), path, what);
}
} // namespace mcdose
