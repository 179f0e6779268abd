//! \file study/OutputPlan.hh
//! The files one run writes, checked before transport: names that collide
//! with each other or with the study's inputs, a directory that cannot be
//! written, results of an earlier run (`outputs.if_exists`), and another run
//! writing into the same directory (a lock held for the whole run). After
//! the outputs, a manifest `<name>_manifest.json` lists what the run wrote;
//! "overwrite" removes the files an earlier run's manifest lists.
#pragma once

#include <string>
#include <vector>

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
 * (the study file, its images), a directory that cannot be created or
 * written, and, with if_exists "error", files of an earlier run.
 * Throws InputError naming the study file and the field.
 */
void check_outputs(StudyInput const& study, OutputInput const& outputs);

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
//! if_exists "increment") and the directory's lock.
struct PreparedOutputs
{
    OutputInput outputs;
    OutputDirectoryLock lock;
};

/*!
 * Before transport: create the directory, take its lock (refused if another
 * run holds it), check the outputs (check_outputs), apply if_exists, and
 * remove the temporaries of these outputs left by runs that died.
 */
PreparedOutputs prepare_outputs(StudyInput const& study, OutputInput outputs);

//! Remove `<path>.tmp.<pid>` files (the temporaries of core/AtomicFile.hh)
//! of processes that no longer exist (a run killed while writing).
void remove_stale_temporaries(std::vector<std::string> const& paths);

//! After the outputs: list `files` (written by this run) in the manifest.
void write_output_manifest(OutputInput const& outputs, std::vector<std::string> const& files,
                           bool complete);
} // namespace mcdose
