//! \file core/StagingDirectory.hh
//! A private directory (mode 0700) made beside the files it stages (core/AtomicFile.hh).
#pragma once

#include <memory>
#include <string>

#include "core/AtomicFile.hh"

namespace mcdose
{
class StagingDirectory
{
  public:
    //! Makes `.mcdose-tmp.<pid>.<n>` in `parent` with `mkdirat`, opens it without
    //! following a link and checks with `fstat` that it is a directory of this user
    //! that no one else can write. Throws naming `for_file`.
    StagingDirectory(OpenedDirectory const& parent, std::string const& for_file);
    //! Removes the directory and whatever is left in it.
    ~StagingDirectory();
    StagingDirectory(StagingDirectory const&) = delete;
    StagingDirectory& operator=(StagingDirectory const&) = delete;

    int fd() const { return fd_.get(); }
    int parent_fd() const { return parent_.get(); }
    //! Where a library writes `name` in here (OpenedDirectory::entry_path).
    std::string entry_path(std::string const& name) const;

  private:
    FileHandle parent_;
    FileHandle fd_;
    std::string name_;
    std::string parent_path_;
    std::unique_ptr<TemporaryFile> registered_;
};

//! Remove the staging directory `name` in `parent_fd` and every file in it, when it is
//! a directory (not a link) owned by this user. Returns whether it was removed.
bool remove_staging_directory(int parent_fd, std::string const& name) noexcept;
} // namespace mcdose
