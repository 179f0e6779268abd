//! \file transport/engine/TransportThread.hh
//! What one worker (a GPU thread of the persistent kernel, or a CPU thread)
//! does: grab chunks of histories until the batch is exhausted, transport
//! each, and add its energy balance to its own slot.
#pragma once

#include <cstdint>

#include "core/Macros.hh"
#include "core/Span.hh"
#include "tally/DoseTallyView.hh"
#include "transport/engine/EnergyBalance.hh"
#include "transport/engine/HistoryQueue.hh"
#include "transport/engine/HistoryTransport.hh"
#include "transport/engine/TransportView.hh"

namespace mcdose
{
//! Kernel/thread arguments (trivially copyable: passed by value to kernels).
template<class Real, class Engine, class Policy, class Source>
struct TransportArgs
{
    TransportView<Real> physics;
    Source source;                   //!< `Particle<Real> operator()(Engine&) const`, local frame
    typename Engine::View rng;
    DoseTallyView<Policy> tally;
    HistoryQueueView queue;
    Span<EnergyBalance> balances;    //!< one per worker
};

template<class Real, class Engine, class Policy, class Source>
MCDOSE_FUNCTION void transport_worker(TransportArgs<Real, Engine, Policy, Source> const& args,
                                      size_type worker)
{
    Engine rng(args.rng, worker);
    EnergyBalance balance = args.balances[worker];
    HistoryTransport<Real, Engine, Policy> transport(args.physics, args.tally, rng, balance);
    std::uint64_t first = 0, last = 0;
    while (args.queue.grab(first, last))
    {
        for (std::uint64_t h = first; h < last; ++h)
        {
            rng.begin_history(h);
            transport(args.source(rng));
        }
    }
    args.balances[worker] = balance;
}
}  // namespace mcdose
