//! \file transport/engine/TransportThread.hh
//! What one worker (a GPU thread of the persistent kernel, or a CPU thread)
//! does: grab chunks of histories until the batch is exhausted, transport
//! each, and add its energy balance to its own slot.
#pragma once

#include <cstdint>

#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/WarpVote.hh"
#include "tally/DoseTallyView.hh"
#include "tally/EnergyBalance.hh"
#include "transport/engine/HistoryQueue.hh"
#include "transport/engine/HistoryTransport.hh"
#include "transport/engine/SourceParticles.hh"
#include "transport/engine/TransportView.hh"

namespace mcdose
{
//! Kernel/thread arguments (trivially copyable: passed by value to kernels).
template <class Real, class Engine, class Policy, class Source>
struct TransportArgs
{
    using policy_type = Policy;

    TransportView<Real> physics;
    Source source; //!< `Particle<Real> operator()(Engine&, history) const`, local frame
    //! Source particles sampled ahead of the transport (SourceParticles.hh); the
    //! histories it does not hold sample theirs from `source` when they start.
    SourceParticlesView<Real> source_ahead;
    typename Engine::View rng;
    DoseTallyView<Policy> tally;
    HistoryQueueView queue;
    Span<EnergyBalance> balances; //!< one per worker
};

/*!
 * Which kind of step the threads of a block take together in one iteration of
 * the worker loop. The kinds run different code: a warp whose lanes take
 * several in one iteration runs them one after the other and fetches each
 * from the instruction cache, so each iteration runs one kind and the lanes
 * that want another wait.
 *
 * The vote is block-wide (`block_count`, a barrier) and the GPU kernel runs
 * one block per SM (TransportKernel.hh), so all the warps of an SM run the
 * same kind's code at the same time and share the SM's instruction caches.
 * With a vote per warp, each warp was somewhere else in the 290 KB kernel and
 * waiting for an instruction fetch was 60 % of the stall samples; with the
 * block vote it is 3 %, and ARCHER test 2 (Liu et al. 2018) in double runs in
 * 0.45 s instead of 0.64 s (H100, docs/history/benchmarks-log.md). The waits at the barrier
 * (22 % of the stall samples) cost less than the fetches did.
 *
 * The rule between two kinds A and B (`takes_turn`): A runs if more than
 * `ratio` times as many lanes want it as B, B if the reverse, and in between
 * the two alternate. A rare kind (the photons of an electron beam, the
 * electrons of a low-energy photon beam) thus waits until about 1/ratio of
 * the lanes want it and is then served every other iteration, instead of
 * either forcing a second code path into almost every iteration or waiting
 * for a majority. (ratio = 4 from a model of 32 lanes with a rare kind in runs
 * of 6-20 steps: 77 % of lane-steps used against 65 % for "both kinds every
 * iteration" and 55 % for "the majority runs"; measured with the vote per
 * warp, docs/history/benchmarks-log.md.)
 *
 * Three kinds (StepKind): the hard events against the other two first, then
 * photon against charged. In ARCHER test 2 a hard event follows 5.8 % of the
 * charged steps (counted on the CPU, 5000 histories), so without its own turn
 * 85 % of the iterations of 32 charged lanes would also run the interactors,
 * for about two lanes; now those lanes wait and run them together. On the
 * host a thread is a block of one lane and takes its own step.
 */
class StepKindVote
{
  public:
    static constexpr int ratio = 4;

    //! The rule for kind A against kind B: whether A runs, for `a_lanes` and
    //! `b_lanes` lanes wanting each and whether A ran at the last decision.
    static MCDOSE_FORCEINLINE_FUNCTION bool takes_turn(int a_lanes, int b_lanes, bool a_was_last)
    {
        if (a_lanes == 0 || ratio * a_lanes < b_lanes)
            return false;
        if (b_lanes == 0 || ratio * b_lanes < a_lanes)
            return true;
        return !a_was_last;
    }

    //! The kind of this iteration. Every thread of the block calls it.
    MCDOSE_FORCEINLINE_FUNCTION StepKind turn(bool wants_photon, bool wants_charged,
                                              bool wants_hard)
    {
        int const photon = block_count(wants_photon);
        int const charged = block_count(wants_charged);
        int const hard = block_count(wants_hard);
        idle_ = photon + charged + hard == 0;
        last_hard_ = takes_turn(hard, photon + charged, last_hard_);
        if (last_hard_)
            return StepKind::hard;
        last_photon_ = takes_turn(photon, charged, last_photon_);
        return last_photon_ ? StepKind::photon : StepKind::charged;
    }

    //! Whether no thread of the block wanted a step at the last turn.
    MCDOSE_FORCEINLINE_FUNCTION bool idle() const { return idle_; }

  private:
    // The same in every thread: the counts are block-wide.
    bool last_hard_{false};
    bool last_photon_{false};
    bool idle_{false};
};

/*!
 * What one worker does: grab chunks of histories until the batch is
 * exhausted and transport each, one step per loop iteration. A lane whose
 * particle has ended starts the next particle of its history (depth first),
 * or a new history; then the block votes on the step kind (StepKindVote) and
 * the lanes that want it step, each warp's stepping lanes as one WarpGroup.
 * One history's steps (and random numbers) come in the same order as in
 * `HistoryTransport::operator()`; only the interleaving of histories across
 * lanes changes. The loop ends when every thread of the block is done (the
 * vote needs all of them). `tally` is `args.tally`, or the GPU kernel's copy
 * of it with the block's cache in front (TransportKernel.hh).
 */
template <class Real, class Engine, class Policy, class Source>
MCDOSE_FUNCTION void transport_worker(TransportArgs<Real, Engine, Policy, Source> const& args,
                                      DoseTallyView<Policy> const& tally, size_type worker)
{
    using Transport = HistoryTransport<Real, Engine, Policy>;
    Engine rng(args.rng, worker);
    EnergyBalance balance = args.balances[worker];
    Transport transport(args.physics, tally, rng, balance);
    typename Transport::Lane lane;
    std::uint64_t next = 0, last = 0;
    bool more = true; // the queue may hold histories for this worker
    StepKindVote vote;
    for (;;)
    {
        if (!lane.alive && !transport.start_next(lane) && more)
        {
            if (next == last)
                more = args.queue.grab(next, last);
            if (more)
            {
                std::uint64_t const history = next++;
                transport.start_history(
                    start_source_particle(args.source_ahead, args.source, rng, history), lane,
                    history);
            }
        }
        StepKind const kind = Transport::next_step_kind(lane);
        bool const alive = lane.alive;
        StepKind const turn =
            vote.turn(alive && kind == StepKind::photon, alive && kind == StepKind::charged,
                      alive && kind == StepKind::hard);
        if (vote.idle())
        {
            // No particle in flight in the block: done unless a thread still
            // has histories or stacked particles. (Only checked then, to keep
            // a barrier out of the other iterations.)
            if (block_count(more || !lane.stack.empty()) == 0)
                break;
            continue;
        }
        bool const steps = alive && kind == turn;
        WarpGroup const stepping = WarpGroup::whole_warp().select(steps);
        if (steps)
            transport.step(lane, stepping);
    }
    tally.end_history(); // the last history's (history-by-history moments, CPU)
    tally.end_worker();
    args.balances[worker] = balance;
}
} // namespace mcdose
