//! \file transport/engine/TransportKernelInstance.cu
//! The persistent transport kernels of one precision and tally method, for every transport
//! generator. Not compiled as it is: transport/CMakeLists.txt compiles it once per precision
//! and tally method, defining MCDOSE_TRANSPORT_REAL and MCDOSE_TRANSPORT_POLICY, so that
//! `make -j` builds the pairs in parallel and a new tally method adds translation units.
#include "sources/SourceView.hh"
#include "tally/AtomicPolicies.hh"
#include "transport/engine/TransportEngines.hh"
#include "transport/engine/TransportKernel.hh"

#if !defined(MCDOSE_TRANSPORT_REAL) || !defined(MCDOSE_TRANSPORT_POLICY)
#    error "compiled by transport/CMakeLists.txt with MCDOSE_TRANSPORT_REAL and _POLICY defined"
#endif

//! Explicit instantiation of the kernel launch for one combination.
#define MCDOSE_INSTANTIATE_TRANSPORT(REAL, ENGINE, POLICY)                                         \
    template PersistentGrid                                                                        \
    persistent_transport_grid<TransportArgs<REAL, ENGINE, POLICY, SourceMixView<REAL>>>(int);      \
    template void                                                                                  \
    launch_transport_kernel<TransportArgs<REAL, ENGINE, POLICY, SourceMixView<REAL>>>(             \
        TransportArgs<REAL, ENGINE, POLICY, SourceMixView<REAL>> const&, PersistentGrid const&);

namespace mcdose
{
MCDOSE_FOR_EACH_TRANSPORT_ENGINE(MCDOSE_INSTANTIATE_TRANSPORT, MCDOSE_TRANSPORT_REAL,
                                 MCDOSE_TRANSPORT_POLICY)
} // namespace mcdose
