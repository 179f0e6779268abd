//! \file test/phantoms/VoxelGridDevice.test.cu
#include "VoxelGridDevice.test.hh"

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "core/Macros.hh"

namespace mcdose::test
{
namespace
{
MCDOSE_KERNEL void lookup_kernel(VoxelGridView view, Span<Real3 const> points,
                                 Span<VoxelLookup> out)
{
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= points.size())
        return;
    VoxelLookup r;
    r.voxel = view.geometry.find_voxel(points[i]);
    if (r.voxel != outside_grid)
    {
        r.material = view.material[r.voxel];
        r.mass_g = view.voxel_mass_g(r.voxel);
    }
    out[i] = r;
}
} // namespace

std::vector<VoxelLookup> lookup_on_device(VoxelGridView const& device_view,
                                          std::vector<Real3> const& points_cm)
{
    DeviceBuffer<Real3> points(points_cm);
    DeviceBuffer<VoxelLookup> out(points_cm.size());
    unsigned const threads = 128;
    unsigned const blocks = (points_cm.size() + threads - 1) / threads;
    lookup_kernel<<<blocks, threads>>>(device_view, points.device_span(), out.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return out.to_host();
}
} // namespace mcdose::test
