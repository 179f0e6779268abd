//! \file transport/engine/TransportDriver.hh
//! Host side of a transport run for one (precision, engine, tally policy,
//! source) combination: batches of histories, split over MPI ranks and, in
//! each rank, over worker groups (one host thread per GPU, or CPU thread
//! teams), each group running its piece on the CPU threads or the persistent
//! GPU kernel into its own batch grid. With one group and one rank the batch
//! is folded where it is (a kernel on the GPU, all threads on the CPU) and
//! only the final grids cross to the host; otherwise the grids are reduced
//! (tally/BatchReduction.hh) and folded into a host tally.
//!
//! Partition (independent of timing): batch b's history range is split into
//! `ranks` contiguous pieces by split_history_range, rank r's piece into
//! `groups` contiguous pieces. With a history-keyed RNG (Philox) and the FX
//! tally the dose is therefore bitwise the same for any number of GPUs,
//! worker groups and ranks, and across a checkpoint and resume.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/Comm.hh"
#include "core/Device.hh"
#include "core/DeviceBuffer.hh"
#include "rng/Rng.hh"
#include "rng/SplitMix64.hh"
#include "tally/BatchReduction.hh"
#include "tally/DoseTally.hh"
#include "tally/accum/FixedPoint.hh"
#include "transport/engine/Checkpoint.hh"
#include "transport/engine/CpuThreads.hh"
#include "transport/engine/TransportLaunch.hh"
#include "transport/engine/TransportParams.hh"

namespace mcdose
{
//! Progress after each batch.
struct TransportProgress
{
    std::uint64_t histories_done{0};
    std::uint64_t histories_total{0};
    std::uint64_t batches_done{0};
    double elapsed_s{0};
    DoseTally const* tally{nullptr}; //!< folded results so far (tally->result())
};

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
    //! If set, polled (every 10 ms) while the CPU backend transports a batch:
    //! when it returns true the batch's remaining histories are not started,
    //! the histories in flight finish, the batch is discarded and the run ends
    //! incomplete with the batches before it (a signal stops a run within
    //! about a second rather than at the end of a batch). The GPU backend
    //! stops at the next batch boundary (on_batch).
    std::function<bool()> stop_requested;
    //! Where the result's two host grids (energy and its uncertainty) and their mask go
    //! (DoseTally::result; TransportRunResult::dose's grids are then empty); null: into
    //! TransportRunResult::dose.
    std::shared_ptr<DoseGrids> result_grids;
    //! One GPU: its device memory (batch grids, totals, generators) is not freed when the
    //! final grids are on the host but handed to the caller (TransportRunResult::
    //! device_memory), who frees it off the critical path (StudyRunner: beside the outputs,
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
    std::vector<std::vector<double>> batch_digests; //!< slab sums per batch (if batch_slabs)
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
template <class Real, class Source>
struct TransportGroupInputs
{
    TransportView<Real> physics;
    Source source;
    //! If set, called on the group's thread (its GPU current) before each batch
    //! with the group's piece of it: may update the views (e.g. load the piece's
    //! phase-space particles).
    std::function<void(HistoryRange const& piece, TransportView<Real>& physics, Source& source)>
        before_batch;
    //! If set, called after the piece ran (e.g. to drain a crossing buffer);
    //! returning false runs the piece again, its dose and energy balance
    //! discarded (e.g. after growing a buffer that overflowed). Only exact with
    //! a history-keyed generator (Philox): the caller requires it.
    std::function<bool(HistoryRange const& piece)> after_batch;
};

//! History range of batch b (fixed mode: `histories` in `batches` near-equal
//! batches of whole granules; open-ended: batches of `batch_histories`).
inline HistoryRange run_batch_range(TransportRunOptions const& options, std::uint64_t b)
{
    std::uint64_t const g = std::max<std::uint64_t>(1, options.history_granule);
    if (options.histories == 0)
        return {b * options.batch_histories, (b + 1) * options.batch_histories};
    HistoryRange const r = batch_history_range(options.histories / g, options.batches, b);
    return {r.begin * g, r.end * g};
}

//! Worker group g's piece of a launch's histories: rank `rank`'s share (of `ranks`), split
//! over the rank's `groups` groups.
inline HistoryRange group_history_range(HistoryRange launch, int ranks, int rank,
                                        std::uint64_t groups, std::uint64_t g)
{
    return split_history_range(
        split_history_range(launch, std::uint64_t(ranks), std::uint64_t(rank)), groups, g);
}

namespace detail
{
//! Resources of one worker group (a GPU, or a CPU thread team).
template <class Real, class Engine, class Policy, class Source>
struct TransportGroup
{
    using Args = TransportArgs<Real, Engine, Policy, Source>;
    int device{-1}; //!< GPU index (-1: CPU, or the current device)
    PersistentGrid grid;
    size_type workers{0};
    std::unique_ptr<RngStore<Engine>> rng;
    std::unique_ptr<DoseTally> tally;
    std::vector<EnergyBalance> host_balances;
    DeviceBuffer<EnergyBalance> device_balances;
    unsigned long long host_counter{0};
    //! CPU: a stop request emptied the queue while the piece ran (its
    //! histories left out), so the piece is discarded without its after hook.
    std::atomic<bool> cut_by_stop{false};
    DeviceBuffer<unsigned long long> device_counter;
    DeviceBuffer<unsigned> device_stop;            //!< GPU: the queue's stop word
    DeviceBuffer<EnergyBalance> balances_at_start; //!< GPU: restored if a batch is cut
    DeviceBuffer<Particle<Real>> source_particles; //!< GPU: sampled ahead of the transport
    DeviceBuffer<std::uint32_t> source_draws;      //!< and the words each sampling used
    std::uint64_t sampled_ahead{0};                //!< source particles sampled so far
    std::vector<HistoryScratch> history_scratch;   //!< CPU: each thread's current history
    Args args;
    std::function<void(HistoryRange const&, TransportView<Real>&, Source&)> before_batch;
    std::function<bool(HistoryRange const&)> after_batch;

