//! \file test/transport/physics/PhysicsTablesDevice.test.cu
#include "PhysicsTablesDevice.test.hh"

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "transport/LogGrid.hh"

namespace mcdose::test
{
namespace
{
MCDOSE_KERNEL void lookup_kernel(LogGridView<double> grid, Span<double const> column,
                                 Span<double const> energies, Span<double> out)
{
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < energies.size())
    {
        unsigned bin = 0;
        double f = 0;
        grid.find(energies[i], bin, f);
        out[i] = lerp_table(column.data(), bin, f);
    }
}
} // namespace

std::vector<double> device_lookup(TableGrid const& grid, std::vector<double> const& column,
                                  std::vector<double> const& energies)
{
    DeviceBuffer<double> c(column);
    DeviceBuffer<double> e(energies);
    DeviceBuffer<double> out(energies.size());
    unsigned const threads = 128;
    unsigned const blocks = (energies.size() + threads - 1) / threads;
    lookup_kernel<<<blocks, threads>>>(make_log_grid<double>(grid.ln_emin, grid.delta, grid.size),
                                       c.device_span(), e.device_span(), out.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    return out.to_host();
}
} // namespace mcdose::test
