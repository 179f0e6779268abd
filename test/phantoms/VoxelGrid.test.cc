//! Grid geometry index helpers and voxel-grid params (host).
#include "phantoms/VoxelGrid.hh"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
GridGeometry small_grid()
{
    return make_axis_aligned_geometry(Int3{{4, 3, 2}}, Real3{{0.5, 1.0, 2.0}},
                                      Real3{{-1.0, 0.0, 10.0}});
}

//! A rotation by 90 degrees about z: index axis i points along +y, j along -x.
GridGeometry rotated_grid()
{
    GridGeometry g = small_grid();
    double const d[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    std::copy(d, d + 9, g.direction);
    return g;
}
} // namespace

TEST(GridGeometryTest, LinearIndexIsIFastestAndRoundTrips)
{
    GridGeometry const g = small_grid();
    EXPECT_EQ(24u, g.num_voxels());
    EXPECT_EQ(0u, g.linear_index(Int3{{0, 0, 0}}));
    EXPECT_EQ(1u, g.linear_index(Int3{{1, 0, 0}}));
    EXPECT_EQ(4u, g.linear_index(Int3{{0, 1, 0}}));
    EXPECT_EQ(12u, g.linear_index(Int3{{0, 0, 1}}));
    for (size_type v = 0; v < g.num_voxels(); ++v)
        EXPECT_EQ(v, g.linear_index(g.ijk(v)));
    EXPECT_DOUBLE_EQ(1.0, g.voxel_volume_cm3());
}

TEST(GridGeometryTest, OriginIsTheCentreOfTheFirstVoxel)
{
    GridGeometry const g = small_grid();
    Real3 const c0 = g.voxel_centre_cm(Int3{{0, 0, 0}});
    EXPECT_DOUBLE_EQ(-1.0, c0[0]);
    EXPECT_DOUBLE_EQ(0.0, c0[1]);
    EXPECT_DOUBLE_EQ(10.0, c0[2]);
    Real3 const c = g.voxel_centre_cm(Int3{{3, 2, 1}});
    EXPECT_DOUBLE_EQ(-1.0 + 3 * 0.5, c[0]);
    EXPECT_DOUBLE_EQ(2.0, c[1]);
    EXPECT_DOUBLE_EQ(12.0, c[2]);
    // The grid's lower corner is half a voxel below the origin: local (0,0,0).
    Real3 const corner = g.to_local(Real3{{-1.25, -0.5, 9.0}});
    for (int a = 0; a < 3; ++a)
        EXPECT_NEAR(0.0, corner[a], 1e-12);
}

TEST(GridGeometryTest, FindVoxelIsHalfOpen)
{
    GridGeometry const g = small_grid();
    // Lower corner belongs to voxel 0; the upper faces are outside.
    EXPECT_EQ(0u, g.find_voxel(Real3{{-1.25, -0.5, 9.0}}));
    EXPECT_EQ(outside_grid, g.find_voxel(Real3{{-1.25 + 4 * 0.5, 0.0, 10.0}}));
    EXPECT_EQ(outside_grid, g.find_voxel(Real3{{-1.2500001, 0.0, 10.0}}));
    // A face between voxels 1 and 2 along x belongs to voxel 2.
    EXPECT_EQ(g.linear_index(Int3{{2, 0, 0}}), g.find_voxel(Real3{{-0.25, 0.0, 10.0}}));
    double const nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(outside_grid, g.find_voxel(Real3{{nan, 0.0, 10.0}}));
    EXPECT_EQ(outside_grid, g.find_voxel(Real3{{1e300, 0.0, 10.0}}));
    for (size_type v = 0; v < g.num_voxels(); ++v)
        EXPECT_EQ(v, g.find_voxel(g.voxel_centre_cm(g.ijk(v))));
}

