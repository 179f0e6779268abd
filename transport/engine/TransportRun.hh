//! \file transport/engine/TransportRun.hh
//! The transport's run-time interface: what to run (TransportChoice: precision, generator
//! and tally method, chosen at input time), how (TransportRunOptions), with what on each
//! worker group (TransportGroupInputs), and what came out (TransportRunResult).
//! `run_transport` runs it: the batch loop (TransportDriver.cc) drives worker groups made by
//! one factory (TransportGroupFactory.cc) from the choice; the typed groups and the kernels
//! are instantiated inside transport/ only, one translation unit per precision and tally
//! method.
//!
//! Partition (independent of timing): batch b's history range is split into `ranks`
//! contiguous pieces by split_history_range, rank r's piece into `groups` contiguous
//! pieces. With a history-keyed RNG (Philox) and the FX tally the dose is therefore bitwise
//! the same for any number of GPUs, worker groups and ranks, and across a checkpoint and
//! resume.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/Types.hh"
#include "rng/RngKind.hh"
#include "sources/SourceView.hh"
#include "tally/DoseTally.hh"
#include "tally/EnergyBalance.hh"
#include "tally/TallyMethod.hh"
#include "transport/engine/PersistentGrid.hh"
#include "transport/engine/TransportProgress.hh"
#include "transport/engine/TransportView.hh"

