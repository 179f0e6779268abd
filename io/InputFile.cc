//! \file io/InputFile.cc
#include "io/InputFile.hh"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "io/InputError.hh"

namespace mcdose
{
void require_regular_file(std::string const& path, char const* what)
{
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0)
    {
        int const err = errno;
        throw InputError(path, "",
                         std::string("cannot open the ") + what + " (" + std::strerror(err) +
                             "); check the path");
    }
    if (S_ISREG(st.st_mode))
        return;
    char const* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device";
    throw InputError(
        path, "", std::string("is ") + kind + ", not a regular file; give the " + what + " itself");
}

std::string read_input_file(std::string const& path, char const* what)
{
    require_regular_file(path, what);
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw InputError(path, "",
                         std::string("cannot open the ") + what +
                             " (unreadable); check its "
                             "permissions");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        throw InputError(path, "", std::string("reading the ") + what + " failed (I/O error)");
    return ss.str();
}
} // namespace mcdose
