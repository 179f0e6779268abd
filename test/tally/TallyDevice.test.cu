//! \file test/tally/TallyDevice.test.cu
#include "TallyDevice.test.hh"

#include "core/DeviceCall.hh"
#include "core/DeviceMemory.hh"
#include "tally/DoseTally.hh"

namespace mcdose::test
{
namespace
{
template<class Policy>
MCDOSE_KERNEL void pattern_kernel(DoseTallyView<Policy> tally, DepositPattern p)
{
    unsigned const t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 32 >= p.active_lanes)
        return;
    for (int j = 0; j < p.per_thread; ++j)
    {
        if ((t + j) % 3 == 0)
            continue;  // lanes of one warp take different branches
        tally.deposit((t / 2 + 7u * j) % p.bins, (1 + t % 13) / 256.0);
    }
}
}  // namespace

std::vector<double> pattern_on_device(TallyMethod method, DepositPattern const& p)
{
    double const max_total = double(p.blocks) * p.threads_per_block * p.per_thread * 14 / 256;
    DoseTally tally({method, p.bins, max_total, Backend::gpu});
    dispatch_tally_method(method, [&](auto policy) {
        pattern_kernel<<<p.blocks, p.threads_per_block>>>(tally.view<decltype(policy)>(), p);
        MCDOSE_CUDA_CHECK_LAUNCH();
    });
    device_synchronize();
    return tally.batch_energy_MeV();
}
}  // namespace mcdose::test
