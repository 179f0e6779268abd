//! \file transport/engine/TransportKernel.hh
//! Definitions of the persistent transport kernel and its launch, for .cu
//! files that instantiate them (TransportKernelInstance.cu). The kernel is
//! `while (grab a chunk of histories) transport(history)`: the same
//! transport_worker the CPU backend runs, only the worker index differs.
//! For the CAS-loop tally methods each block keeps a cache of the hot voxels
//! in shared memory (tally/BlockTallyCache.hh) and flushes it at the end.
#pragma once

#include <algorithm>

#include "core/DeviceCall.hh"
#include "core/Macros.hh"
#include "transport/engine/TransportLaunch.hh"

#if MCDOSE_CUDA_COMPILER
namespace mcdose
{
//! Dynamic shared memory of the kernel for `Args`: the block tally cache.
template <class Args>
constexpr size_type transport_kernel_shared_bytes()
{
    using Policy = typename Args::policy_type;
    if constexpr (Policy::block_cached)
        return BlockTallyCache<Policy>::storage_bytes(BlockTallyCache<Policy>::default_slots);
    else
        return 0;
}

template <class Args>
MCDOSE_KERNEL void transport_kernel(MCDOSE_GRID_CONSTANT Args const args)
{
    size_type const worker = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    using Policy = typename Args::policy_type;
    if constexpr (Policy::block_cached)
    {
        extern __shared__ __align__(16) unsigned char block_tally_storage[];
        BlockTallyCache<Policy> const cache(
            block_tally_storage, BlockTallyCache<Policy>::default_slots, args.tally.words());
        cache.clear(threadIdx.x, blockDim.x);
        __syncthreads();
        DoseTallyView<Policy> const tally = args.tally.with_cache(cache);
        transport_worker(args, tally, worker);
        __syncthreads(); // every warp of the block has left its loop
        cache.flush(args.tally, threadIdx.x, blockDim.x);
    }
    else
    {
        transport_worker(args, args.tally, worker);
    }
}

//! `unit_threads` (a multiple of 32) is the unit of the block size: the
//! block is as many units as fit on an SM (occupancy API), at most the device's limit.
template <class Args>
PersistentGrid persistent_transport_grid(int unit_threads)
{
    PersistentGrid g;
    int device = 0;
    MCDOSE_VALIDATE(unit_threads > 0 && unit_threads % 32 == 0,
                    << unit_threads
                    << " threads per block: the transport kernel's warp votes need whole "
                       "warps; use a multiple of 32");
    MCDOSE_CUDA_CALL(cudaGetDevice(&device));
    MCDOSE_CUDA_CALL(
        cudaDeviceGetAttribute(&g.multiprocessors, cudaDevAttrMultiProcessorCount, device));
    MCDOSE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &g.blocks_per_sm, transport_kernel<Args>, unit_threads,
        transport_kernel_shared_bytes<Args>()));
    MCDOSE_VALIDATE(g.blocks_per_sm > 0, << "the transport kernel cannot run with " << unit_threads
                                         << " threads per block on this GPU; use fewer");
    // The warps of a block vote together on the step kind (StepKindVote), so
    // a block holds as many of them as an SM runs at once (one block per SM),
    // up to the device's limit on threads per block.
    int max_threads = 0;
    MCDOSE_CUDA_CALL(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device));
    int const units = std::min(g.blocks_per_sm, max_threads / unit_threads);
    g.threads_per_block = unit_threads * units;
    MCDOSE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &g.blocks_per_sm, transport_kernel<Args>, g.threads_per_block,
        transport_kernel_shared_bytes<Args>()));
    MCDOSE_VALIDATE(g.blocks_per_sm > 0, << "the transport kernel cannot run with "
                                         << g.threads_per_block << " threads per block");
    g.blocks = g.blocks_per_sm * g.multiprocessors;
    return g;
}

template <class Args>
void launch_transport_kernel(Args const& args, PersistentGrid const& grid)
{
    transport_kernel<Args>
        <<<grid.blocks, grid.threads_per_block, transport_kernel_shared_bytes<Args>()>>>(args);
    MCDOSE_CUDA_CHECK_LAUNCH();
    MCDOSE_CUDA_CALL(cudaDeviceSynchronize());
}
} // namespace mcdose
#endif