TEST(GridGeometryTest, OrientationIsApplied)
{
    GridGeometry const g = rotated_grid();
    validate_geometry(g, "rotated");
    // Voxel (1,0,0) lies one x-spacing along index axis i, which points to +y.
    Real3 const c = g.voxel_centre_cm(Int3{{1, 0, 0}});
    EXPECT_NEAR(-1.0, c[0], 1e-12);
    EXPECT_NEAR(0.5, c[1], 1e-12);
    EXPECT_NEAR(10.0, c[2], 1e-12);
    for (size_type v = 0; v < g.num_voxels(); ++v)
        EXPECT_EQ(v, g.find_voxel(g.voxel_centre_cm(g.ijk(v))));
    Real3 const p{{0.3, -0.7, 11.1}};
    Real3 const back = g.to_physical(g.to_local(p));
    for (int a = 0; a < 3; ++a)
        EXPECT_NEAR(p[a], back[a], 1e-12);
    Real3 const d = g.direction_to_local(Real3{{0, 1, 0}});
    EXPECT_NEAR(1.0, d[0], 1e-12);
    Real3 const e = g.direction_to_physical(d);
    EXPECT_NEAR(1.0, e[1], 1e-12);
}

TEST(GridGeometryTest, ValidationRejectsBadGeometry)
{
    GridGeometry g = small_grid();
    g.spacing_cm[1] = 0;
    EXPECT_THROW(validate_geometry(g, "test"), RuntimeError);
    g = small_grid();
    g.dims[2] = 0;
    EXPECT_THROW(validate_geometry(g, "test"), RuntimeError);
    g = small_grid();
    g.direction[0] = 2; // not orthonormal
    EXPECT_THROW(validate_geometry(g, "test"), RuntimeError);
}

TEST(VoxelGridParamsTest, HoldsDataAndMasses)
{
    GridGeometry const g = small_grid();
    std::vector<MaterialIndex> mat(g.num_voxels(), 0);
    std::vector<float> rho(g.num_voxels(), 1.0f);
    mat[5] = 1;
    rho[5] = 1.85f;
    VoxelGridParams params(g, mat, rho, 2);
    auto const masses = params.voxel_masses_g();
    EXPECT_DOUBLE_EQ(1.0, masses[0]);
    EXPECT_NEAR(1.85, masses[5], 1e-6);
    VoxelGridView const view = params.host_view();
    EXPECT_EQ(24u, view.material.size());
    EXPECT_EQ(1, view.material[5]);
    EXPECT_NEAR(1.85, view.voxel_mass_g(5), 1e-6);

    Phantom const phantom{{"water", "bone_cortical_icrp"}, std::move(params)};
    auto const totals = material_totals(phantom);
    ASSERT_EQ(2u, totals.size());
    EXPECT_EQ(23u, totals[0].voxels);
    EXPECT_DOUBLE_EQ(23.0, totals[0].volume_cm3);
    EXPECT_DOUBLE_EQ(23.0, totals[0].mass_g);
    EXPECT_EQ(1u, totals[1].voxels);
    EXPECT_FLOAT_EQ(1.85f, totals[1].max_density_g_cm3);
}

TEST(VoxelGridParamsTest, RejectsInconsistentData)
{
    GridGeometry const g = small_grid();
    std::vector<MaterialIndex> mat(g.num_voxels(), 0);
    std::vector<float> rho(g.num_voxels(), 1.0f);
    EXPECT_THROW(VoxelGridParams(g, std::vector<MaterialIndex>(3, 0), rho, 1), RuntimeError);
    EXPECT_THROW(VoxelGridParams(g, mat, std::vector<float>(3, 1.0f), 1), RuntimeError);
    auto bad_mat = mat;
    bad_mat[7] = 2;
    EXPECT_THROW(VoxelGridParams(g, bad_mat, rho, 2), RuntimeError);
    auto bad_rho = rho;
    bad_rho[7] = -1.0f;
    EXPECT_THROW(VoxelGridParams(g, mat, bad_rho, 1), RuntimeError);
    bad_rho[7] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(VoxelGridParams(g, mat, bad_rho, 1), RuntimeError);
}

TEST(VoxelGridParamsTest, NamesTheFirstBadVoxelOfALargeGrid)
{
    // Checked on all cores in blocks: the message names the first bad voxel of the grid,
    // not the first one some thread found (bad voxels in three blocks, the last first).
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{64, 64, 64}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
    std::vector<MaterialIndex> mat(g.num_voxels(), 0);
    std::vector<float> rho(g.num_voxels(), 1.0f);
    rho[200000] = -1.0f;
    mat[150000] = 5;
    rho[70001] = std::numeric_limits<float>::quiet_NaN();
    try
    {
        VoxelGridParams(g, mat, rho, 1);
        FAIL() << "bad voxels accepted";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("voxel 70001 has density"), std::string::npos)
            << e.what();
    }
}
} // namespace mcdose
