//! \file core/AtomicFile.cc
#include "core/AtomicFile.hh"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include "core/Assert.hh"

namespace mcdose
{
void write_atomically(std::string const& path,
                      std::function<void(std::string const& tmp_path)> const& write)
{
    MCDOSE_VALIDATE(!path.empty(), << "output path is empty; give a file name");
    std::string const tmp = path + ".tmp." + std::to_string(::getpid());
    try
    {
        write(tmp);
    }
    catch (...)
    {
        std::remove(tmp.c_str());
        throw;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        int const err = errno;
        std::remove(tmp.c_str());
        MCDOSE_VALIDATE(false, << "cannot write '" << path << "': " << std::strerror(err)
                               << "; check that the directory exists and is writable");
    }
}

void write_text_atomically(std::string const& path, std::string const& contents)
{
    write_atomically(path,
                     [&](std::string const& tmp)
                     {
                         std::ofstream out(tmp, std::ios::binary);
                         MCDOSE_VALIDATE(out,
                                         << "cannot open '" << tmp
                                         << "' for writing: " << std::strerror(errno)
                                         << "; check that the directory exists and is writable");
                         out << contents;
                         out.close();
                         MCDOSE_VALIDATE(out, << "writing '" << tmp << "' failed (disk full?)");
                     });
}
} // namespace mcdose
