//! \file rng/quality/OrnsteinUhlenbeck.cu
#include "core/DeviceCall.hh"
#include "rng/quality/OrnsteinUhlenbeckDevice.hh"

namespace mcdose
{
namespace
{
template <class Engine>
MCDOSE_KERNEL void ou_kernel(OuSetup s, typename Engine::View view, size_type n,
                             std::uint32_t begin, std::uint32_t end, OuStateView state)
{
    auto const j = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < n)
    {
        Engine rng(view, j);
        ou_advance(s, rng, j, n, begin, end, state);
    }
}
} // namespace

template <class Engine>
void ou_advance_device(OuSetup const& s, typename Engine::View const& view, size_type n,
                       std::uint32_t begin, std::uint32_t end, OuStateView const& state)
{
    unsigned const threads = 128;
    unsigned const blocks = static_cast<unsigned>((n + threads - 1) / threads);
    ou_kernel<Engine><<<blocks, threads>>>(s, view, n, begin, end, state);
    MCDOSE_CUDA_CHECK_LAUNCH();
}

#define MCDOSE_INSTANTIATE_OU(ENGINE)                                                              \
    template void ou_advance_device<ENGINE>(OuSetup const&, ENGINE::View const&, size_type,        \
                                            std::uint32_t, std::uint32_t, OuStateView const&);
MCDOSE_INSTANTIATE_OU(HybridTausEngine)
MCDOSE_INSTANTIATE_OU(LaggedFibonacciEngine)
MCDOSE_INSTANTIATE_OU(PhiloxEngine)
MCDOSE_INSTANTIATE_OU(LcgEngine)
MCDOSE_INSTANTIATE_OU(Ran2Engine)
#undef MCDOSE_INSTANTIATE_OU
} // namespace mcdose