    EnergyBalance balance() const
    {
        std::vector<EnergyBalance> const b =
            device_balances.empty() ? host_balances : device_balances.to_host();
        EnergyBalance sum;
        for (auto const& x : b)
            sum += x;
        return sum;
    }
};

//! Run f(g) for every group on its own host thread with its GPU current;
//! errors name the GPU or group.
template <class Group, class F>
void for_each_group(std::vector<std::unique_ptr<Group>>& groups, bool gpu, F&& f)
{
    run_cpu_threads(static_cast<int>(groups.size()),
                    [&](size_type g)
                    {
                        Group& group = *groups[g];
                        try
                        {
                            if (group.device >= 0)
                                activate_device(group.device);
                            f(g, group);
                        }
                        catch (RuntimeError const& e)
                        {
                            if (groups.size() == 1)
                                throw;
                            throw RuntimeError((gpu ? "GPU " + std::to_string(group.device)
                                                    : "worker group " + std::to_string(g)) +
                                               ": " + e.what());
                        }
                    });
}

//! Generator options of global group `global_group` for a run segment
//! starting at batch `first_batch`. Philox is keyed by history: every group
//! uses the same key, so a history's numbers do not depend on where it runs.
//! Per-thread engines get distinct streams per group (and, after a resume,
//! a seed mixed with the first batch, so no stream is replayed).
template <class Engine>
RngOptions group_rng_options(RngOptions options, std::uint64_t global_group, size_type workers,
                             std::uint64_t first_batch)
{
    if constexpr (!std::is_same<Engine, PhiloxEngine>::value)
    {
        constexpr std::uint64_t max_workers = std::uint64_t(1) << 20;
        MCDOSE_VALIDATE(workers <= max_workers,
                        << workers << " workers in one group exceed the " << max_workers
                        << " streams reserved per group; use fewer threads per group");
        MCDOSE_VALIDATE((global_group + 1) * max_workers <= 0xffffffffull,
                        << "too many worker groups (" << global_group + 1
                        << ") for per-thread RNG streams; use philox");
        options.stream = static_cast<std::uint32_t>(options.stream + global_group * max_workers);
        if (std::is_same<Engine, LaggedFibonacciEngine>::value && global_group > 0)
            options.seed = SplitMix64(options.seed, global_group)();
        if (first_batch > 0)
            options.seed = SplitMix64(options.seed, ~first_batch)();
    }
    return options;
}

//! Balance summed over ranks in rank order (doubles) and exactly (count).
inline EnergyBalance reduce_balance(EnergyBalance b, Comm const& comm)
{
    double v[6] = {b.emitted_MeV,      b.deposited_MeV, b.escaped_MeV,
                   b.below_cutoff_MeV, b.overflow_MeV,  b.rest_mass_MeV};
    comm.sum_in_rank_order({v, 6});
    std::uint64_t n = b.interactions;
    comm.allreduce_sum({&n, 1});
    return {v[0], v[1], v[2], v[3], v[4], v[5], n};
}

//! The driver's part of the checkpoint fingerprint.
template <class Real>
std::string run_fingerprint(TransportRunOptions const& options, TallyMethod method,
                            size_type voxels, int fx_quantum_exp2)
{
    std::string s = options.input_fingerprint;
    if (!s.empty() && s.back() != '\n')
        s += '\n';
    s += "histories=" + std::to_string(options.histories) +
         "\nbatches=" + std::to_string(options.histories ? options.batches : 0) +
         "\nbatch_histories=" + std::to_string(options.histories ? 0 : options.batch_histories) +
         "\nmax_histories=" + std::to_string(options.histories ? 0 : options.max_histories) +
         "\nhistory_granule=" + std::to_string(options.history_granule) +
         "\ntally=" + to_cstring(method) + "\nrng=" + to_cstring(options.rng.kind) +
         "\nseed=" + std::to_string(options.rng.seed) +
         "\nstream=" + std::to_string(options.rng.stream) +
         "\nprecision=" + (sizeof(Real) == 4 ? "float" : "double") +
         "\nvoxels=" + std::to_string(voxels) +
         "\nfx_quantum_exp2=" + std::to_string(fx_quantum_exp2) +
         "\nuncertainty=" + (options.history_uncertainty ? "history" : "batch") + "\n";
    return s;
}

//! The batches of a run and the worker groups of this rank, from validated options.
struct BatchPlan
{
    bool open_ended{false};           //!< no history count: until on_batch stops it
    std::uint64_t total_histories{0}; //!< the history count, or the open-ended maximum
    std::uint64_t num_batches{0};
    bool gpu{false};
    std::vector<int> devices;     //!< one per group (-1: CPU, or the current GPU)
    int cpu_threads_per_group{0}; //!< CPU backend
};

inline BatchPlan plan_batches(TransportRunOptions const& options)
{
    BatchPlan plan;
    plan.open_ended = options.histories == 0;
    if (plan.open_ended)
    {
        MCDOSE_VALIDATE(
            options.batch_histories > 0 && options.max_histories >= options.batch_histories,
            << "a run without a history count needs positive batch histories ("
            << options.batch_histories << ") and a maximum (" << options.max_histories
            << ") of at least one batch");
    }
    else
    {
        MCDOSE_VALIDATE(options.batches >= 1 && options.batches <= options.histories,
                        << "'batches' must be between 1 and the number of histories (got "
                        << options.batches << ")");
    }
    std::uint64_t const g = options.history_granule;
    MCDOSE_VALIDATE(g >= 1 && options.histories % g == 0 && options.batch_histories % g == 0 &&
                        options.max_histories % g == 0,
                    << "the history counts (" << options.histories << ", "
                    << options.batch_histories << " per batch, at most " << options.max_histories
                    << ") must be multiples of " << g << " (each phase-space particle's uses "
                    << "stay in one batch)");
    MCDOSE_VALIDATE(plan.open_ended || options.batches <= options.histories / g,
                    << "'batches' (" << options.batches << ") exceeds the " << options.histories / g
                    << " particles of the phase space used; use fewer batches");
    plan.total_histories = plan.open_ended ? options.max_histories : options.histories;
    plan.num_batches =
        plan.open_ended ? (options.max_histories / options.batch_histories) : options.batches;
    plan.gpu = options.backend == Backend::gpu;
    if (plan.gpu)
    {
        plan.devices = options.gpus.empty() ? std::vector<int>{-1} : options.gpus;
    }
    else
    {
        MCDOSE_VALIDATE(options.cpu_groups >= 1, << "CPU worker groups must be at least 1 (got "
                                                 << options.cpu_groups << ")");
        plan.devices.assign(options.cpu_groups, -1);
        plan.cpu_threads_per_group = std::max(1, resolve_cpu_threads(options.cpu_threads) /
                                                     static_cast<int>(plan.devices.size()));
    }
    return plan;
}

/*!
 * One run of run_transport_groups, in its steps: resume from a checkpoint,
 * set up the worker groups, then per batch transport and fold it, report
 * progress and checkpoint; finish with the totals.
 */
template <class Real, class Engine, class Policy, class Source>
class GroupedTransportRun
{
  public:
    using Inputs = std::function<TransportGroupInputs<Real, Source>(int device, size_type group)>;

