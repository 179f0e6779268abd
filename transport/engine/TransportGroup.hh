//! \file transport/engine/TransportGroup.hh
//! The typed worker group: one precision, generator and tally method. It owns the group's
//! generators and kernel arguments and runs one piece of a batch on the CPU threads
//! (transport_worker) or the persistent GPU kernel. Included only by the translation units
//! that instantiate the groups (TransportGroupInstance.cc, one per precision and tally
//! method); the batch loop sees TransportGroupBase.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/Assert.hh"
#include "core/DeviceBuffer.hh"
#include "rng/Rng.hh"
#include "rng/SplitMix64.hh"
#include "tally/HistoryScratch.hh"
#include "transport/engine/CpuThreads.hh"
#include "transport/engine/SourceParticles.hh"
#include "transport/engine/TransportGroupBase.hh"
#include "transport/engine/TransportLaunch.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose
{
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

template <class Real, class Engine, class Policy>
class TransportGroup final : public TransportGroupBase
{
  public:
    using Source = SourceMixView<Real>;
    using Args = TransportArgs<Real, Engine, Policy, Source>;

    explicit TransportGroup(TransportInputsFor<Real> inputs) : inputs_(std::move(inputs)) {}

    //! Launch shape, generators, batch grid, balances and queue of the group.
    void set_up(GroupSetup const& setup) final
    {
        gpu_ = setup.gpu;
        source_particles_ahead_ = setup.source_particles_ahead;
        if (gpu_)
        {
            grid = persistent_transport_grid<Args>(setup.gpu_block_unit);
            workers = grid.workers();
        }
        else
        {
            workers = setup.cpu_threads;
        }
        MemSpace const where = gpu_ ? MemSpace::device : MemSpace::host;
        rng_ = std::make_unique<RngStore<Engine>>(make_rng_store<Engine>(
            group_rng_options<Engine>(setup.rng, setup.global_group, workers, setup.first_batch),
            workers, where));
        tally = std::make_unique<DoseTally>(setup.tally, setup.fold);
        host_balances.resize(workers);
        if (!gpu_)
            history_scratch_.resize(workers);
        if (gpu_)
        {
            device_balances = DeviceBuffer<EnergyBalance>(make_span(host_balances));
            device_counter = DeviceBuffer<unsigned long long>(1);
            device_stop = DeviceBuffer<unsigned>(1);
            device_stop.zero();
        }
        set_up_inputs(setup);
    }

    bool run_piece(HistoryRange const& piece, bool watching) final
    {
        args_.tally.set_slot_map(slot_map);
        if (!gpu_)
            args_.queue.end = queue_end; // a GPU's is set per part (launch_gpu_batch)
        std::vector<EnergyBalance> balances_before;
        if (after_batch_)
            balances_before = gpu_ ? device_balances.to_host() : host_balances;
        for (;;)
        {
            if (before_batch_)
                before_batch_(piece, args_.physics, args_.source);
            args_.rng = rng_->begin_batch();
            bool cut = gpu_ && this->launch_gpu_batch(piece, watching);
            if (!gpu_)
            {
                auto* scratch = history_scratch_.data();
                Args& args = args_;
                run_cpu_threads(
                    static_cast<int>(workers), [&args, scratch](size_type t)
                    { transport_worker(args, args.tally.with_history_scratch(scratch + t), t); });
                cut = cut_by_stop.load();
            }
            rng_->end_batch();
            if (cut)
                return true;
            if (!after_batch_ || after_batch_(piece))
                return false;
            tally->clear_batch();
            if (gpu_)
                device_balances.copy_to_device(make_span(std::as_const(balances_before)));
            else
                host_balances = balances_before;
            if (!gpu_)
                host_counter = piece.begin;
        }
    }

  private:
    TransportInputsFor<Real> inputs_;
    bool gpu_{false};
    std::uint64_t source_particles_ahead_{0};
    std::unique_ptr<RngStore<Engine>> rng_;
    DeviceBuffer<Particle<Real>> source_particles_; //!< GPU: sampled ahead of the transport
    DeviceBuffer<std::uint32_t> source_draws_;      //!< and the words each sampling used
    std::vector<HistoryScratch> history_scratch_;   //!< CPU: each thread's current history
    Args args_;
    std::function<void(HistoryRange const&, TransportView<Real>&, Source&)> before_batch_;
    std::function<bool(HistoryRange const&)> after_batch_;

    //! The group's tables, source and hooks (from the inputs), its tally view and queue.
    void set_up_inputs(GroupSetup const& setup)
    {
        auto const in = inputs_(device, setup.index);
        MCDOSE_VALIDATE(setup.slots == 1 || (!in.before_batch && !in.after_batch),
                        << "a run with batch hooks (phase-space input or output) fills one batch "
                           "per launch: set max_batches_per_launch to 1");
        args_.physics = in.physics;
        args_.source = in.source;
        before_batch_ = in.before_batch;
        after_batch_ = in.after_batch;
        args_.tally = tally->template view<Policy>();
        args_.balances = gpu_ ? device_balances.device_span() : make_span(host_balances);
        std::uint32_t chunk = setup.chunk;
        // Automatic: one history per grab on a GPU (its persistent kernel ends
        // when its slowest lane does, and an atomic per history is cheap);
        // CPU threads take at least 8 chunks each.
        if (chunk == 0)
            chunk = gpu_ ? 1u
                         : static_cast<std::uint32_t>(std::max<std::uint64_t>(
                               1, std::min<std::uint64_t>(256, setup.histories_per_batch /
                                                                   (8 * workers))));
        args_.queue.chunk = chunk;
        args_.queue.next = gpu_ ? device_counter.data() : &host_counter;
        args_.queue.stop = gpu_ ? device_stop.data() : nullptr;
    }

    /*!
     * Run the group's kernel over `piece` (sampling its source particles ahead: in
     * parts of source_particles_ahead histories, each sampled, then transported);
     * returns whether a stop request cut it short (its counter stayed below the end
     * of the part it stopped in; the parts after it do not run). With a stop watch
     * the group's balances are kept first, to be restored if any group is cut.
     */
    bool launch_gpu_batch(HistoryRange const& piece, bool watching)
    {
        if (watching)
        {
            if (balances_at_start.empty())
                balances_at_start = DeviceBuffer<EnergyBalance>(device_balances.size());
            balances_at_start.copy_from(device_balances);
        }
        bool cut = false;
        std::uint64_t const step =
            this->samples_ahead() ? source_particles_ahead_ : piece.end - piece.begin;
        for (std::uint64_t begin = piece.begin; begin < piece.end && !cut; begin += step)
        {
            HistoryRange const part{begin, std::min(piece.end, begin + step)};
            unsigned long long first = part.begin;
            device_counter.copy_to_device({&first, 1});
            args_.queue.end = part.end;
            if (this->samples_ahead())
                this->sample_sources(part);
            launch_transport_kernel(args_, grid);
            cut = watching && device_counter.to_host().front() < part.end;
        }
        args_.source_ahead = {};
        if (!watching)
            return false;
        // A stop word raised after the kernel ended is cleared for the next batch,
        // whose stop watch raises it again if the request stands.
        device_stop.zero();
        return cut;
    }

    //! A GPU launch samples its source particles ahead of the transport (Philox, asked for).
    bool samples_ahead() const
    {
        return samples_sources_ahead_v<Engine> && source_particles_ahead_ > 0;
    }

    //! Sample the source particles of `part`'s histories on the group's GPU and point the
    //! transport at them.
    void sample_sources(HistoryRange const& part)
    {
        if constexpr (samples_sources_ahead_v<Engine>)
        {
            size_type const n = part.end - part.begin;
            if (source_particles_.size() < n)
            {
                source_particles_ = {};
                source_draws_ = {};
                source_particles_ = DeviceBuffer<Particle<Real>>(n);
                source_draws_ = DeviceBuffer<std::uint32_t>(n);
            }
            Span<Particle<Real>> const particles{source_particles_.data(), n};
            Span<std::uint32_t> const draws{source_draws_.data(), n};
            launch_source_particles<Real>(args_.source, args_.rng, part.begin, particles, draws);
            args_.source_ahead = {part.begin, particles, draws};
            sampled_ahead += n;
        }
    }

    void free_typed_memory() final
    {
        source_particles_ = {};
        source_draws_ = {};
        rng_.reset();
    }
};
} // namespace mcdose
