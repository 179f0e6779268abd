//! \file rng/LaggedFibonacci.cu
//! Refill kernel: one thread per consumer thread, the same code as the host loop.
#include "core/DeviceCall.hh"
#include "rng/LaggedFibonacci.hh"

namespace mcdose
{
namespace
{
MCDOSE_KERNEL void lfg_generate_round_kernel(LaggedFibonacciView view)
{
    auto const j = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < view.num_threads)
        lfg_generate_round(view, j);
}
} // namespace

void lfg_generate_round_device(LaggedFibonacciView const& view)
{
    unsigned const threads = 256;
    unsigned const blocks = (view.num_threads + threads - 1) / threads;
    lfg_generate_round_kernel<<<blocks, threads>>>(view);
    MCDOSE_CUDA_CHECK_LAUNCH();
}
} // namespace mcdose
