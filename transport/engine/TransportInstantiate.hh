//! \file transport/engine/TransportInstantiate.hh
//! The transport combinations built into mcdose: precision x engine x tally
//! policy, with the product source. Used by StudyRunner.cc (host dispatch) and
//! by the .cu files that instantiate the kernels (one per precision, so the
//! two compile in parallel).
#pragma once

#include "rng/Rng.hh"
#include "sources/SourceView.hh"
#include "tally/AtomicPolicies.hh"
#include "transport/engine/TransportThread.hh"

namespace mcdose
{
template <class Real, class Engine, class Policy>
using ProductTransportArgs = TransportArgs<Real, Engine, Policy, SourceMixView<Real>>;
} // namespace mcdose

//! Apply MACRO(Real, Engine, Policy) to every engine and policy for one precision.
#define MCDOSE_FOR_EACH_TRANSPORT_POLICY(MACRO, REAL, ENGINE)                                      \
    MACRO(REAL, ENGINE, FaPolicy)                                                                  \
    MACRO(REAL, ENGINE, CasPolicy)                                                                 \
    MACRO(REAL, ENGINE, WagPolicy)                                                                 \
    MACRO(REAL, ENGINE, KasPolicy)                                                                 \
    MACRO(REAL, ENGINE, HbPolicy)                                                                  \
    MACRO(REAL, ENGINE, WibPolicy)                                                                 \
    MACRO(REAL, ENGINE, FxPolicy)
#define MCDOSE_FOR_EACH_TRANSPORT_COMBINATION(MACRO, REAL)                                         \
    MCDOSE_FOR_EACH_TRANSPORT_POLICY(MACRO, REAL, HybridTausEngine)                                \
    MCDOSE_FOR_EACH_TRANSPORT_POLICY(MACRO, REAL, LaggedFibonacciEngine)                           \
    MCDOSE_FOR_EACH_TRANSPORT_POLICY(MACRO, REAL, PhiloxEngine)

//! Explicit instantiation of the kernel launch for one combination (used by the
//! TransportKernel{Float,Double}.cu files, which also include TransportKernel.hh).
#define MCDOSE_INSTANTIATE_TRANSPORT(REAL, ENGINE, POLICY)                                         \
    template PersistentGrid persistent_transport_grid<ProductTransportArgs<REAL, ENGINE, POLICY>>( \
        int);                                                                                      \
    template void launch_transport_kernel<ProductTransportArgs<REAL, ENGINE, POLICY>>(             \
        ProductTransportArgs<REAL, ENGINE, POLICY> const&, PersistentGrid const&);
