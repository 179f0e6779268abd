//! \file core/AtomicFile.cc
#include "core/AtomicFile.hh"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "core/Assert.hh"
#include "core/OutputSet.hh"
#include "core/StagingDirectory.hh"

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
    bool directory{false};
    std::array<char, 4096> path{};
};
std::array<TemporarySlot, 64> g_temporaries;

std::string errno_text(int err)
{
    return std::strerror(err);
}

//! Is /proc/self/fd usable as a path to an open directory?
bool proc_fd_paths()
{
    static bool const usable = []
    {
        struct stat st = {};
        return ::stat("/proc/self/fd", &st) == 0 && S_ISDIR(st.st_mode);
    }();
    return usable;
}

//! `name` in the directory open as `fd` (once known as `path`), for a library or a
//! signal handler: `/proc/self/fd/<fd>/<name>` where /proc is mounted.
std::string fd_entry_path(int fd, std::string const& path, std::string const& name)
{
    if (proc_fd_paths())
        return "/proc/self/fd/" + std::to_string(fd) + "/" + name;
    return path + "/" + name;
}

std::string directory_of(std::string const& path)
{
    std::size_t const slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(std::string const& path)
{
    std::size_t const slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}
} // namespace

FileHandle::~FileHandle()
{
    if (fd_ >= 0)
        ::close(fd_);
}

