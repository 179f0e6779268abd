//! \file core/AtomicFile.hh
//! The one way mcdose creates files: relative to an opened directory, never through a
//! link, whole or not at all.
//!
//! A file is written under its own name inside a private staging directory
//! `.mcdose-tmp.<pid>.<n>` (mode 0700, created with `mkdirat` beside the final file and
//! checked with `fstat`), then moved onto its final name with `renameat`. Files mcdose
//! writes itself are created there with `O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC`;
//! libraries that write by name (ITK, libmcpl) are given the staging directory through
//! `/proc/self/fd/<fd>/`, so no name outside a directory only this process can write is
//! ever resolved. While a staged file exists it is listed in a process-wide registry, so
//! that an exit on a signal removes it (remove_registered_temporaries is
//! async-signal-safe); a run killed outright leaves its staging directory, removed by the
//! next run into that directory (remove_stale_staging).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>

namespace mcdose
{
//! The start of the name of every staging directory.
inline constexpr char staging_prefix[] = ".mcdose-tmp.";

//! A file descriptor, closed when dropped.
class FileHandle
{
  public:
    FileHandle() = default;
    explicit FileHandle(int fd) : fd_(fd) {}
    ~FileHandle();
    FileHandle(FileHandle&& other) noexcept : fd_(other.release()) {}
    FileHandle& operator=(FileHandle&& other) noexcept;
    FileHandle(FileHandle const&) = delete;
    FileHandle& operator=(FileHandle const&) = delete;
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    int release() noexcept;

  private:
    int fd_{-1};
};

//! A directory opened once; files are created relative to it.
class OpenedDirectory
{
  public:
    //! Opens `path` ("" is refused); throws naming `for_file` (the file to be written
    //! there) and the reason.
    OpenedDirectory(std::string const& path, std::string const& for_file);
    int fd() const { return fd_.get(); }
    std::string const& path() const { return path_; }
    //! A name for `name` inside this directory that libraries can open:
    //! `/proc/self/fd/<fd>/<name>` (the directory itself, not its path resolved again),
    //! or `<path>/<name>` where /proc is not mounted.
    std::string entry_path(std::string const& name) const;

  private:
    FileHandle fd_;
    std::string path_;
};

//! Create `name` in the directory `dir_fd` for writing: `O_CREAT | O_EXCL | O_NOFOLLOW |
//! O_CLOEXEC` with `mode` (less the umask), then checked with `fstat` to be a regular
//! file. A link or any file already there is refused; the error names `display`.
FileHandle create_file_at(int dir_fd, std::string const& name, mode_t mode,
                          std::string const& display);

//! Write all `size` bytes to `fd`, then close it, throwing (naming `display`) on a short
//! write or a failed close (a full disk).
void write_and_close(FileHandle fd, void const* data, std::size_t size, std::string const& display);

/*!
 * A file being written under a temporary name in a private staging directory beside
 * `final_path` (see the file comment). commit() moves it onto its final name, or, where
 * an OutputSet (core/OutputSet.hh) holds the final name, hands it to the set, which
 * moves its files together. Dropped uncommitted, the staged file is removed.
 */
class StagedFile
{
  public:
    explicit StagedFile(std::string const& final_path);
    ~StagedFile();
    StagedFile(StagedFile const&) = delete;
    StagedFile& operator=(StagedFile const&) = delete;

    //! Where a writer that opens files by name writes.
    std::string const& path() const { return path_; }
    //! The staging directory (for create_file_at) and the file's name in it.
    int staging_fd() const;
    std::string const& name() const { return name_; }
    std::string const& final_path() const { return final_path_; }
    //! Checks that a regular file was written, then moves it (or hands it to its set).
    void commit();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string final_path_;
    std::string name_;
    std::string path_;
};

//! Call `write(tmp_path)` to fill a staged file for `path`, then move it onto `path`.
//! If `write` throws, or leaves no file, the staged file is removed and the error
//! propagates; `path` is untouched.
void write_atomically(std::string const& path,
                      std::function<void(std::string const& tmp_path)> const& write);

//! Write `size` bytes atomically, the file created with `mode` (less the umask).
void write_bytes_atomically(std::string const& path, void const* data, std::size_t size,
                            mode_t mode = 0644);

//! Write a text string atomically.
void write_text_atomically(std::string const& path, std::string const& contents,
                           mode_t mode = 0644);

//! Lists a temporary file (or, with `directory`, an empty directory) for removal on a
//! signal while it exists (RAII).
class TemporaryFile
{
  public:
    explicit TemporaryFile(std::string const& path, bool directory = false);
    ~TemporaryFile();
    TemporaryFile(TemporaryFile const&) = delete;
    TemporaryFile& operator=(TemporaryFile const&) = delete;

  private:
    int slot_{-1};
};

//! Unlink every registered temporary file, then remove every registered directory.
//! Async-signal-safe: for a handler that ends the process at once.
void remove_registered_temporaries() noexcept;

//! Remove, from `directory`, the staging directories (and their files) of mcdose
//! processes that no longer exist and that belong to this user (a run killed while
//! writing). Never follows a link; returns how many were removed.
int remove_stale_staging(std::string const& directory) noexcept;
} // namespace mcdose
