//! \file transport/engine/TransportKernelFloat.cu
//! Persistent transport kernels in float precision, for every engine and tally.
#include "transport/engine/TransportInstantiate.hh"
#include "transport/engine/TransportKernel.hh"

namespace mcdose
{
#define MCDOSE_INSTANTIATE_TRANSPORT(REAL, ENGINE, POLICY)                                  \
    template PersistentGrid persistent_transport_grid<ProductTransportArgs<REAL, ENGINE, POLICY>>( \
        int);                                                                               \
    template void launch_transport_kernel<ProductTransportArgs<REAL, ENGINE, POLICY>>(      \
        ProductTransportArgs<REAL, ENGINE, POLICY> const&, PersistentGrid const&);
MCDOSE_FOR_EACH_TRANSPORT_COMBINATION(MCDOSE_INSTANTIATE_TRANSPORT, float)
}  // namespace mcdose
