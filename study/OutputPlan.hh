//! \file study/OutputPlan.hh
//! The files one run writes, checked before transport: names that collide
//! with each other or with the study's inputs, a directory that cannot be
//! written, results of an earlier run (`outputs.if_exists`), and another run
//! writing into the same directory (a lock held for the whole run). The run's
//! files are written into a staging directory and moved into place together
//! (core/OutputSet.hh) once they and their manifest `<name>_manifest.json` are
//! whole; "overwrite" then removes the files of the earlier run's manifest that
//! this run did not write over.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/OutputSet.hh"
#include "study/StudyInput.hh"

namespace mcdose
{
//! One file the outputs section asks for and the field that asks for it.
struct PlannedOutput
{
    std::string path;
    std::string pointer; //!< JSON pointer, e.g. "/outputs/lateral_profiles/1/name"
};

//! Every file `outputs` makes (write_run_outputs' files, then the manifest).
std::vector<PlannedOutput> planned_outputs(OutputInput const& outputs);

//! Path of the manifest of a run with these outputs.
std::string manifest_path(OutputInput const& outputs);

//! Whether the outputs under these names are those of an interrupted run (their manifest
//! says incomplete): what `--resume` continues and so replaces.
bool outputs_of_interrupted_run(OutputInput const& outputs);

/*!
 * Checks that need no writing, made by `mcdose check` and before a run:
 * output files that would overwrite each other or one of the study's inputs
 * (the study file, its images, structure sets, spectra, calibrations, phase
 * spaces, apertures: by path, link or inode), an empty directory, one under
 * /proc, /sys or /dev, a directory that cannot be created or written, names
 * longer than its file system takes, and, with if_exists "error", files of an
 * earlier run.
 * Throws InputError naming the study file and the field.
 */
void check_outputs(StudyInput const& study, OutputInput const& outputs);

//! Refuse `path`, a file a run writes beside its outputs (the checkpoint, the
//! calibration) called `what` in the message, where it is one of the study's
//! inputs or (`with_outputs`) one of its outputs. Throws InputError naming it.
void check_extra_output(StudyInput const& study, OutputInput const& outputs,
                        std::string const& path, std::string const& what, bool with_outputs);

//! An output directory held by one run: an exclusive lock (flock) on
//! `<directory>/.mcdose.lock`, released when the run ends (or the process
//! dies, so a crashed run never blocks the next one).
class OutputDirectoryLock
{
  public:
    OutputDirectoryLock() = default;
    explicit OutputDirectoryLock(std::string const& directory);
    ~OutputDirectoryLock();
    OutputDirectoryLock(OutputDirectoryLock&& other) noexcept;
    OutputDirectoryLock& operator=(OutputDirectoryLock&& other) noexcept;
    OutputDirectoryLock(OutputDirectoryLock const&) = delete;
    OutputDirectoryLock& operator=(OutputDirectoryLock const&) = delete;

  private:
    int fd_{-1};
};

//! The outputs of a run about to start: the name to write under (changed by
//! if_exists "increment"), the directory's lock, the set its files are staged in
//! until commit_outputs, and (with "overwrite") the earlier run's files.
struct PreparedOutputs
{
    OutputInput outputs;
    OutputDirectoryLock lock;
    std::unique_ptr<OutputSet> set;
    std::vector<std::string> replaced;
};

/*!
 * Before transport: create the directory, take its lock (refused if another
 * run holds it), check the outputs (check_outputs), apply if_exists, remove
 * the staging directories of runs that were killed, and start the set that
 * stages this run's files. Nothing of an earlier run is removed here.
 */
PreparedOutputs prepare_outputs(StudyInput const& study, OutputInput outputs);

//! After the outputs and the manifest: move the run's files into place (the
//! manifest last), then remove the earlier run's files this run did not write
//! over ("overwrite"). Returns the paths moved.
std::vector<std::string> commit_outputs(PreparedOutputs const& prepared);

//! Remove, from the directories of `paths`, the staging directories of
//! processes that no longer exist (core/AtomicFile.hh: a run killed while
//! writing).
void remove_stale_temporaries(std::vector<std::string> const& paths);

//! After the outputs: list `files` (written by this run) in the manifest.
void write_output_manifest(OutputInput const& outputs, std::vector<std::string> const& files,
                           bool complete);
} // namespace mcdose
