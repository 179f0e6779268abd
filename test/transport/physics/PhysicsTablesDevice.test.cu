//! \file test/transport/physics/PhysicsTablesDevice.test.cu
#include "PhysicsTablesDevice.test.hh"

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"

namespace mcdose::test
{
namespace
{
MCDOSE_KERNEL void interpolate_kernel(PhysicsTableView view, std::uint32_t material,
                                      std::uint32_t quantity, Span<double const> energies,
                                      Span<double> out)
{
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < energies.size())
        out[i] = interpolate(view, material, quantity, energies[i]);
}
} // namespace

std::vector<double> device_interpolate(PhysicsTableView const& device_view, std::uint32_t material,
                                       std::uint32_t quantity, std::vector<double> const& energies)
{
    DeviceBuffer<double> e(energies);
    DeviceBuffer<double> out(energies.size());
    unsigned const threads = 128;
    unsigned const blocks = (energies.size() + threads - 1) / threads;
    interpolate_kernel<<<blocks, threads>>>(device_view, material, quantity, e.device_span(),
                                            out.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    return out.to_host();
}
} // namespace mcdose::test
