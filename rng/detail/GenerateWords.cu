//! \file rng/detail/GenerateWords.cu
//! Launches draw_interleaved for each engine (known-answer tests, dump).
#include "core/DeviceCall.hh"
#include "rng/GenerateWords.hh"

namespace mcdose
{
namespace
{
template <class Engine>
MCDOSE_KERNEL void draw_interleaved_kernel(typename Engine::View view, size_type num_threads,
                                           size_type count, Span<std::uint32_t> out)
{
    auto const j = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < num_threads)
        draw_interleaved<Engine>(view, j, num_threads, count, out);
}
} // namespace

template <class Engine>
void draw_interleaved_device(typename Engine::View const& view, size_type num_threads,
                             size_type count, Span<std::uint32_t> out)
{
    unsigned const threads = 128;
    unsigned const blocks = static_cast<unsigned>((num_threads + threads - 1) / threads);
    draw_interleaved_kernel<Engine><<<blocks, threads>>>(view, num_threads, count, out);
    MCDOSE_CUDA_CHECK_LAUNCH();
}

#define MCDOSE_INSTANTIATE_DRAW(ENGINE)                                                            \
    template void draw_interleaved_device<ENGINE>(ENGINE::View const&, size_type, size_type,       \
                                                  Span<std::uint32_t>);
MCDOSE_INSTANTIATE_DRAW(HybridTausEngine)
MCDOSE_INSTANTIATE_DRAW(LaggedFibonacciEngine)
MCDOSE_INSTANTIATE_DRAW(PhiloxEngine)
MCDOSE_INSTANTIATE_DRAW(LcgEngine)
MCDOSE_INSTANTIATE_DRAW(Ran2Engine)
#undef MCDOSE_INSTANTIATE_DRAW
} // namespace mcdose