    GroupedTransportRun(Inputs const& inputs, TallyMethod method, size_type voxels,
                        TransportRunOptions const& options)
        : inputs_(inputs), method_(method), voxels_(voxels), options_(options),
          comm_(options.comm ? *options.comm : Comm::world()), plan_(plan_batches(options)),
          tally_input_(make_tally_input()),
          fingerprint_(run_fingerprint<Real>(
              options, method, voxels,
              accum::fixed_point_quantum_exp2(tally_input_.max_total_energy_MeV)))
    {
    }

    TransportRunResult operator()()
    {
        result_.ranks = comm_.size();
        result_.groups = plan_.devices.size();
        if (!options_.resume_path.empty())
            resume();
        result_.first_batch = first_batch_;
        set_up_groups();
        set_up_folding();

        start_ = std::chrono::steady_clock::now();
        last_checkpoint_s_ = elapsed_s();
        for (std::uint64_t b = first_batch_; b < plan_.num_batches && !finished_;)
        {
            // One launch: batches [b, b + n), each into its own batch grid.
            std::uint64_t const n = std::min<std::uint64_t>(slots_, plan_.num_batches - b);
            if (!transport_batches(b, n))
            {
                // Stopped inside the launch: the run is batches [first, b).
                result_.complete = false;
                if (!options_.checkpoint_path.empty() && b > first_batch_)
                    save_checkpoint(b - 1, batch_range(b - 1), elapsed_s(), false);
                break;
            }
            b += n;
            if (end_batch(b - 1, batch_range(b - 1)))
                break;
        }
        return finish();
    }

  private:
    using Group = TransportGroup<Real, Engine, Policy, Source>;

    //! The groups handed over with their device memory (TransportRunResult::device_memory):
    //! freed with the first group's device current, on whichever thread lets them go.
    struct HandedOver
    {
        std::vector<std::unique_ptr<Group>> groups;
        explicit HandedOver(std::vector<std::unique_ptr<Group>>&& g) : groups(std::move(g)) {}
        HandedOver(HandedOver const&) = delete;
        HandedOver& operator=(HandedOver const&) = delete;
        ~HandedOver()
        {
            // The members are destroyed after this body: with the device current.
            try
            {
                if (!groups.empty() && groups.front()->device >= 0)
                    activate_device(groups.front()->device);
            }
            catch (std::exception const&)
            {
            }
        }
    };

