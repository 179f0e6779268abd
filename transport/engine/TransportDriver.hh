//! \file transport/engine/TransportDriver.hh
//! Host side of a transport run for one (precision, engine, tally policy,
//! source) combination: batches of histories, split over MPI ranks and, in
//! each rank, over worker groups (one host thread per GPU, or CPU thread
//! teams), each group running its piece on the CPU threads or the persistent
//! GPU kernel into its own batch grid; the grids are then reduced
//! (tally/BatchReduction.hh) and folded into the dose tally.
//!
//! Partition (independent of timing): batch b's history range is split into
//! `ranks` contiguous pieces by split_history_range, rank r's piece into
//! `groups` contiguous pieces. With a history-keyed RNG (Philox) and the FX
//! tally the dose is therefore bitwise the same for any number of GPUs,
//! worker groups and ranks, and across a checkpoint and resume.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "core/Comm.hh"
#include "core/Device.hh"
#include "core/DeviceBuffer.hh"
#include "rng/Rng.hh"
#include "rng/SplitMix64.hh"
#include "tally/BatchReduction.hh"
#include "tally/DoseTally.hh"
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
    double max_primary_energy_MeV{0}; //!< for the FX quantum (kinetic + 2 m c^2 for e+)
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
    //! If set, maps each batch's energy per voxel [MeV] (all ranks and devices
    //! summed) to a small digest kept per batch in the result and checkpoints
    //! (e.g. depth-dose slab sums, for an uncertainty that needs the batches).
    std::function<std::vector<double>(std::vector<double> const&)> batch_digest;
};

struct TransportRunResult
{
    DoseResult dose;            //!< energy per voxel [MeV] with batch uncertainty
    EnergyBalance balance;      //!< over all ranks and devices
    std::uint64_t histories{0}; //!< histories actually run (all batches completed)
    bool complete{true};        //!< false if stopped early by on_batch
    double transport_time_s{0}; //!< wall time of the batches (transport + reductions)
    size_type workers{0};       //!< CPU threads or GPU threads of this rank
    size_type groups{0};        //!< GPUs or CPU worker groups of this rank
    int ranks{1};
    std::uint64_t first_batch{0}; //!< batches restored from a checkpoint
    PersistentGrid grid;          //!< GPU launch shape (GPU backend, first device)
    std::vector<std::vector<double>> batch_digests; //!< one per batch (if batch_digest)
};

//! What one worker group transports with: physics tables and source in the
//! memory of its device (or the host).
template <class Real, class Source>
struct TransportGroupInputs
{
    TransportView<Real> physics;
    Source source;
};

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
    DeviceBuffer<unsigned long long> device_counter;
    Args args;

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
RngOptions group_rng_options(RngOptions opts, std::uint64_t global_group, size_type workers,
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
        opts.stream = static_cast<std::uint32_t>(opts.stream + global_group * max_workers);
        if (std::is_same<Engine, LaggedFibonacciEngine>::value && global_group > 0)
            opts.seed = SplitMix64(opts.seed, global_group)();
        if (first_batch > 0)
            opts.seed = SplitMix64(opts.seed, ~first_batch)();
    }
    return opts;
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
std::string run_fingerprint(TransportRunOptions const& o, TallyMethod method, size_type voxels,
                            int fx_quantum_exp2)
{
    std::string s = o.input_fingerprint;
    if (!s.empty() && s.back() != '\n')
        s += '\n';
    s += "histories=" + std::to_string(o.histories) +
         "\nbatches=" + std::to_string(o.histories ? o.batches : 0) +
         "\nbatch_histories=" + std::to_string(o.histories ? 0 : o.batch_histories) +
         "\nmax_histories=" + std::to_string(o.histories ? 0 : o.max_histories) +
         "\ntally=" + to_cstring(method) + "\nrng=" + to_cstring(o.rng.kind) +
         "\nseed=" + std::to_string(o.rng.seed) + "\nstream=" + std::to_string(o.rng.stream) +
         "\nprecision=" + (sizeof(Real) == 4 ? "float" : "double") +
         "\nvoxels=" + std::to_string(voxels) +
         "\nfx_quantum_exp2=" + std::to_string(fx_quantum_exp2) + "\n";
    return s;
}
} // namespace detail

