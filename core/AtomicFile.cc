//! \file core/AtomicFile.cc
#include "core/AtomicFile.hh"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
//! Fixed slots (no allocation, so a signal handler can read them): a slot's
//! path is written while it is free, then published by `used`.
struct TemporarySlot
{
    std::atomic<bool> claimed{false};
    std::atomic<bool> used{false};
    std::array<char, 4096> path{};
};
std::array<TemporarySlot, 32> g_temporaries;
} // namespace

TemporaryFile::TemporaryFile(std::string const& path)
{
    if (path.size() >= g_temporaries[0].path.size())
        return;
    for (std::size_t i = 0; i < g_temporaries.size(); ++i)
    {
        bool expected = false;
        if (g_temporaries[i].claimed.compare_exchange_strong(expected, true))
        {
            std::memcpy(g_temporaries[i].path.data(), path.c_str(), path.size() + 1);
            g_temporaries[i].used.store(true);
            slot_ = static_cast<int>(i);
            return;
        }
    }
}

TemporaryFile::~TemporaryFile()
{
    if (slot_ < 0)
        return;
    g_temporaries[slot_].used.store(false);
    g_temporaries[slot_].claimed.store(false);
}

void remove_registered_temporaries() noexcept
{
    for (auto& slot : g_temporaries)
    {
        if (slot.used.load())
            ::unlink(slot.path.data());
    }
}

void write_atomically(std::string const& path,
                      std::function<void(std::string const& tmp_path)> const& write)
{
    MCDOSE_VALIDATE(!path.empty(), << "output path is empty; give a file name");
    std::string const tmp = path + ".tmp." + std::to_string(::getpid());
    TemporaryFile const registered(tmp);
    try
    {
        write(tmp);
    }
    catch (...)
    {
        std::remove(tmp.c_str());
        throw;
    }
    // A writer that reports failure without throwing may leave no file at all.
    struct stat st = {};
    if (::stat(tmp.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    {
        std::remove(tmp.c_str());
        MCDOSE_VALIDATE(false, << "cannot write '" << path
                               << "': the writer produced no file; check the disk space and "
                                  "that the directory is writable");
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
                         MCDOSE_VALIDATE(out, << "writing '" << path << "' failed (disk full?)");
                     });
}
} // namespace mcdose