    Inputs const& inputs_;
    TallyMethod method_;
    size_type voxels_;
    TransportRunOptions const& options_;
    Comm const& comm_;
    BatchPlan const plan_;
    std::uint64_t slots_{1};     //!< batches per launch (set with the groups)
    DoseTallyInput tally_input_; //!< of each group's batch grids
    std::string const fingerprint_;
    //! Several groups or ranks: the host tally their reduced batches are
    //! folded into (identical on every rank). Null with one group and rank.
    std::unique_ptr<DoseTally> master_;
    DoseTally* folder_{nullptr}; //!< the tally holding the totals (master or group 0's)
    std::unique_ptr<DoseTallyTotals> restored_tally_;

    TransportRunResult result_;
    EnergyBalance restored_balance_;
    double restored_time_s_{0};
    std::uint64_t first_batch_{0};
    bool finished_{false};
    std::vector<std::unique_ptr<Group>> groups_;
    std::vector<std::vector<std::uint64_t>> words_; //!< each group's batch grid, raw
    std::vector<BatchHistorySquares> squares_;      //!< each group's history squares (CPU)
    std::chrono::steady_clock::time_point start_;
    double last_checkpoint_s_{0};

    DoseTallyInput make_tally_input() const
    {
        DoseTallyInput tally_input;
        tally_input.method = method_;
        tally_input.voxels = voxels_;
        // The same bound (hence FX quantum) on every group and rank: the words add up.
        tally_input.max_total_energy_MeV =
            double(plan_.total_histories) * options_.max_primary_energy_MeV;
        tally_input.backend = plan_.gpu ? Backend::gpu : Backend::cpu;
        tally_input.history_moments = options_.history_uncertainty;
        tally_input.max_history_energy_MeV = options_.max_primary_energy_MeV;
        MCDOSE_VALIDATE(!options_.history_uncertainty || !plan_.gpu,
                        << "the history-by-history uncertainty runs on the CPU backend (a GPU's "
                           "histories share voxels in flight); use the batch method "
                           "(tally.uncertainty \"batch\")");
        return tally_input;
    }

    //! A group folds on its own threads (CPU) or device; a host master on all cores.
    DoseFoldOptions fold_options(bool master) const
    {
        DoseFoldOptions fold;
        fold.host_threads = plan_.gpu || master ? 0 : plan_.cpu_threads_per_group;
        fold.slabs = options_.batch_slabs;
        return fold;
    }

    //! One group on one rank folds in place; otherwise a host tally (all
    //! cores) folds the reduced batches. A resumed run's totals go there.
    void set_up_folding()
    {
        if (groups_.size() == 1 && comm_.size() == 1)
        {
            folder_ = groups_.front()->tally.get();
        }
        else
        {
            DoseTallyInput host_input = tally_input_;
            host_input.backend = Backend::cpu;
            host_input.slots = 1;
            master_ = std::make_unique<DoseTally>(host_input, fold_options(true));
            folder_ = master_.get();
        }
        if (restored_tally_)
            folder_->restore(std::move(*restored_tally_));
        restored_tally_.reset();
    }

    //! Continue from a checkpoint: the folded tally, balance, time and digests so far.
    void resume()
    {
        std::string bytes;
        if (comm_.rank() == 0)
            bytes = read_checkpoint_bytes(options_.resume_path);
        comm_.broadcast(bytes);
        TransportCheckpoint checkpoint = deserialize_checkpoint(bytes, options_.resume_path);
        check_checkpoint_fingerprint(checkpoint, fingerprint_, options_.resume_path);
        MCDOSE_VALIDATE(checkpoint.batches_done <= plan_.num_batches,
                        << "--resume '" << options_.resume_path << "': " << checkpoint.batches_done
                        << " batches done but the run has " << plan_.num_batches);
        restored_tally_ = std::make_unique<DoseTallyTotals>(std::move(checkpoint.tally));
        restored_balance_ = checkpoint.balance;
        restored_time_s_ = checkpoint.transport_time_s;
        result_.batch_digests = std::move(checkpoint.batch_digests);
        first_batch_ = checkpoint.batches_done;
        result_.histories = checkpoint.histories_done;
        finished_ = checkpoint.finished || first_batch_ == plan_.num_batches;
    }

    //! One group per device (or CPU team), each set up on its own thread.
    void set_up_groups()
    {
        size_type const num_groups = plan_.devices.size();
        // Chunks: small enough to balance the load at the end of a batch.
        std::uint64_t const per_batch =
            plan_.open_ended ? options_.batch_histories
                             : (options_.histories + options_.batches - 1) / options_.batches;
        std::uint64_t const per_group =
            std::max<std::uint64_t>(1, per_batch / (std::uint64_t(comm_.size()) * num_groups));
        for (size_type g = 0; g < num_groups; ++g)
        {
            groups_.push_back(std::make_unique<Group>());
            groups_.back()->device = plan_.devices[g];
        }
        slots_ = batches_per_launch(per_batch);
        tally_input_.slots = slots_;
        for_each_group(groups_, plan_.gpu,
                       [&](size_type g, Group& group) { set_up_group(g, group, per_group); });
        for (auto const& group : groups_)
            result_.workers += group->workers;
        result_.grid = groups_.front()->grid;
        words_.resize(num_groups);
        squares_.resize(num_groups);
    }

