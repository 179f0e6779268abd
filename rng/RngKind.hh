//! \file rng/RngKind.hh
//! Run-time selection of a generator by name, and a visit-style dispatcher
//! that calls a functor with the concrete engine type (no virtual calls in kernels).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Types.hh"
#include "rng/HybridTaus.hh"
#include "rng/LaggedFibonacci.hh"
#include "rng/Lcg.hh"
#include "rng/PerThreadRngStore.hh"
#include "rng/Philox.hh"
#include "rng/Ran2.hh"

namespace mcdose
{
enum class RngKind
{
    hybrid_taus,
    lagged_fibonacci,
    philox,
    lcg,  //!< baseline for studies only
    ran2, //!< baseline for studies only
};

//! "hybrid-taus", "lagged-fibonacci", "philox", "lcg", "ran2" (throws on anything else).
RngKind to_rng_kind(std::string const& name);
char const* to_cstring(RngKind kind);
//! All kinds, production generators first.
std::vector<RngKind> const& all_rng_kinds();

//! Empty tag carrying an engine type through `visit_rng`.
template <class E>
struct EngineTag
{
    using type = E;
};

//! Call f(EngineTag<E>{}) with the engine type of `kind`; all branches must
//! return the same type. Usage:
//!     visit_rng(kind, [&](auto tag) { using Engine = typename decltype(tag)::type; ... });
template <class F>
decltype(auto) visit_rng(RngKind kind, F&& f)
{
    switch (kind)
    {
    case RngKind::hybrid_taus:
        return f(EngineTag<HybridTausEngine>{});
    case RngKind::lagged_fibonacci:
        return f(EngineTag<LaggedFibonacciEngine>{});
    case RngKind::philox:
        return f(EngineTag<PhiloxEngine>{});
    case RngKind::lcg:
        return f(EngineTag<LcgEngine>{});
    case RngKind::ran2:
        break;
    }
    return f(EngineTag<Ran2Engine>{});
}

//! Host owner type (params + state) of an engine.
template <class E>
struct RngStoreOf
{
    using type = PerThreadRngStore<E>;
};
template <>
struct RngStoreOf<LaggedFibonacciEngine>
{
    using type = LaggedFibonacciRngStore;
};
template <class E>
using RngStore = typename RngStoreOf<E>::type;

//! Generator-independent options (what a study JSON / the CLI sets).
struct RngOptions
{
    RngKind kind{RngKind::philox};
    std::uint64_t seed{0};
    //! Philox stream id / first stream (thread) of per-thread engines.
    std::uint32_t stream{0};
    //! lagged-fibonacci: words per thread per round (0 = largest race-free).
    size_type lfg_numbers_per_round{0};
};

//! Per-engine parameters from the common options.
inline HybridTausRngParams make_params(EngineTag<HybridTausEngine>, RngOptions const& o)
{
    return {o.seed, o.stream};
}
inline PhiloxRngParams make_params(EngineTag<PhiloxEngine>, RngOptions const& o)
{
    return {o.seed, o.stream, 0};
}
inline LcgRngParams make_params(EngineTag<LcgEngine>, RngOptions const& o)
{
    return {o.seed, o.stream};
}
inline Ran2RngParams make_params(EngineTag<Ran2Engine>, RngOptions const& o)
{
    return {o.seed, o.stream};
}
inline LaggedFibonacciRngParams make_params(EngineTag<LaggedFibonacciEngine>, RngOptions const& o)
{
    LaggedFibonacciRngParams p;
    p.seed = o.seed;
    p.numbers_per_round = o.lfg_numbers_per_round;
    return p;
}

//! Build the host owner of engine E for `num_threads` threads in `memspace`.
template <class E>
RngStore<E> make_rng_store(RngOptions const& options, size_type num_threads, MemSpace memspace)
{
    return RngStore<E>(make_params(EngineTag<E>{}, options), num_threads, memspace);
}
} // namespace mcdose
