//! \file transport/engine/TransportDriver.hh
//! Host side of a transport run for one (precision, engine, tally policy,
//! source) combination: batches of histories, each run by the CPU thread team
//! or the persistent GPU kernel, folded into the dose tally.
#pragma once

#include <chrono>
#include <functional>
#include <numeric>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "rng/Rng.hh"
#include "tally/DoseTally.hh"
#include "transport/engine/CpuThreads.hh"
#include "transport/engine/PhotonTransportParams.hh"
#include "transport/engine/TransportLaunch.hh"

namespace mcdose
{
//! Progress after each batch.
struct TransportProgress
{
    std::uint64_t histories_done{0};
    std::uint64_t histories_total{0};
    std::uint64_t batches_done{0};
    double elapsed_s{0};
    DoseTally const* tally{nullptr};  //!< folded results so far (tally->result())
};

//! How to run (the physics lives in the params and the source).
struct TransportRunOptions
{
    Backend backend{Backend::cpu};        //!< cpu or gpu (resolved by the caller)
    int cpu_threads{0};                   //!< 0: all cores
    int gpu_threads_per_block{128};
    std::uint32_t chunk{0};               //!< histories per grab (0: automatic)
    RngOptions rng;
    //! Fixed mode: `histories` split into `batches` equal batches. Open-ended
    //! mode (histories == 0): batches of `batch_histories` histories, batch b
    //! holding [b n, (b+1) n), run until on_batch returns false or
    //! `max_histories` is reached (e.g. a target uncertainty).
    std::uint64_t histories{0};
    std::uint64_t batches{10};
    std::uint64_t batch_histories{0};
    std::uint64_t max_histories{0};
    double max_primary_energy_MeV{0};     //!< for the FX quantum (kinetic + 2 m c^2 for e+)
    //! Called after each batch; return false to stop at this batch boundary.
    std::function<bool(TransportProgress const&)> on_batch;
    //! If set, receives each batch's energy per voxel [MeV] before it is folded
    //! (for quantities whose uncertainty needs the batches, e.g. depth dose).
    std::function<void(std::vector<double> const&)> on_batch_grid;
};

struct TransportRunResult
{
    DoseResult dose;                 //!< energy per voxel [MeV] with batch uncertainty
    EnergyBalance balance;
    std::uint64_t histories{0};      //!< histories actually run (all batches completed)
    bool complete{true};             //!< false if stopped early by on_batch
    double transport_time_s{0};      //!< wall time of the batches (transport + folds)
    size_type workers{0};            //!< CPU threads or GPU threads
    PersistentGrid grid;             //!< GPU launch shape (GPU backend)
};

template<class Real, class Engine, class Policy, class Source>
TransportRunResult run_transport_typed(PhotonTransportParams const& physics, Source const& source,
                                       TallyMethod method, size_type voxels,
                                       TransportRunOptions const& opts)
{
    using Args = TransportArgs<Real, Engine, Policy, Source>;
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
    std::uint64_t const num_batches
        = open_ended ? (opts.max_histories / opts.batch_histories) : opts.batches;
    bool const gpu = opts.backend == Backend::gpu;
    MemSpace const where = gpu ? MemSpace::device : MemSpace::host;

    TransportRunResult result;
    size_type workers = 0;
    if (gpu)
    {
        result.grid = persistent_transport_grid<Args>(opts.gpu_threads_per_block);
        workers = result.grid.workers();
    }
    else
    {
        workers = resolve_cpu_threads(opts.cpu_threads);
    }
    result.workers = workers;

    auto rng_store = make_rng_store<Engine>(opts.rng, workers, where);
    DoseTallyInput tin;
    tin.method = method;
    tin.voxels = voxels;
    tin.max_total_energy_MeV = double(total_histories) * opts.max_primary_energy_MeV;
    tin.backend = gpu ? Backend::gpu : Backend::cpu;
    DoseTally tally(tin);

    std::vector<EnergyBalance> host_balances(workers);
    DeviceBuffer<EnergyBalance> device_balances;
    std::uint64_t host_counter = 0;
    DeviceBuffer<unsigned long long> device_counter;
    if (gpu)
    {
        device_balances = DeviceBuffer<EnergyBalance>(make_span(host_balances));
        device_counter = DeviceBuffer<unsigned long long>(1);
    }

    Args args;
    args.physics = physics.view<Real>(where);
    args.source = source;
    args.tally = tally.view<Policy>();
    args.balances = gpu ? device_balances.device_span() : make_span(host_balances);
    // Chunks: small enough to balance the load at the end of a batch.
    std::uint64_t const per_batch = open_ended ? opts.batch_histories
                                               : (opts.histories + opts.batches - 1) / opts.batches;
    std::uint32_t chunk = opts.chunk;
    if (chunk == 0)
        chunk = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(
                    gpu ? 64 : 256, per_batch / (8 * workers))));
    args.queue.chunk = chunk;
    args.queue.next = gpu ? device_counter.data() : reinterpret_cast<unsigned long long*>(&host_counter);

    auto const start = std::chrono::steady_clock::now();
    for (std::uint64_t b = 0; b < num_batches; ++b)
    {
        HistoryRange const range
            = open_ended ? HistoryRange{b * opts.batch_histories, (b + 1) * opts.batch_histories}
                         : batch_history_range(opts.histories, opts.batches, b);
        unsigned long long first = range.begin;
        if (gpu)
            device_counter.copy_to_device({&first, 1});
        else
            host_counter = first;
        args.queue.end = range.end;
        args.rng = rng_store.begin_batch();
        if (gpu)
        {
            launch_transport_kernel(args, result.grid);
        }
        else
        {
            run_cpu_threads(static_cast<int>(workers),
                            [&args](size_type t) { transport_worker(args, t); });
        }
        rng_store.end_batch();
        if (opts.on_batch_grid)
            opts.on_batch_grid(tally.batch_energy_MeV());
        tally.end_batch(range.end - range.begin);
        result.histories = range.end;

        TransportProgress progress;
        progress.histories_done = range.end;
        progress.histories_total = total_histories;
        progress.batches_done = b + 1;
        progress.tally = &tally;
        progress.elapsed_s
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (opts.on_batch && !opts.on_batch(progress) && b + 1 < num_batches)
        {
            // Fixed mode: stopped early (interrupted). Open-ended: a stop is the goal.
            result.complete = open_ended;
            break;
        }
    }
    result.transport_time_s
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (gpu)
        host_balances = device_balances.to_host();
    for (auto const& bal : host_balances)
        result.balance += bal;
    result.dose = tally.result();
    return result;
}
}  // namespace mcdose