    //! Launch shape, generators, batch grid, balances and queue of group g.
    void set_up_group(size_type g, Group& group, std::uint64_t per_group) const
    {
        bool const gpu = plan_.gpu;
        if (gpu)
        {
            group.grid = persistent_transport_grid<typename Group::Args>(options_.gpu_block_unit);
            group.workers = group.grid.workers();
        }
        else
        {
            group.workers = plan_.cpu_threads_per_group;
        }
        std::uint64_t const global_group = std::uint64_t(comm_.rank()) * plan_.devices.size() + g;
        MemSpace const where = gpu ? MemSpace::device : MemSpace::host;
        group.rng = std::make_unique<RngStore<Engine>>(make_rng_store<Engine>(
            group_rng_options<Engine>(options_.rng, global_group, group.workers, first_batch_),
            group.workers, where));
        group.tally = std::make_unique<DoseTally>(tally_input_, fold_options(false));
        group.host_balances.resize(group.workers);
        if (!gpu)
            group.history_scratch.resize(group.workers);
        if (gpu)
        {
            group.device_balances = DeviceBuffer<EnergyBalance>(make_span(group.host_balances));
            group.device_counter = DeviceBuffer<unsigned long long>(1);
            group.device_stop = DeviceBuffer<unsigned>(1);
            group.device_stop.zero();
        }
        auto const in = inputs_(group.device, g);
        MCDOSE_VALIDATE(slots_ == 1 || (!in.before_batch && !in.after_batch),
                        << "a run with batch hooks (phase-space input or output) fills one batch "
                           "per launch: set max_batches_per_launch to 1");
        auto& args = group.args;
        args.physics = in.physics;
        args.source = in.source;
        group.before_batch = in.before_batch;
        group.after_batch = in.after_batch;
        args.tally = group.tally->template view<Policy>();
        args.balances = gpu ? group.device_balances.device_span() : make_span(group.host_balances);
        std::uint32_t chunk = options_.chunk;
        // Automatic: one history per grab on a GPU (its persistent kernel ends
        // when its slowest lane does, and an atomic per history is cheap);
        // CPU threads take at least 8 chunks each.
        if (chunk == 0)
            chunk = gpu ? 1u
                        : static_cast<std::uint32_t>(std::max<std::uint64_t>(
                              1, std::min<std::uint64_t>(256, per_group / (8 * group.workers))));
        args.queue.chunk = chunk;
        args.queue.next = gpu ? group.device_counter.data() : &group.host_counter;
        args.queue.stop = gpu ? group.device_stop.data() : nullptr;
    }

    HistoryRange batch_range(std::uint64_t b) const { return run_batch_range(options_, b); }

    /*!
     * Batches one launch fills: with one worker group on one rank (no batch
     * reduction), as many as hold launch_histories, at most
     * max_batches_per_launch; else one.
     */
    std::uint64_t batches_per_launch(std::uint64_t per_batch) const
    {
        if (plan_.devices.size() != 1 || comm_.size() != 1 ||
            options_.max_batches_per_launch <= 1 || options_.history_uncertainty)
            return 1;
        std::uint64_t const n = std::max<std::uint64_t>(1, per_batch);
        std::uint64_t const wanted =
            options_.launch_histories / n + (options_.launch_histories % n != 0 ? 1 : 0);
        return std::max<std::uint64_t>(
            1, std::min({wanted, options_.max_batches_per_launch, plan_.num_batches}));
    }

    //! Which batch grid each history of the launch starting at batch b uses.
    BatchSlotMap slot_map(std::uint64_t b) const
    {
        BatchSlotMap map;
        if (slots_ == 1)
            return map; // everything in slot 0
        std::uint64_t const g = std::max<std::uint64_t>(1, options_.history_granule);
        map.granule = g;
        map.first_batch = b;
        if (plan_.open_ended)
        {
            map.base = options_.batch_histories / g;
            return map;
        }
        // The split of run_batch_range: histories / g granules in `batches` batches.
        map.base = options_.histories / g / options_.batches;
        map.extra = options_.histories / g % options_.batches;
        return map;
    }

