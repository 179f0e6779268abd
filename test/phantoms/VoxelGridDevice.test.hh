//! \file test/phantoms/VoxelGridDevice.test.hh
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "phantoms/VoxelGrid.hh"

namespace mcdose::test
{
//! What a kernel finds at a point: voxel, material and mass.
struct VoxelLookup
{
    size_type voxel{0};
    int material{-1};
    double mass_g{0};
};

#if MCDOSE_USE_CUDA
//! Look up each point in `device_view` (from VoxelGridParams::device_view()) on the device.
std::vector<VoxelLookup> lookup_on_device(VoxelGridView const& device_view,
                                          std::vector<Real3> const& points_cm);
#else
inline std::vector<VoxelLookup> lookup_on_device(VoxelGridView const&, std::vector<Real3> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::test
