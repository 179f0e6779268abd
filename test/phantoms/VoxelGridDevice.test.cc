//! The device copy of a voxel grid answers point lookups like the host.
#include "VoxelGridDevice.test.hh"

#include <cmath>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "phantoms/PhantomBuilder.hh"

namespace mcdose::test
{
TEST(VoxelGridDeviceTest, LookupsMatchHost)
{
    MCDOSE_SKIP_IF_NO_GPU();
    // Slab phantom with a rotated-free grid and a sphere: non-trivial materials and densities.
    ShapePhantomInput in;
    in.dims = Int3{{17, 13, 11}};
    in.spacing_cm = Real3{{0.3, 0.4, 0.5}};
    in.background = {"water", 1.0};
    ShapeInput sphere;
    sphere.kind = ShapeKind::sphere;
    sphere.fill = {"bone_cortical_icrp", 1.85};
    sphere.radius_cm = 1.2;
    in.shapes.push_back(sphere);
    Phantom const phantom = build_shape_phantom(in, {});
    GridGeometry const& g = phantom.grid.geometry();

    std::vector<Real3> points;
    for (int n = 0; n < 5000; ++n)
    {
        // Deterministic scatter covering the grid and beyond it.
        double const t = 0.6180339887 * n;
        points.push_back(Real3{
            {3.5 * std::sin(1.3 * t), 3.5 * std::cos(0.7 * t), 3.5 * std::sin(0.37 * t + 1)}});
    }
    auto const device = lookup_on_device(phantom.grid.device_view(), points);
    ASSERT_EQ(points.size(), device.size());
    VoxelGridView const host = phantom.grid.host_view();
    int inside = 0;
    for (std::size_t n = 0; n < points.size(); ++n)
    {
        size_type const v = g.find_voxel(points[n]);
        ASSERT_EQ(v, device[n].voxel) << "point " << n;
        if (v == outside_grid)
            continue;
        ++inside;
        EXPECT_EQ(host.material[v], device[n].material);
        EXPECT_DOUBLE_EQ(host.voxel_mass_g(v), device[n].mass_g);
    }
    EXPECT_GT(inside, 100);
    // A second call reuses the uploaded copy.
    EXPECT_EQ(phantom.grid.device_view().material.data(),
              phantom.grid.device_view().material.data());
    // Freed, the copy is uploaded again by the next view.
    phantom.grid.free_device_copy();
    auto const again = lookup_on_device(phantom.grid.device_view(), points);
    ASSERT_EQ(points.size(), again.size());
    for (std::size_t n = 0; n < points.size(); ++n)
    {
        ASSERT_EQ(device[n].voxel, again[n].voxel) << "point " << n;
        EXPECT_EQ(device[n].material, again[n].material) << "point " << n;
        EXPECT_EQ(device[n].mass_g, again[n].mass_g) << "point " << n;
    }
}
} // namespace mcdose::test