    double elapsed_s() const
    {
        return restored_time_s_ +
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

    //! Restored balance plus every group's, groups in order, ranks in rank order.
    EnergyBalance balance_now() const
    {
        EnergyBalance local;
        for (auto const& group : groups_)
            local += group->balance(); // group order: fixed
        EnergyBalance total = restored_balance_;
        total += reduce_balance(local, comm_);
        return total;
    }

    /*!
     * While a batch runs, poll options_.stop_requested; when it asks, stop
     * every group's workers from grabbing more histories (they finish the
     * histories they hold and return): on the CPU by emptying the history
     * queue, on a GPU by raising the queue's stop word while the kernel runs.
     * `cut()` tells whether histories were left out: on the CPU the emptied
     * queue says so at once; a GPU group says so after its kernel
     * (`mark_cut`, from its counter).
     */
    class StopWatch
    {
      public:
        StopWatch(std::function<bool()> const& stop, std::vector<std::unique_ptr<Group>>& groups,
                  bool gpu)
        {
            if (!stop)
                return;
            thread_ = std::thread(
                [this, stop, &groups, gpu]
                {
                    std::unique_lock<std::mutex> lock(mutex_);
                    // Woken at once when the batch ends (no poll interval added to it).
                    while (!wake_.wait_for(lock, std::chrono::milliseconds(10),
                                           [this] { return done_.load(); }))
                    {
                        if (!stop())
                            continue;
                        for (auto& group : groups)
                        {
                            if (gpu)
                            {
                                raise_stop(*group);
                                continue;
                            }
                            unsigned long long const end = group->args.queue.end;
                            if (__atomic_exchange_n(&group->host_counter, end, __ATOMIC_RELAXED) <
                                end)
                            {
                                group->cut_by_stop.store(true);
                                cut_.store(true);
                            }
                        }
                        return;
                    }
                });
        }
        //! A GPU group's kernel left histories of the batch out.
        void mark_cut() { cut_.store(true); }
        ~StopWatch() { this->finish(); }
        StopWatch(StopWatch const&) = delete;
        StopWatch& operator=(StopWatch const&) = delete;
        //! End the watch; whether it cut the batch short.
        bool cut()
        {
            this->finish();
            return cut_.load();
        }

      private:
        //! Raise a GPU group's stop word. Should that fail, the batch ends as usual and
        //! the run stops after it (the request is still seen at the batch's end).
        static void raise_stop(Group& group) noexcept
        {
            try
            {
                if (group.device >= 0)
                    activate_device(group.device);
                device_raise_flag(group.device_stop.data());
            }
            catch (std::exception const&)
            {
            }
        }

        void finish()
        {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                done_.store(true);
            }
            wake_.notify_all();
            if (thread_.joinable())
                thread_.join();
        }

        std::mutex mutex_;
        std::condition_variable wake_;
        std::atomic<bool> done_{false};
        std::atomic<bool> cut_{false};
        std::thread thread_;
    };

    /*!
     * Transport batches [b, b + n) (one launch; n > 1 only with one group on
     * one rank) on every group: this rank's piece of their histories, reduce
     * the groups' and ranks' grids, and fold the batches into the totals.
     * Returns false, folding nothing, if a stop request cut the launch short
     * on any rank (its energy balances are restored to the launch's start).
     */
    bool transport_batches(std::uint64_t b, std::uint64_t n)
    {
        HistoryRange const range{batch_range(b).begin, batch_range(b + n - 1).end};
        std::vector<std::uint64_t> sizes;
        for (std::uint64_t i = b; i < b + n; ++i)
            sizes.push_back(batch_range(i).end - batch_range(i).begin);
        size_type const num_groups = plan_.devices.size();
        bool const gpu = plan_.gpu;
        bool const watching = static_cast<bool>(options_.stop_requested);
        std::vector<std::vector<EnergyBalance>> balances_before;
        for (size_type g = 0; g < num_groups; ++g)
        {
            groups_[g]->args.tally.set_slot_map(slot_map(b));
            if (gpu)
                continue;
            // CPU queues are set here, before the stop watch may empty them.
            HistoryRange const piece =
                group_history_range(range, comm_.size(), comm_.rank(), num_groups, g);
            groups_[g]->host_counter = piece.begin;
            groups_[g]->cut_by_stop.store(false);
            groups_[g]->args.queue.end = piece.end;
            balances_before.push_back(groups_[g]->host_balances);
        }
        StopWatch watch(options_.stop_requested, groups_, gpu);
        for_each_group(groups_, gpu,
                       [&](size_type g, Group& group)
                       {
                           HistoryRange const piece = group_history_range(
                               range, comm_.size(), comm_.rank(), num_groups, g);
                           if (this->run_piece(group, piece, watching))
                               watch.mark_cut();
                           if (master_)
                           {
                               words_[g] = group.tally->batch_words();
                               if (options_.history_uncertainty)
                                   squares_[g] = group.tally->batch_history_squares();
                               group.tally->clear_batch();
                           }
                           else if (watch.cut())
                           {
                               // One group folds in place: a launch cut short is discarded
                               // here (watch.cut() ends the watch; its answer is final).
                               group.tally->clear_batch();
                           }
                           else
                           {
                               group.tally->end_batches(sizes);
                           }
                       });
        if (watching && this->agree_on_cut(watch.cut(), balances_before))
            return false;
        if (master_)
            fold_reduced_batch(range.end - range.begin);
        if (options_.batch_slabs.enabled())
        {
            for (auto const& slabs : folder_->folded_slabs())
                result_.batch_digests.push_back(slabs);
        }
        result_.histories = range.end;
        return true;
    }