/*!
 * Run with per-group inputs: `inputs(device)` is called on each group's
 * thread with that group's GPU current (device -1 for CPU groups) and returns
 * views in that device's memory (see StudyRunner.cc for per-device params).
 */
template <class Real, class Engine, class Policy, class Source>
TransportRunResult
run_transport_groups(std::function<TransportGroupInputs<Real, Source>(int device)> const& inputs,
                     TallyMethod method, size_type voxels, TransportRunOptions const& opts)
{
    using Group = detail::TransportGroup<Real, Engine, Policy, Source>;
    Comm const& comm = opts.comm ? *opts.comm : Comm::world();
    bool const open_ended = opts.histories == 0;
    if (open_ended)
    {
        MCDOSE_VALIDATE(opts.batch_histories > 0 && opts.max_histories >= opts.batch_histories,
                        << "a run without a history count needs positive batch histories ("
                        << opts.batch_histories << ") and a maximum (" << opts.max_histories
                        << ") of at least one batch");
    }
    else
    {
        MCDOSE_VALIDATE(opts.batches >= 1 && opts.batches <= opts.histories,
                        << "'batches' must be between 1 and the number of histories (got "
                        << opts.batches << ")");
    }
    std::uint64_t const total_histories = open_ended ? opts.max_histories : opts.histories;
    std::uint64_t const num_batches =
        open_ended ? (opts.max_histories / opts.batch_histories) : opts.batches;
    bool const gpu = opts.backend == Backend::gpu;
    MemSpace const where = gpu ? MemSpace::device : MemSpace::host;

    // Worker groups of this rank.
    std::vector<int> devices;
    if (gpu)
        devices = opts.gpus.empty() ? std::vector<int>{-1} : opts.gpus;
    else
    {
        MCDOSE_VALIDATE(opts.cpu_groups >= 1,
                        << "CPU worker groups must be at least 1 (got " << opts.cpu_groups << ")");
        devices.assign(opts.cpu_groups, -1);
    }
    size_type const num_groups = devices.size();
    int const cpu_threads_per_group =
        gpu ? 0 : std::max(1, resolve_cpu_threads(opts.cpu_threads) / static_cast<int>(num_groups));

    DoseTallyInput tin;
    tin.method = method;
    tin.voxels = voxels;
    // The same bound (hence FX quantum) on every group and rank: the words add up.
    tin.max_total_energy_MeV = double(total_histories) * opts.max_primary_energy_MeV;
    tin.backend = gpu ? Backend::gpu : Backend::cpu;
    DoseTallyInput master_in = tin;
    master_in.backend = Backend::cpu;
    DoseTally master(master_in); // folded totals (identical on every rank)
    std::string const fingerprint =
        detail::run_fingerprint<Real>(opts, method, voxels, master.fx_quantum_exp2());

    TransportRunResult result;
    result.ranks = comm.size();
    result.groups = num_groups;
    EnergyBalance restored_balance;
    double restored_time_s = 0;
    std::uint64_t first_batch = 0;
    bool finished = false;
    if (!opts.resume_path.empty())
    {
        std::string bytes;
        if (comm.rank() == 0)
            bytes = read_checkpoint_bytes(opts.resume_path);
        comm.broadcast(bytes);
        TransportCheckpoint ck = deserialize_checkpoint(bytes, opts.resume_path);
        check_checkpoint_fingerprint(ck, fingerprint, opts.resume_path);
        MCDOSE_VALIDATE(ck.batches_done <= num_batches,
                        << "--resume '" << opts.resume_path << "': " << ck.batches_done
                        << " batches done but the run has " << num_batches);
        master.restore(std::move(ck.tally));
        restored_balance = ck.balance;
        restored_time_s = ck.transport_time_s;
        result.batch_digests = std::move(ck.batch_digests);
        first_batch = ck.batches_done;
        result.histories = ck.histories_done;
        finished = ck.finished || first_batch == num_batches;
    }
    result.first_batch = first_batch;

    // Chunks: small enough to balance the load at the end of a batch.
    std::uint64_t const per_batch =
        open_ended ? opts.batch_histories : (opts.histories + opts.batches - 1) / opts.batches;
    std::uint64_t const per_group =
        std::max<std::uint64_t>(1, per_batch / (std::uint64_t(comm.size()) * num_groups));

    std::vector<std::unique_ptr<Group>> groups;
    for (size_type g = 0; g < num_groups; ++g)
    {
        groups.push_back(std::make_unique<Group>());
        groups.back()->device = devices[g];
    }
    detail::for_each_group(
        groups, gpu,
        [&](size_type g, Group& group)
        {
            if (gpu)
            {
                group.grid = persistent_transport_grid<typename Group::Args>(opts.gpu_block_unit);
                group.workers = group.grid.workers();
            }
            else
            {
                group.workers = cpu_threads_per_group;
            }
            std::uint64_t const global_group = std::uint64_t(comm.rank()) * num_groups + g;
            group.rng = std::make_unique<RngStore<Engine>>(
                make_rng_store<Engine>(detail::group_rng_options<Engine>(
                                           opts.rng, global_group, group.workers, first_batch),
                                       group.workers, where));
            group.tally = std::make_unique<DoseTally>(tin);
            group.host_balances.resize(group.workers);
            if (gpu)
            {
                group.device_balances = DeviceBuffer<EnergyBalance>(make_span(group.host_balances));
                group.device_counter = DeviceBuffer<unsigned long long>(1);
            }
            auto const in = inputs(group.device);
            auto& args = group.args;
            args.physics = in.physics;
            args.source = in.source;
            args.tally = group.tally->template view<Policy>();
            args.balances =
                gpu ? group.device_balances.device_span() : make_span(group.host_balances);
            std::uint32_t chunk = opts.chunk;
            // Automatic: one history per grab on a GPU (its persistent kernel ends
            // when its slowest lane does, and an atomic per history is cheap);
            // CPU threads take at least 8 chunks each.
            if (chunk == 0)
                chunk =
                    gpu ? 1u
                        : static_cast<std::uint32_t>(std::max<std::uint64_t>(
                              1, std::min<std::uint64_t>(256, per_group / (8 * group.workers))));
            args.queue.chunk = chunk;
            args.queue.next = gpu ? group.device_counter.data() : &group.host_counter;
        });
    for (auto const& group : groups)
        result.workers += group->workers;
    result.grid = groups.front()->grid;

    auto const start = std::chrono::steady_clock::now();
    auto elapsed = [&]
    {
        return restored_time_s +
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    double last_checkpoint_s = elapsed();
    auto balance_now = [&]
    {
        EnergyBalance local;
        for (auto const& group : groups)
            local += group->balance(); // group order: fixed
        EnergyBalance total = restored_balance;
        total += detail::reduce_balance(local, comm);
        return total;
    };
    std::vector<std::vector<std::uint64_t>> words(num_groups);
    for (std::uint64_t b = first_batch; b < num_batches && !finished; ++b)
    {
        HistoryRange const range =
            open_ended ? HistoryRange{b * opts.batch_histories, (b + 1) * opts.batch_histories}
                       : batch_history_range(opts.histories, opts.batches, b);
        HistoryRange const mine = split_history_range(range, comm.size(), comm.rank());
        detail::for_each_group(
            groups, gpu,
            [&](size_type g, Group& group)
            {
                HistoryRange const piece = split_history_range(mine, num_groups, g);
                auto& args = group.args;
                unsigned long long first = piece.begin;
                if (gpu)
                    group.device_counter.copy_to_device({&first, 1});
                else
                    group.host_counter = first;
                args.queue.end = piece.end;
                args.rng = group.rng->begin_batch();
                if (gpu)
                {
                    launch_transport_kernel(args, group.grid);
                }
                else
                {
                    run_cpu_threads(static_cast<int>(group.workers), [&args](size_type t)
                                    { transport_worker(args, args.tally, t); });
                }
                group.rng->end_batch();
                words[g] = group.tally->batch_words();
                group.tally->clear_batch();
            });
        std::vector<double> const batch =
            reduce_batch(method, master.fx_quantum_exp2(), words, voxels, comm);
        if (opts.batch_digest)
            result.batch_digests.push_back(opts.batch_digest(batch));
        master.fold_batch(batch, range.end - range.begin);
        result.histories = range.end;

        TransportProgress progress;
        progress.histories_done = range.end;
        progress.histories_total = total_histories;
        progress.batches_done = b + 1;
        progress.tally = &master;
        progress.elapsed_s = elapsed();
        bool const want_stop = opts.on_batch && !opts.on_batch(progress);
        bool const due = !opts.checkpoint_path.empty() && comm.rank() == 0 &&
                         progress.elapsed_s - last_checkpoint_s >= opts.checkpoint_interval_s;
        // Agree on stopping and checkpointing (time limits and signals differ by rank).
        std::uint64_t votes[2] = {want_stop ? 1u : 0u, due ? 1u : 0u};
        comm.allreduce_sum({votes, 2});
        bool const stop = votes[0] > 0 && b + 1 < num_batches;
        if (stop)
            result.complete = open_ended; // fixed mode: interrupted; open-ended: the goal
        if (votes[1] > 0 || (!opts.checkpoint_path.empty() && (stop || b + 1 == num_batches)))
        {
            TransportCheckpoint ck;
            ck.fingerprint = fingerprint;
            ck.batches_done = b + 1;
            ck.histories_done = range.end;
            ck.finished = b + 1 == num_batches || (stop && open_ended);
            ck.transport_time_s = progress.elapsed_s;
            ck.tally = master.totals();
            ck.balance = balance_now();
            ck.batch_digests = result.batch_digests;
            if (comm.rank() == 0)
                write_checkpoint(opts.checkpoint_path, ck);
            last_checkpoint_s = progress.elapsed_s;
        }
        if (stop)
            break;
    }
    result.transport_time_s = elapsed();
    result.balance = balance_now();
    detail::for_each_group(groups, gpu,
                           [](size_type, Group& group)
                           {
                               // Free device memory with the group's device current.
                               group.device_balances = DeviceBuffer<EnergyBalance>();
                               group.device_counter = DeviceBuffer<unsigned long long>();
                               group.rng.reset();
                               group.tally.reset();
                           });
    result.dose = master.result();
    return result;
}

//! Run with one set of inputs for every group (host views on the CPU, the
//! current device's views on one GPU).
template <class Real, class Engine, class Policy, class Source>
TransportRunResult run_transport_typed(TransportParams const& physics, Source const& source,
                                       TallyMethod method, size_type voxels,
                                       TransportRunOptions const& opts)
{
    MCDOSE_VALIDATE(opts.backend != Backend::gpu || opts.gpus.size() <= 1,
                    << "one set of physics tables cannot serve several GPUs; build per-device "
                       "params and call run_transport_groups");
    MemSpace const where = opts.backend == Backend::gpu ? MemSpace::device : MemSpace::host;
    return run_transport_groups<Real, Engine, Policy, Source>(
        [&](int) {
            return TransportGroupInputs<Real, Source>{physics.view<Real>(where), source};
        },
        method, voxels, opts);
}
} // namespace mcdose
