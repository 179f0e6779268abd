//! Shape phantoms: voxel-centre assignment, override order, default origin, densities.
#include <cmath>

#include <gtest/gtest.h>

#include "io/InputError.hh"
#include "phantoms/PhantomBuilder.hh"

namespace mcdose
{
namespace
{
ShapePhantomInput cube(int n, double spacing)
{
    ShapePhantomInput in;
    in.dims = Int3{{n, n, n}};
    in.spacing_cm = Real3{{spacing, spacing, spacing}};
    in.origin_cm = Real3{{0.5 * spacing, 0.5 * spacing, 0.5 * spacing}}; // corner at 0
    in.background = {"water", 1.0};
    return in;
}

ShapeInput slab(double from, double to, char const* material, double rho)
{
    ShapeInput s;
    s.kind = ShapeKind::slab;
    s.axis = 2;
    s.from_cm = from;
    s.to_cm = to;
    s.fill = {material, rho};
    return s;
}

std::string material_at(Phantom const& p, Int3 ijk)
{
    return p.material_names[p.grid.material()[p.grid.geometry().linear_index(ijk)]];
}
} // namespace

TEST(ShapePhantomTest, SlabsAssignByVoxelCentre)
{
    auto in = cube(4, 0.5); // z centres at 0.25, 0.75, 1.25, 1.75
    in.shapes.push_back(slab(0.5, 1.0, "bone_cortical_icrp", 1.85)); // holds centre 0.75
    in.shapes.push_back(slab(1.3, 1.9, "lung_icrp", 0.26));          // holds 1.75 only (1.25 < 1.3)
    in.shapes.push_back(slab(0.0, 0.25, "air", 0.0012)); // holds 0.0..0.25: not centre 0.25
    std::vector<std::string> warnings;
    Phantom const p = build_shape_phantom(in, {}, &warnings);
    ASSERT_EQ(4u, p.material_names.size());
    EXPECT_EQ("water", material_at(p, Int3{{1, 2, 0}}));
    EXPECT_EQ("bone_cortical_icrp", material_at(p, Int3{{0, 0, 1}}));
    EXPECT_EQ("water", material_at(p, Int3{{3, 3, 2}}));
    EXPECT_EQ("lung_icrp", material_at(p, Int3{{2, 1, 3}}));
    EXPECT_FLOAT_EQ(0.26f, p.grid.density_g_cm3()[p.grid.geometry().linear_index(Int3{{2, 1, 3}})]);
    // The air slab [0, 0.25) is open at the top, so it holds no voxel centre: warned.
    ASSERT_EQ(1u, warnings.size());
    EXPECT_NE(std::string::npos, warnings[0].find("contains no voxel centre")) << warnings[0];
}

TEST(ShapePhantomTest, LaterShapesOverrideEarlierOnes)
{
    auto in = cube(6, 1.0);
    ShapeInput box;
    box.kind = ShapeKind::box;
    box.lower_cm = Real3{{0, 0, 0}};
    box.upper_cm = Real3{{3, 3, 3}};
    box.fill = {"bone_cortical_icrp", 1.85};
    in.shapes.push_back(box);
    ShapeInput sphere;
    sphere.kind = ShapeKind::sphere;
    sphere.centre_cm = Real3{{0.5, 0.5, 0.5}};
    sphere.radius_cm = 0.1;
    sphere.fill = {"air", 0.0012};
    in.shapes.push_back(sphere);
    Phantom const p = build_shape_phantom(in, {});
    EXPECT_EQ("air", material_at(p, Int3{{0, 0, 0}}));
    EXPECT_EQ("bone_cortical_icrp", material_at(p, Int3{{2, 2, 2}}));
    EXPECT_EQ("water", material_at(p, Int3{{3, 2, 2}})); // box is open at x = 3
}

TEST(ShapePhantomTest, SphereAndCylinderCountLatticePoints)
{
    // Centre a sphere of radius R voxels on a voxel centre: it must hold exactly
    // the integer lattice points with i^2 + j^2 + k^2 <= R^2 (counted here with
    // integer arithmetic, independently of the builder).
    int const n = 21;
    int const r = 6;
    auto in = cube(n, 0.2);
    ShapeInput sphere;
    sphere.kind = ShapeKind::sphere;
    sphere.centre_cm = Real3{{0.2 * 10.5, 0.2 * 10.5, 0.2 * 10.5}}; // centre of voxel 10
    sphere.radius_cm = 0.2 * r;
    sphere.fill = {"bone_cortical_icrp", 1.85};
    in.shapes.push_back(sphere);
    Phantom const p = build_shape_phantom(in, {});
    size_type expected = 0;
    for (int i = -r; i <= r; ++i)
        for (int j = -r; j <= r; ++j)
            for (int k = -r; k <= r; ++k)
                expected += (i * i + j * j + k * k <= r * r) ? 1 : 0;
    auto const totals = material_totals(p);
    EXPECT_EQ(expected, totals[1].voxels);

    // Cylinder along x, radius 3 voxels, length 5 voxels (centres within +-2.5).
    auto in2 = cube(n, 0.2);
    ShapeInput cyl;
    cyl.kind = ShapeKind::cylinder;
    cyl.axis = 0;
    cyl.centre_cm = sphere.centre_cm;
    cyl.radius_cm = 0.2 * 3;
    cyl.length_cm = 0.2 * 5;
    cyl.fill = {"lung_icrp", 0.26};
    in2.shapes.push_back(cyl);
    Phantom const q = build_shape_phantom(in2, {});
    size_type disc = 0;
    for (int j = -3; j <= 3; ++j)
        for (int k = -3; k <= 3; ++k)
            disc += (j * j + k * k <= 9) ? 1 : 0;
    EXPECT_EQ(5 * disc, material_totals(q)[1].voxels);
}

TEST(ShapePhantomTest, DefaultOriginCentresTheGrid)
{
    ShapePhantomInput in;
    in.dims = Int3{{4, 5, 6}};
    in.spacing_cm = Real3{{1, 2, 0.5}};
    in.background = {"water", 1.0};
    Phantom const p = build_shape_phantom(in, {});
    GridGeometry const& g = p.grid.geometry();
    EXPECT_DOUBLE_EQ(-1.5, g.origin_cm[0]);
    EXPECT_DOUBLE_EQ(-4.0, g.origin_cm[1]);
    EXPECT_DOUBLE_EQ(-1.25, g.origin_cm[2]);
    EXPECT_EQ(outside_grid, g.find_voxel(Real3{{2.0, 0, 0}}));
    EXPECT_NE(outside_grid, g.find_voxel(Real3{{1.99, 4.99, 1.49}}));
}

TEST(ShapePhantomTest, NominalDensitiesComeFromTheLookup)
{
    auto in = cube(2, 1.0);
    in.background = {"water", std::nullopt};
    in.shapes.push_back(slab(0, 1, "bone_cortical_icrp", 1.0));
    in.shapes.back().fill.density_g_cm3.reset();
    NominalDensityFn const lookup = [](std::string const& name)
    { return name == "water" ? 1.0 : 1.85; };
    Phantom const p = build_shape_phantom(in, lookup);
    EXPECT_FLOAT_EQ(1.85f, p.grid.density_g_cm3()[0]);
    EXPECT_FLOAT_EQ(1.0f, p.grid.density_g_cm3()[7]);
    // Without a lookup a missing density is an input error naming the fix.
    try
    {
        build_shape_phantom(in, {});
        FAIL() << "expected an error";
    }
    catch (InputError const& e)
    {
        EXPECT_NE(std::string::npos, std::string(e.what()).find("density_g_cm3")) << e.what();
    }
}
} // namespace mcdose