FileHandle& FileHandle::operator=(FileHandle&& other) noexcept
{
    if (this != &other)
    {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

int FileHandle::release() noexcept
{
    int const fd = fd_;
    fd_ = -1;
    return fd;
}

OpenedDirectory::OpenedDirectory(std::string const& path, std::string const& for_file) : path_(path)
{
    MCDOSE_VALIDATE(!path.empty(), << "cannot write '" << for_file
                                   << "': the directory name is empty; give a directory");
    fd_ = FileHandle(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    MCDOSE_VALIDATE(fd_, << "cannot write '" << for_file << "': the directory '" << path
                         << "' cannot be opened (" << errno_text(errno)
                         << "); check that the directory exists and is writable");
}

std::string OpenedDirectory::entry_path(std::string const& name) const
{
    return fd_entry_path(fd_.get(), path_, name);
}

FileHandle create_file_at(int dir_fd, std::string const& name, mode_t mode,
                          std::string const& display)
{
    FileHandle fd(
        ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    MCDOSE_VALIDATE(fd, << "cannot create '" << display << "' (" << errno_text(errno)
                        << "); check that the directory is writable and that no file or "
                           "link is in the way");
    struct stat st = {};
    MCDOSE_VALIDATE(::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode),
                    << "cannot create '" << display << "': not a regular file once opened");
    return fd;
}

void write_and_close(FileHandle fd, void const* data, std::size_t size, std::string const& display)
{
    char const* p = static_cast<char const*>(data);
    while (size > 0)
    {
        ssize_t const n = ::write(fd.get(), p, size);
        if (n < 0 && errno == EINTR)
            continue;
        MCDOSE_VALIDATE(n > 0, << "writing '" << display << "' failed ("
                               << errno_text(n < 0 ? errno : ENOSPC)
                               << "); check the free disk space");
        p += n;
        size -= std::size_t(n);
    }
    MCDOSE_VALIDATE(::close(fd.release()) == 0, << "writing '" << display << "' failed ("
                                                << errno_text(errno)
                                                << "); check the free disk space");
}

StagingDirectory::StagingDirectory(OpenedDirectory const& parent, std::string const& for_file)
    : parent_(::fcntl(parent.fd(), F_DUPFD_CLOEXEC, 0)), parent_path_(parent.path())
{
    static std::atomic<unsigned> counter{0};
    MCDOSE_VALIDATE(parent_, << "cannot write '" << for_file << "' (" << errno_text(errno) << ")");
    name_ = std::string(staging_prefix) + std::to_string(::getpid()) + "." +
            std::to_string(counter.fetch_add(1));
    MCDOSE_VALIDATE(::mkdirat(parent_.get(), name_.c_str(), 0700) == 0,
                    << "cannot write '" << for_file << "' in '" << parent.path() << "' ("
                    << errno_text(errno) << "); check that the directory is writable");
    registered_ =
        std::make_unique<TemporaryFile>(fd_entry_path(parent_.get(), parent_path_, name_), true);
    fd_ = FileHandle(
        ::openat(parent_.get(), name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st = {};
    bool const ours = fd_ && ::fstat(fd_.get(), &st) == 0 && S_ISDIR(st.st_mode) &&
                      st.st_uid == ::geteuid() && (st.st_mode & 077) == 0;
    if (!ours)
    {
        fd_ = FileHandle();
        MCDOSE_VALIDATE(false, << "cannot write '" << for_file << "': the staging directory '"
                               << name_ << "' in '" << parent.path()
                               << "' was replaced while in use; check who else writes there");
    }
}

StagingDirectory::~StagingDirectory()
{
    if (fd_)
        remove_staging_directory(parent_.get(), name_);
}

std::string StagingDirectory::entry_path(std::string const& name) const
{
    return fd_entry_path(fd_.get(), parent_path_ + "/" + name_, name);
}

bool remove_staging_directory(int parent_fd, std::string const& name) noexcept
{
    FileHandle dir(
        ::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st = {};
    if (!dir || ::fstat(dir.get(), &st) != 0 || st.st_uid != ::geteuid())
        return false;
    int const list_fd = ::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0);
    if (DIR* d = list_fd >= 0 ? ::fdopendir(list_fd) : nullptr)
    {
        std::vector<std::string> entries;
        while (dirent const* e = ::readdir(d))
        {
            std::string const n = e->d_name;
            if (n != "." && n != "..")
                entries.push_back(n);
        }
        ::closedir(d);
        for (auto const& n : entries)
            ::unlinkat(dir.get(), n.c_str(), 0); // a file or a link, never what it points to
    }
    else if (list_fd >= 0)
    {
        ::close(list_fd);
    }
    return ::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0;
}

int remove_stale_staging(std::string const& directory) noexcept
{
    int removed = 0;
    FileHandle dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    int const list_fd = dir ? ::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0) : -1;
    DIR* d = list_fd >= 0 ? ::fdopendir(list_fd) : nullptr;
    if (!d)
    {
        if (list_fd >= 0)
            ::close(list_fd);
        return 0;
    }
    std::vector<std::string> stale;
    std::size_t const prefix = std::strlen(staging_prefix);
    while (dirent const* e = ::readdir(d))
    {
        std::string const n = e->d_name;
        if (n.compare(0, prefix, staging_prefix) != 0)
            continue;
        // `.mcdose-tmp.<pid>.<n>`: only a process that is gone.
        char* end = nullptr;
        long const pid = std::strtol(n.c_str() + prefix, &end, 10);
        if (pid > 0 && end && *end == '.' && pid != long(::getpid()) &&
            ::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
            stale.push_back(n);
    }
    ::closedir(d);
    for (auto const& n : stale)
        removed += remove_staging_directory(dir.get(), n) ? 1 : 0;
    return removed;
}

struct StagedFile::Impl
{
    std::unique_ptr<OpenedDirectory> dir;
    std::shared_ptr<StagingDirectory> staging;
    OutputSet* set{nullptr};
    std::unique_ptr<TemporaryFile> registered;
    bool committed{false};
};

StagedFile::StagedFile(std::string const& final_path)
    : impl_(std::make_unique<Impl>()), final_path_(final_path), name_(name_of(final_path))
{
    MCDOSE_VALIDATE(!final_path.empty() && !name_.empty() && name_ != "." && name_ != "..",
                    << "output path '" << final_path << "' names no file; give a file name");
    impl_->dir = std::make_unique<OpenedDirectory>(directory_of(final_path), final_path);
    impl_->staging = OutputSet::holder(*impl_->dir, name_, &impl_->set);
    if (!impl_->staging)
        impl_->staging = std::make_shared<StagingDirectory>(*impl_->dir, final_path);
    // A file of this name staged earlier (and not taken) is replaced.
    ::unlinkat(impl_->staging->fd(), name_.c_str(), 0);
    path_ = impl_->staging->entry_path(name_);
    impl_->registered = std::make_unique<TemporaryFile>(path_);
}

StagedFile::~StagedFile()
{
    if (!impl_->committed)
        ::unlinkat(impl_->staging->fd(), name_.c_str(), 0);
}

int StagedFile::staging_fd() const
{
    return impl_->staging->fd();
}

void StagedFile::commit()
{
    MCDOSE_EXPECT(!impl_->committed);
    int const staging = impl_->staging->fd();
    // A third-party writer may report failure without throwing and without a file.
    struct stat st = {};
    MCDOSE_VALIDATE(
        ::fstatat(staging, name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode),
        << "cannot write '" << final_path_
        << "': the writer produced no file; check the disk space and that the "
           "directory is writable");
    if (impl_->set)
    {
        impl_->set->ready(name_);
    }
    else if (::renameat(staging, name_.c_str(), impl_->dir->fd(), name_.c_str()) != 0)
    {
        MCDOSE_VALIDATE(false, << "cannot write '" << final_path_ << "': " << errno_text(errno)
                               << "; check that the directory exists and is writable");
    }
    impl_->committed = true;
    impl_->registered.reset();
}

void write_atomically(std::string const& path,
                      std::function<void(std::string const& tmp_path)> const& write)
{
    MCDOSE_VALIDATE(!path.empty(), << "output path is empty; give a file name");
    StagedFile staged(path);
    try
    {
        write(staged.path());
    }
    catch (RuntimeError const& e)
    {
        // A writer's message names the file it was given: the user knows it as `path`.
        std::string message = e.what();
        bool renamed = false;
        for (std::size_t at; (at = message.find(staged.path())) != std::string::npos;)
        {
            message.replace(at, staged.path().size(), path);
            renamed = true;
        }
        if (renamed)
            throw RuntimeError(message);
        throw;
    }
    staged.commit();
}

void write_bytes_atomically(std::string const& path, void const* data, std::size_t size,
                            mode_t mode)
{
    MCDOSE_VALIDATE(!path.empty(), << "output path is empty; give a file name");
    StagedFile staged(path);
    write_and_close(create_file_at(staged.staging_fd(), staged.name(), mode, path), data, size,
                    path);
    staged.commit();
}

void write_text_atomically(std::string const& path, std::string const& contents, mode_t mode)
{
    write_bytes_atomically(path, contents.data(), contents.size(), mode);
}

TemporaryFile::TemporaryFile(std::string const& path, bool directory)
{
    if (path.size() >= g_temporaries[0].path.size())
        return;
    for (std::size_t i = 0; i < g_temporaries.size(); ++i)
    {
        bool expected = false;
        if (g_temporaries[i].claimed.compare_exchange_strong(expected, true))
        {
            std::memcpy(g_temporaries[i].path.data(), path.c_str(), path.size() + 1);
            g_temporaries[i].directory = directory;
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
        if (slot.used.load() && !slot.directory)
            ::unlink(slot.path.data());
    }
    for (auto& slot : g_temporaries)
    {
        if (slot.used.load() && slot.directory)
            ::rmdir(slot.path.data());
    }
}
} // namespace mcdose
