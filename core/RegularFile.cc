//! \file core/RegularFile.cc
#include "core/RegularFile.hh"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mcdose
{
namespace
{
char const* kind_of(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO (named pipe)"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISLNK(mode)  ? "a symbolic link"
                            : "a device";
}

std::string size_text(std::uint64_t bytes)
{
    return std::to_string(bytes) + " bytes";
}
} // namespace

FileHandle open_regular_file(std::string const& path, char const* what, std::uint64_t max_bytes,
                             bool follow_link)
{
    // O_NONBLOCK: opening a FIFO returns at once (then refused below), never waits.
    int const flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow_link ? 0 : O_NOFOLLOW);
    FileHandle fd(::open(path.c_str(), flags));
    if (!fd)
    {
        int const err = errno;
        if (err == ELOOP && !follow_link)
            throw RegularFileError(std::string("is a symbolic link; give the ") + what + " itself");
        throw RegularFileError(std::string("cannot open the ") + what + " (" + std::strerror(err) +
                               "); check the path and its permissions");
    }
    struct stat st = {};
    if (::fstat(fd.get(), &st) != 0)
        throw RegularFileError(std::string("cannot read the ") + what + " (fstat failed)");
    if (!S_ISREG(st.st_mode))
    {
        throw RegularFileError(std::string("is ") + kind_of(st.st_mode) +
                               ", not a regular file; give the " + what + " itself");
    }
    if (std::uint64_t(st.st_size) > max_bytes)
    {
        throw RegularFileError(std::string("is ") + size_text(std::uint64_t(st.st_size)) +
                               ", more than the " + size_text(max_bytes) + " a " + what +
                               " may have; check that this is the right file");
    }
    // Reads block as usual from here on.
    ::fcntl(fd.get(), F_SETFL, O_RDONLY);
    return fd;
}

std::string read_opened_file(FileHandle fd, char const* what)
{
    struct stat st = {};
    ::fstat(fd.get(), &st);
    std::string bytes;
    bytes.reserve(std::size_t(st.st_size));
    char buffer[1 << 16];
    for (;;)
    {
        ssize_t const n = ::read(fd.get(), buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
        {
            throw RegularFileError(std::string("reading the ") + what + " failed (" +
                                   std::strerror(errno) + ")");
        }
        if (n == 0)
            break;
        bytes.append(buffer, std::size_t(n));
        // Bounded by the size checked when it was opened: a file growing meanwhile is refused.
        if (bytes.size() > std::size_t(st.st_size))
            throw RegularFileError(std::string("the ") + what + " changed while it was read");
    }
    return bytes;
}
} // namespace mcdose
