//! \file study/StudyRunner.hh
//! Run a parsed study end to end: phantom and materials, physics tables,
//! source, the transport on the chosen backend, and the outputs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dose/DoseData.hh"
#include "dose/DoseFigures.hh"
#include "dose/RunTimings.hh"
#include "study/StudyInput.hh"
#include "study/TableCache.hh"
#include "tally/EnergyBalance.hh"
#include "transport/engine/SourceParticles.hh"
#include "transport/engine/TransportProgress.hh"

namespace mcdose
{
struct StudyRunOptions
{
    std::optional<Backend> backend;         //!< overrides the study's backend
    std::optional<std::uint64_t> histories; //!< overrides run.histories
    std::optional<int> cpu_threads;         //!< overrides cpu_threads
    std::optional<std::string> output_dir;  //!< overrides outputs.directory
    std::optional<IfExists> if_exists;      //!< overrides outputs.if_exists
    bool write_outputs{true};               //!< (rank 0 only writes)
    //! GPUs of this process ("": all visible, or one per rank when several
    //! ranks share a node; "2": the first two; "0,2": those; see select_gpus).
    std::string gpus;
    int cpu_groups{1}; //!< CPU backend: worker groups (see TransportRunOptions)
    //! Batches per launch, each into its own batch grid (default: on a GPU as
    //! many as its memory holds and a launch of 4e6 histories needs; one on the
    //! CPU). With Philox the results do not depend on it.
    std::optional<std::uint64_t> batches_per_launch;
    //! GPU with Philox: sample the source particles of each launch, up to this many at a
    //! time, in a kernel of their own before the transport (0: each thread samples its
    //! history's particle when it starts it; TransportRunOptions::source_particles_ahead).
    //! The results are the same bit for bit; only the speed differs.
    std::uint64_t source_particles_ahead{max_source_particles_ahead};
    std::string checkpoint_path;     //!< write a checkpoint at batch boundaries
    double checkpoint_interval_s{0}; //!< 0: every batch
    std::string resume_path;         //!< continue from this checkpoint
    //! The physics-table cache (study/TableCache.hh): off unless asked for (`mcdose run`
    //! turns it on), so that API users and tests write nothing outside their outputs.
    TableCacheSettings table_cache{false, {}};
    //! Progress after each batch (return false to stop at the batch boundary).
    std::function<bool(TransportProgress const&)> on_batch;
    //! Polled during CPU batches: true stops the run within about a second,
    //! discarding the batch in progress (TransportRunOptions::stop_requested).
    std::function<bool()> stop_requested;
    //! Called once with the final dose (per source particle, dose to medium or water as the
    //! study asks) and the run's facts, before the outputs are written (`mcdose calibrate`).
    std::function<void(DoseGridData const&, StudyInput const&)> on_dose;
    //! GPU runs: once the dose report is made, the GPUs are released (their memory and
    //! contexts: release_device) on a thread of their own while the files are finished, so
    //! that the process's end does not wait for the driver. Only for a process that makes
    //! no more CUDA calls after the study (`mcdose run`): device memory the caller made
    //! before it is freed too.
    bool release_gpus{false};
};

struct StudyRunSummary
{
    std::string backend;   //!< "gpu" or "cpu"
    std::string device;    //!< GPU name(s), or "N CPU threads" (per rank)
    int ranks{1};          //!< MPI ranks of the job
    std::size_t groups{1}; //!< GPUs or CPU worker groups per rank
    //! Histories (of this rank) whose source particle a kernel sampled ahead of the
    //! transport (TransportRunResult::source_particles_ahead).
    std::uint64_t source_particles_ahead{0};
    std::uint64_t resumed_batches{0}; //!< batches taken from a checkpoint
    std::uint64_t histories{0};
    bool complete{true};
    double setup_time_s{0};     //!< phantom, tables, uploads
    std::string physics_tables; //!< how the tables were obtained (TableCacheResult::describe)
    double transport_time_s{0};
    double histories_per_s{0};
    EnergyBalance balance; //!< totals over the run [MeV]
    //! Mean relative uncertainty over the stop region's high-dose voxels (report.summary).
    std::optional<double> uncertainty_reached;
    //! Near-maximum over the stop region, dose in low-density voxels, DVH figures.
    DoseReport report;
    std::vector<std::string> files; //!< written by this run (the manifest last)
    std::vector<std::string> warnings;
    bool zero_dose{false}; //!< histories ran but no energy was deposited
    //! What the dose is and its unit, e.g. "dose to water, in Gy (...)".
    std::string dose_description;
    //! A phase-space source: the particles used and skipped (describe_scan).
    std::string phase_space_source;
    //! outputs.phase_space: the particles written and where.
    std::string phase_space_output;
    //! Wall time of each step of the run, in order (the run summary's "timing").
    std::vector<StepTime> steps;
};

StudyRunSummary run_study(StudyInput const& study, StudyRunOptions const& options);

//! The current time in UTC, ISO 8601 (e.g. 2026-11-26T01:05:00Z), as the outputs record it.
std::string utc_now_iso8601();
} // namespace mcdose
