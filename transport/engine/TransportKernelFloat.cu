//! \file transport/engine/TransportKernelFloat.cu
//! Persistent transport kernels in float precision, for every engine and tally.
#include "transport/engine/TransportInstantiate.hh"
#include "transport/engine/TransportKernel.hh"

namespace mcdose
{
MCDOSE_FOR_EACH_TRANSPORT_COMBINATION(MCDOSE_INSTANTIATE_TRANSPORT, float)
} // namespace mcdose
