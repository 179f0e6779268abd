//! \file transport/engine/TransportKernel.hh
//! Definitions of the persistent transport kernel and its launch, for .cu
//! files that instantiate them (see TransportInstantiate.cu). The kernel is
//! `while (grab a chunk of histories) transport(history)`: the same
//! transport_worker the CPU backend runs, only the worker index differs.
#pragma once

#include "core/DeviceCall.hh"
#include "core/Macros.hh"
#include "transport/engine/TransportLaunch.hh"

#if MCDOSE_CUDA_COMPILER
namespace mcdose
{
template<class Args>
MCDOSE_KERNEL void transport_kernel(Args const args)
{
    size_type const worker = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    transport_worker(args, worker);
}

template<class Args>
PersistentGrid persistent_transport_grid(int threads_per_block)
{
    PersistentGrid g;
    int device = 0;
    MCDOSE_VALIDATE(threads_per_block > 0 && threads_per_block % 32 == 0,
                    << threads_per_block
                    << " threads per block: the transport kernel's warp votes need whole "
                       "warps; use a multiple of 32");
    MCDOSE_CUDA_CALL(cudaGetDevice(&device));
    MCDOSE_CUDA_CALL(
        cudaDeviceGetAttribute(&g.multiprocessors, cudaDevAttrMultiProcessorCount, device));
    MCDOSE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &g.blocks_per_sm, transport_kernel<Args>, threads_per_block, 0));
    MCDOSE_VALIDATE(g.blocks_per_sm > 0, << "the transport kernel cannot run with "
                                         << threads_per_block
                                         << " threads per block on this GPU; use fewer");
    g.threads_per_block = threads_per_block;
    g.blocks = g.blocks_per_sm * g.multiprocessors;
    return g;
}

template<class Args>
void launch_transport_kernel(Args const& args, PersistentGrid const& grid)
{
    transport_kernel<Args><<<grid.blocks, grid.threads_per_block>>>(args);
    MCDOSE_CUDA_CHECK_LAUNCH();
    MCDOSE_CUDA_CALL(cudaDeviceSynchronize());
}
}  // namespace mcdose
#endif
