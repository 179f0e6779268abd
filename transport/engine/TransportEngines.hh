//! \file transport/engine/TransportEngines.hh
//! The generators the transport is built with (the production ones; lcg and ran2 are
//! baselines for RNG studies only): the kernels' and the typed groups' one list.
#pragma once

#include "core/Assert.hh"
#include "rng/RngKind.hh"

//! Apply MACRO(Real, Engine, Policy) to every transport generator.
#define MCDOSE_FOR_EACH_TRANSPORT_ENGINE(MACRO, REAL, POLICY)                                      \
    MACRO(REAL, HybridTausEngine, POLICY)                                                          \
    MACRO(REAL, LaggedFibonacciEngine, POLICY)                                                     \
    MACRO(REAL, PhiloxEngine, POLICY)

namespace mcdose
{
//! Whether the transport is built with generator `kind`.
inline bool is_transport_generator(RngKind kind)
{
    return kind == RngKind::hybrid_taus || kind == RngKind::lagged_fibonacci ||
           kind == RngKind::philox;
}

//! Why a generator the transport is not built with is refused, and what to use instead.
inline char const* transport_generator_advice()
{
    return "is a baseline for RNG studies only; use philox, hybrid-taus or lagged-fibonacci for "
           "transport";
}

//! Refuse a generator the transport is not built with, naming the field.
inline void require_transport_generator(RngKind kind)
{
    MCDOSE_VALIDATE(is_transport_generator(kind), << "rng.generator '" << to_cstring(kind) << "' "
                                                  << transport_generator_advice());
}

//! Call f(EngineTag<Engine>{}) for a transport generator (refuses the baselines). Not
//! visit_rng: that one would instantiate f for the baselines too.
template <class F>
decltype(auto) visit_transport_engine(RngKind kind, F&& f)
{
    switch (kind)
    {
    case RngKind::hybrid_taus:
        return f(EngineTag<HybridTausEngine>{});
    case RngKind::lagged_fibonacci:
        return f(EngineTag<LaggedFibonacciEngine>{});
    case RngKind::philox:
        return f(EngineTag<PhiloxEngine>{});
    default:
        break;
    }
    require_transport_generator(kind);
    return f(EngineTag<PhiloxEngine>{}); // not reached
}
} // namespace mcdose
