//! \file core/OutputSet.hh
//! The files of one run, replaced together.
//!
//! While an OutputSet is alive, every file written atomically (core/AtomicFile.hh) under
//! one of its names in its directory is staged in the set's private staging directory
//! and left there; commit() moves them all onto their final names, the `last` one (the
//! manifest) after the others. Until then the directory keeps the files of an earlier
//! run untouched; a set dropped uncommitted (a failed run) leaves nothing of its files.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>

namespace mcdose
{
class OpenedDirectory;
class StagingDirectory;
class TemporaryFile;

class OutputSet
{
  public:
    //! Holds the plain file `names` in `directory` (which must exist); `last` is one
    //! of them. Throws where the directory cannot be opened or staged into.
    OutputSet(std::string const& directory, std::vector<std::string> const& names,
              std::string last);
    ~OutputSet();
    OutputSet(OutputSet const&) = delete;
    OutputSet& operator=(OutputSet const&) = delete;

    //! Move every staged file onto its name (`last` after the others); returns their
    //! paths. The set holds nothing afterwards.
    std::vector<std::string> commit();

    //! The staging directory of the live set holding `name` in `dir`, or null; `set`
    //! is set to that set (for StagedFile).
    static std::shared_ptr<StagingDirectory> holder(OpenedDirectory const& dir,
                                                    std::string const& name, OutputSet** set);
    //! Does a live set hold `path` (its directory and name)?
    static bool holds(std::string const& path);
    //! A staged file of this set is whole (for StagedFile::commit).
    void ready(std::string const& name);

  private:
    std::unique_ptr<OpenedDirectory> dir_;
    dev_t dev_{};
    ino_t ino_{};
    std::set<std::string> names_;
    std::string last_;
    std::shared_ptr<StagingDirectory> staging_;
    std::mutex mutex_;
    std::vector<std::string> ready_;
    //! The staged files, listed for removal on a signal until they are moved.
    std::vector<std::unique_ptr<TemporaryFile>> registered_;
};
} // namespace mcdose