    /*!
     * Transport one group's piece of a batch, with its before/after hooks; a
     * piece the after hook refuses is discarded (dose and balances) and run again.
     * Returns whether a stop request cut the piece short (a GPU's launch_gpu_batch,
     * a CPU group's emptied queue; the piece is then left to be discarded, without
     * its after hook).
     */
    bool run_piece(Group& group, HistoryRange const& piece, bool watching)
    {
        bool const gpu = plan_.gpu;
        auto& args = group.args;
        std::vector<EnergyBalance> balances_before;
        if (group.after_batch)
            balances_before = gpu ? group.device_balances.to_host() : group.host_balances;
        for (;;)
        {
            if (group.before_batch)
                group.before_batch(piece, args.physics, args.source);
            args.rng = group.rng->begin_batch();
            bool cut = gpu && this->launch_gpu_batch(group, piece, watching);
            if (!gpu)
            {
                auto* scratch = group.history_scratch.data();
                run_cpu_threads(
                    static_cast<int>(group.workers), [&args, scratch](size_type t)
                    { transport_worker(args, args.tally.with_history_scratch(scratch + t), t); });
                cut = group.cut_by_stop.load();
            }
            group.rng->end_batch();
            if (cut)
                return true;
            if (!group.after_batch || group.after_batch(piece))
                return false;
            group.tally->clear_batch();
            if (gpu)
                group.device_balances.copy_to_device(make_span(std::as_const(balances_before)));
            else
                group.host_balances = balances_before;
            if (!gpu)
                group.host_counter = piece.begin;
        }
    }

    /*!
     * Run a GPU group's kernel over `piece` (sampling its source particles ahead: in
     * parts of source_particles_ahead histories, each sampled, then transported);
     * returns whether a stop request cut it short (its counter stayed below the end
     * of the part it stopped in; the parts after it do not run). With a stop watch
     * the group's balances are kept first, to be restored if any group is cut.
     */
    bool launch_gpu_batch(Group& group, HistoryRange const& piece, bool watching)
    {
        if (watching)
        {
            if (group.balances_at_start.empty())
                group.balances_at_start = DeviceBuffer<EnergyBalance>(group.device_balances.size());
            group.balances_at_start.copy_from(group.device_balances);
        }
        bool cut = false;
        std::uint64_t const step =
            this->samples_ahead() ? options_.source_particles_ahead : piece.end - piece.begin;
        for (std::uint64_t begin = piece.begin; begin < piece.end && !cut; begin += step)
        {
            HistoryRange const part{begin, std::min(piece.end, begin + step)};
            unsigned long long first = part.begin;
            group.device_counter.copy_to_device({&first, 1});
            group.args.queue.end = part.end;
            if (this->samples_ahead())
                this->sample_sources(group, part);
            launch_transport_kernel(group.args, group.grid);
            cut = watching && group.device_counter.to_host().front() < part.end;
        }
        group.args.source_ahead = {};
        if (!watching)
            return false;
        // A stop word raised after the kernel ended is cleared for the next batch,
        // whose stop watch raises it again if the request stands.
        group.device_stop.zero();
        return cut;
    }

    //! A GPU launch samples its source particles ahead of the transport (Philox, asked for).
    bool samples_ahead() const
    {
        return samples_sources_ahead_v<Engine> && options_.source_particles_ahead > 0;
    }

    //! Sample the source particles of `part`'s histories on the group's GPU and point the
    //! transport at them.
    void sample_sources(Group& group, HistoryRange const& part)
    {
        if constexpr (samples_sources_ahead_v<Engine>)
        {
            size_type const n = part.end - part.begin;
            if (group.source_particles.size() < n)
            {
                group.source_particles = {};
                group.source_draws = {};
                group.source_particles = DeviceBuffer<Particle<Real>>(n);
                group.source_draws = DeviceBuffer<std::uint32_t>(n);
            }
            Span<Particle<Real>> const particles{group.source_particles.data(), n};
            Span<std::uint32_t> const draws{group.source_draws.data(), n};
            launch_source_particles<Real>(group.args.source, group.args.rng, part.begin, particles,
                                          draws);
            group.args.source_ahead = {part.begin, particles, draws};
            group.sampled_ahead += n;
        }
    }

    /*!
     * Whether a stop request cut this batch on any rank; if so, every group's
     * energy balances go back to the batch's start (CPU: `before`, GPU: the
     * device copy kept at launch).
     */
    bool agree_on_cut(bool cut_here, std::vector<std::vector<EnergyBalance>> const& before)
    {
        std::uint64_t cut = cut_here ? 1 : 0;
        comm_.allreduce_sum({&cut, 1});
        if (cut == 0)
            return false;
        if (plan_.gpu)
        {
            for_each_group(groups_, true,
                           [](size_type, Group& group)
                           { group.device_balances.copy_from(group.balances_at_start); });
        }
        else
        {
            for (size_type g = 0; g < groups_.size(); ++g)
                groups_[g]->host_balances = before[g];
        }
        return true;
    }

    //! Several groups or ranks: reduce their grids (and history squares: integer
    //! sums) and fold the batch on the host (FX: the integer sum of the words,
    //! folded as one grid).
    void fold_reduced_batch(std::uint64_t histories)
    {
        if (options_.history_uncertainty)
        {
            std::vector<std::vector<std::uint64_t>> voxels, slabs;
            for (BatchHistorySquares& s : squares_)
            {
                voxels.push_back(std::move(s.voxels));
                slabs.push_back(std::move(s.slabs));
            }
            master_->set_batch_history_squares(
                {reduce_fx_batch_words(voxels, comm_), reduce_fx_batch_words(slabs, comm_)});
        }
        if (method_ == TallyMethod::fx)
        {
            master_->set_batch_words(reduce_fx_batch_words(words_, comm_));
            master_->end_batch(histories);
            return;
        }
        master_->fold_batch(
            reduce_batch(method_, master_->fx_quantum_exp2(), words_, voxels_, comm_), histories);
    }