namespace mcdose
{
class Comm;
class TransportParams;

//! What the transport runs: the kernels and CPU workers of one precision, generator and
//! tally method (one of the typed worker groups built into mcdose).
struct TransportChoice
{
    Precision precision{Precision::double_};
    RngKind generator{RngKind::philox};
    TallyMethod method{TallyMethod::fx};
};

//! A choice the transport runs; refuses the generators that are baselines for RNG studies
//! only (lcg, ran2), naming the field.
TransportChoice make_transport_choice(Precision precision, RngKind generator, TallyMethod method);

//! How to run (the physics lives in the params and the source).
struct TransportRunOptions
{
    Backend backend{Backend::cpu}; //!< cpu or gpu (resolved by the caller)
    int cpu_threads{0};            //!< 0: all cores (split over cpu_groups)
    int gpu_block_unit{128}; //!< threads; the block is whole units (persistent_transport_grid)
    std::uint32_t chunk{0};  //!< histories per grab (0: automatic)
    RngOptions rng;
    //! Fixed mode: `histories` split into `batches` equal batches. Open-ended
    //! mode (histories == 0): batches of `batch_histories` histories, batch b
    //! holding [b n, (b+1) n), run until on_batch returns false or
    //! `max_histories` is reached (e.g. a target uncertainty).
    std::uint64_t histories{0};
    std::uint64_t batches{10};
    std::uint64_t batch_histories{0};
    std::uint64_t max_histories{0};
    //! Batch boundaries fall on multiples of this many histories (a phase space
    //! used `recycle` times: one particle's uses stay in one batch). `histories`,
    //! `batch_histories` and `max_histories` must be multiples of it.
    std::uint64_t history_granule{1};
    double max_primary_energy_MeV{0}; //!< for the FX quantum (kinetic + 2 m c^2 for e+)
    //! One worker group (one GPU, or the CPU threads) on one rank, no batch
    //! hooks: one launch (a kernel, or a run of the threads) fills up to this
    //! many consecutive batches, each into a batch grid of its own (memory: one
    //! grid each), so that short batches do not each pay a GPU kernel's tail
    //! (the slowest history of the launch). A history's batch is fixed by its
    //! index, so with a generator keyed by history (Philox) results do not
    //! depend on it (per-thread engines give statistically equivalent ones).
    std::uint64_t max_batches_per_launch{1};
    //! ... and fills as few batches as hold at least this many histories.
    std::uint64_t launch_histories{4000000};
    //! GPU backend with a generator keyed by history (Philox): sample the source
    //! particles of each launch in a kernel of their own before the transport kernel
    //! (SourceParticles.hh), at most this many at a time (a longer launch runs the
    //! transport in pieces of this many histories). 0: each thread samples its history's
    //! particle when it starts it. The results are the same bit for bit; only the speed
    //! differs. Ignored on the CPU backend and with other generators.
    std::uint64_t source_particles_ahead{0};
    //! History-by-history uncertainty (Walters, Kawrakow and Rogers 2002): each
    //! CPU thread sums a history's deposits per voxel before they reach the
    //! tally, which also keeps each voxel's sum of squared history totals
    //! (several groups and ranks: summed as integers per batch). CPU backend
    //! only. Otherwise the batch method.
    bool history_uncertainty{false};
    //! GPU backend: the devices this process drives, one host thread each
    //! (empty: the calling thread's current device).
    std::vector<int> gpus;
    //! CPU backend: independent worker groups, each with its own batch grid
    //! and cpu_threads / cpu_groups threads, reduced like GPUs are (the same
    //! partition and reduction path as a multi-GPU run, testable without GPUs).
    int cpu_groups{1};
    //! The job's ranks (null: Comm::world()).
    Comm const* comm{nullptr};
    //! Caller's description of the input ("key=value" lines, e.g. a hash of
    //! the study); the driver adds its own settings to make the checkpoint
    //! fingerprint.
    std::string input_fingerprint;
    //! Checkpoint file written (atomically, by rank 0) at batch boundaries:
    //! after every batch, or at the first boundary `checkpoint_interval_s`
    //! after the last one. Empty: none.
    std::string checkpoint_path;
    double checkpoint_interval_s{0};
    //! Continue the run saved in this checkpoint (fingerprint must match).
    std::string resume_path;
    //! Called after each batch; return false to stop at this batch boundary.
    //! Every rank calls it; the run stops if any rank asks to.
    std::function<bool(TransportProgress const&)> on_batch;
    //! If enabled, each batch's energy summed over the slabs of the grid along
    //! one axis (all ranks and devices summed), kept per batch in the result
    //! and checkpoints (e.g. the depth dose, whose uncertainty needs the
    //! batches); computed where the batch is folded.
    SlabSpec batch_slabs;
    //! If set, called on every batch as it is folded (all ranks and devices summed; the
    //! batch's grid and history count in the view): what it returns is appended to the
    //! batch's digest, after the slab sums, and kept in the result and checkpoints (e.g. a
    //! structure's dose figures of each batch, whose spread gives their uncertainty).
    //! Every rank calls it. On the GPU backend the voxels it reads are first copied to the host.
    std::function<std::vector<double>(BatchEnergyView const& batch)> batch_figures;
    //! The voxels batch_figures reads: [first, first + count) (all a GPU copies).
    size_type batch_figures_first{0};
    size_type batch_figures_count{0};
    //! If set, polled (every 10 ms) while the CPU backend transports a batch:
    //! when it returns true the batch's remaining histories are not started,
    //! the histories in flight finish, the batch is discarded and the run ends
    //! incomplete with the batches before it (a signal stops a run within
    //! about a second rather than at the end of a batch). The GPU backend
    //! stops its kernel the same way. Also asked at every batch boundary, so
    //! a request is never missed when the batch ends before the next poll.
    std::function<bool()> stop_requested;
    //! Where the result's two host grids (energy and its uncertainty) and their mask go
    //! (DoseTally::result; TransportRunResult::dose's grids are then empty); null: into
    //! TransportRunResult::dose.
    std::shared_ptr<DoseGrids> result_grids;
    //! One GPU: its device memory (batch grids, totals, generators) is not freed when the
    //! final grids are on the host but handed to the caller (TransportRunResult::
    //! device_memory), who frees it off the critical path (study/RunFinish.cc: beside the outputs,
    //! before the GPU is released). Freeing a 512^3 run's 100 batch grids takes 0.02-0.04 s.
    bool hand_over_device_memory{false};
};

struct TransportRunResult
{
    DoseResult dose;            //!< energy per voxel [MeV] with its uncertainty
    EnergyBalance balance;      //!< over all ranks and devices
    std::uint64_t histories{0}; //!< histories actually run (all batches completed)
    bool complete{true};        //!< false if stopped early by on_batch
    double transport_time_s{0}; //!< wall time of the batches (transport + reductions)
    double batches_s{0};        //!< the part of transport_time_s this process ran (not resumed)
    double final_grids_s{0};    //!< final grids to the host; groups' memory freed or handed over
    size_type workers{0};       //!< CPU threads or GPU threads of this rank
    size_type groups{0};        //!< GPUs or CPU worker groups of this rank
    //! Histories of this rank whose source particle was sampled ahead of the transport
    //! (source_particles_ahead), counting each launch once (also one run again or cut).
    std::uint64_t source_particles_ahead{0};
    int ranks{1};
    std::uint64_t first_batch{0}; //!< batches restored from a checkpoint
    PersistentGrid grid;          //!< GPU launch shape (GPU backend, first device)
    //! Per batch: its slab sums (if batch_slabs), then what batch_figures returned (if set).
    std::vector<std::vector<double>> batch_digests;
    //! With history_uncertainty and batch_slabs: each slab's sum over histories of (the
    //! history's energy in the slab)^2 [MeV^2] (else empty).
    std::vector<double> history_slab_sum_sq;
    //! With TransportRunOptions::hand_over_device_memory and one GPU: its device memory,
    //! freed when the last owner lets go (which makes that GPU current on the owner's
    //! thread). Else null (freed already).
    std::shared_ptr<void> device_memory;
};

//! What one worker group transports with: physics tables and source in the
//! memory of its device (or the host), and what it does around each batch.
template <class Real>
struct TransportGroupInputs
{
    TransportView<Real> physics;
    SourceMixView<Real> source;
    //! If set, called on the group's thread (its GPU current) before each batch
    //! with the group's piece of it: may update the views (e.g. load the piece's
    //! phase-space particles).
    std::function<void(HistoryRange const& piece, TransportView<Real>& physics,
                       SourceMixView<Real>& source)>
        before_batch;
    //! If set, called after the piece ran (e.g. to drain a crossing buffer);
    //! returning false runs the piece again, its dose and energy balance
    //! discarded (e.g. after growing a buffer that overflowed). Only exact with
    //! a history-keyed generator (Philox): the caller requires it.
    std::function<bool(HistoryRange const& piece)> after_batch;
};

//! History range of batch b (fixed mode: `histories` in `batches` near-equal
//! batches of whole granules; open-ended: batches of `batch_histories`).
HistoryRange run_batch_range(TransportRunOptions const& options, std::uint64_t b);

//! Worker group g's piece of a launch's histories: rank `rank`'s share (of `ranks`), split
//! over the rank's `groups` groups.
HistoryRange group_history_range(HistoryRange launch, int ranks, int rank, std::uint64_t groups,
                                 std::uint64_t g);

//! Each worker group's inputs, in the run's precision: called on the group's thread with its
//! GPU current (device -1 for CPU groups; group: its index, in the order of
//! TransportRunOptions::gpus), returning views in that device's memory.
template <class Real>
using TransportInputsFor = std::function<TransportGroupInputs<Real>(int device, size_type group)>;
using TransportInputs = std::variant<TransportInputsFor<float>, TransportInputsFor<double>>;

/*!
 * Run the transport: batches of histories split over MPI ranks and, in each rank, over
 * worker groups (one host thread per GPU, or CPU thread teams), each running its piece on
 * the CPU threads or the persistent GPU kernel into its own batch grid, folded into the
 * totals. `inputs` must be in the choice's precision.
 */
TransportRunResult run_transport(TransportChoice const& choice, TransportInputs const& inputs,
                                 size_type voxels, TransportRunOptions const& options);

//! Run with one set of inputs for every group (host views on the CPU, the current device's
//! views on one GPU).
template <class Real>
TransportRunResult run_transport(TransportChoice const& choice, TransportParams const& physics,
                                 SourceMixView<Real> const& source, size_type voxels,
                                 TransportRunOptions const& options);
} // namespace mcdose