    //! Progress, the ranks' agreement on stopping and checkpointing, and the
    //! checkpoint after batch b; returns whether the run stops here.
    bool end_batch(std::uint64_t b, HistoryRange const& range)
    {
        TransportProgress progress;
        progress.histories_done = range.end;
        progress.histories_total = plan_.total_histories;
        progress.batches_done = b + 1;
        progress.tally = folder_;
        progress.elapsed_s = elapsed_s();
        bool const want_stop = options_.on_batch && !options_.on_batch(progress);
        bool const due = !options_.checkpoint_path.empty() && comm_.rank() == 0 &&
                         progress.elapsed_s - last_checkpoint_s_ >= options_.checkpoint_interval_s;
        // Agree on stopping and checkpointing (time limits and signals differ by rank).
        std::uint64_t votes[2] = {want_stop ? 1u : 0u, due ? 1u : 0u};
        comm_.allreduce_sum({votes, 2});
        bool const last = b + 1 == plan_.num_batches;
        bool const stop = votes[0] > 0 && !last;
        if (stop)
            result_.complete = plan_.open_ended; // fixed mode: interrupted; open-ended: the goal
        if (votes[1] > 0 || (!options_.checkpoint_path.empty() && (stop || last)))
            save_checkpoint(b, range, progress.elapsed_s, last || (stop && plan_.open_ended));
        return stop;
    }

    //! Save the run after batch b (rank 0 writes, atomically).
    void save_checkpoint(std::uint64_t b, HistoryRange const& range, double elapsed, bool finished)
    {
        TransportCheckpoint checkpoint;
        checkpoint.fingerprint = fingerprint_;
        checkpoint.batches_done = b + 1;
        checkpoint.histories_done = range.end;
        checkpoint.finished = finished;
        checkpoint.transport_time_s = elapsed;
        checkpoint.tally = folder_->totals();
        checkpoint.balance = balance_now();
        checkpoint.batch_digests = result_.batch_digests;
        if (comm_.rank() == 0)
            write_checkpoint(options_.checkpoint_path, checkpoint);
        last_checkpoint_s_ = elapsed;
    }

    //! Time, balance and dose of the run; the groups' memory freed.
    TransportRunResult finish()
    {
        result_.transport_time_s = elapsed_s();
        result_.batches_s = result_.transport_time_s - restored_time_s_;
        auto const finishing = std::chrono::steady_clock::now();
        result_.balance = balance_now();
        // Before the groups' tallies are freed.
        result_.dose = folder_->result(options_.result_grids.get());
        result_.history_slab_sum_sq = folder_->history_slab_sum_sq();
        folder_ = nullptr;
        for (auto const& group : groups_)
            result_.source_particles_ahead += group->sampled_ahead;
        if (options_.hand_over_device_memory && plan_.gpu && groups_.size() == 1)
        {
            result_.device_memory = std::make_shared<HandedOver>(std::move(groups_));
            groups_.clear();
        }
        else
        {
            for_each_group(groups_, plan_.gpu,
                           [](size_type, Group& group)
                           {
                               // Free device memory with the group's device current.
                               group.device_balances = DeviceBuffer<EnergyBalance>();
                               group.device_counter = DeviceBuffer<unsigned long long>();
                               group.device_stop = DeviceBuffer<unsigned>();
                               group.balances_at_start = DeviceBuffer<EnergyBalance>();
                               group.source_particles = DeviceBuffer<Particle<Real>>();
                               group.source_draws = DeviceBuffer<std::uint32_t>();
                               group.rng.reset();
                               group.tally.reset();
                           });
        }
        result_.final_grids_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - finishing).count();
        return std::move(result_);
    }
};
} // namespace detail

/*!
 * Run with per-group inputs: `inputs(device, group)` is called on each group's
 * thread with that group's GPU current (device -1 for CPU groups; group: its
 * index, in the order of `options.gpus`) and returns views in that device's
 * memory (see StudyRunner.cc for per-device params).
 */
template <class Real, class Engine, class Policy, class Source>
TransportRunResult run_transport_groups(
    std::function<TransportGroupInputs<Real, Source>(int device, size_type group)> const& inputs,
    TallyMethod method, size_type voxels, TransportRunOptions const& options)
{
    return detail::GroupedTransportRun<Real, Engine, Policy, Source>(inputs, method, voxels,
                                                                     options)();
}

//! Run with one set of inputs for every group (host views on the CPU, the
//! current device's views on one GPU).
template <class Real, class Engine, class Policy, class Source>
TransportRunResult run_transport_typed(TransportParams const& physics, Source const& source,
                                       TallyMethod method, size_type voxels,
                                       TransportRunOptions const& options)
{
    MCDOSE_VALIDATE(options.backend != Backend::gpu || options.gpus.size() <= 1,
                    << "one set of physics tables cannot serve several GPUs; build per-device "
                       "params and call run_transport_groups");
    MemSpace const where = options.backend == Backend::gpu ? MemSpace::device : MemSpace::host;
    return run_transport_groups<Real, Engine, Policy, Source>(
        [&](int, size_type)
        {
            TransportGroupInputs<Real, Source> in;
            in.physics = physics.view<Real>(where);
            in.source = source;
            return in;
        },
        method, voxels, options);
}
} // namespace mcdose
