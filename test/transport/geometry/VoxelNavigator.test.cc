//! Ray-voxel traversal: path lengths sum to the chord, neighbours only, no
//! out-of-range voxel, and the awkward cases (faces, edges, corners, axis-
//! parallel rays, misses), in float and double.
#include "transport/geometry/VoxelNavigator.hh"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "../interactors/TransportTestHelpers.hh"

namespace mcdose::test
{
namespace
{
//! Result of walking one ray through the grid.
struct Walk
{
    bool hit{false};
    double entry_cm{0};
    double path_cm{0};
    int steps{0};
    std::vector<Array3<int>> voxels;
};

template <class Real>
Walk walk(VoxelGeometryView<Real> const& g, Array3<double> pos, Array3<double> dir)
{
    VoxelNavigator<Real> nav(g);
    VoxelTrackState<Real> s;
    for (int a = 0; a < 3; ++a)
    {
        s.position_cm[a] = Real(pos[a]);
        s.direction[a] = Real(dir[a]);
    }
    Walk w;
    w.entry_cm = nav.initialize(s);
    w.hit = s.inside;
    int const max_steps = g.dims[0] + g.dims[1] + g.dims[2] + 3;
    while (s.inside)
    {
        for (int a = 0; a < 3; ++a)
        {
            EXPECT_GE(s.ijk[a], 0);
            EXPECT_LT(s.ijk[a], g.dims[a]);
        }
        if (!w.voxels.empty())
        {
            // Face neighbours only: exactly one index changed by one.
            int changed = 0;
            for (int a = 0; a < 3; ++a)
                changed += std::abs(s.ijk[a] - w.voxels.back()[a]);
            EXPECT_EQ(1, changed);
        }
        w.voxels.push_back(s.ijk);
        auto const b = nav.find_next_boundary(s);
        EXPECT_GE(b.distance_cm, 0);
        w.path_cm += b.distance_cm;
        nav.cross_boundary(s, b);
        if (++w.steps > max_steps)
        {
            ADD_FAILURE() << "more steps than planes: traversal does not terminate";
            break;
        }
    }
    return w;
}

//! Chord of the ray through the box in long double (reference).
long double chord(Array3<int> dims, Array3<double> sp, Array3<double> corner, Array3<double> p,
                  Array3<double> d)
{
    long double t0 = -std::numeric_limits<long double>::infinity();
    long double t1 = std::numeric_limits<long double>::infinity();
    for (int a = 0; a < 3; ++a)
    {
        long double const lo = corner[a], hi = corner[a] + (long double)dims[a] * sp[a];
        if (d[a] == 0)
        {
            if (p[a] < lo || p[a] > hi)
                return 0;
            continue;
        }
        long double ta = (lo - p[a]) / d[a], tb = (hi - p[a]) / d[a];
        if (ta > tb)
            std::swap(ta, tb);
        t0 = std::max(t0, ta);
        t1 = std::min(t1, tb);
    }
    t0 = std::max(t0, 0.0L);
    return t1 > t0 ? t1 - t0 : 0;
}

template <class Real>
using VoxelNavigatorTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(VoxelNavigatorTest, RealTypes);

Array3<int> const dims{{7, 5, 11}};
Array3<double> const spacing{{0.5, 1.25, 0.3}};
Array3<double> const corner{{-2.0, 1.0, -1.65}};

TYPED_TEST(VoxelNavigatorTest, RandomRaysSumToChord)
{
    using Real = TypeParam;
    auto const g = make_voxel_geometry<Real>(dims, spacing, corner);
    TestEngine rng(12345);
    auto uniform = [&rng] { return generate_canonical<double>(rng); };
    double const eps = std::numeric_limits<Real>::epsilon();
    int hits = 0;
    for (int ray = 0; ray < 4000; ++ray)
    {
        // Start inside a box twice the grid size (half the rays start inside).
        Array3<double> p, d;
        for (int a = 0; a < 3; ++a)
        {
            double const lo = corner[a], len = dims[a] * spacing[a];
            p[a] = lo - 0.5 * len + 2 * len * uniform();
        }
        double const w = 2 * uniform() - 1, phi = 2 * M_PI * uniform();
        d = {{std::sqrt(1 - w * w) * std::cos(phi), std::sqrt(1 - w * w) * std::sin(phi), w}};
        auto const ref = chord(dims, spacing, corner, p, d);
        auto const result = walk(g, p, d);
        hits += result.hit;
        // Rounding bound: each step length is a difference of coordinates of
        // magnitude <= M (|start| + box) divided by a direction cosine, with
        // at most a few roundings; summed over the steps plus the entry.
        double const m = 10.0;
        double const tol = 8 * eps * m * (result.steps + 2) + 1e-12;
        if (ref > tol)
        {
            EXPECT_TRUE(result.hit) << "ray " << ray;
        }
        EXPECT_NEAR(double(ref), result.path_cm, tol)
            << "ray " << ray << ", steps " << result.steps;
    }
    EXPECT_GT(hits, 1000); // the sample exercises both entering and inside starts
}

TYPED_TEST(VoxelNavigatorTest, AxisParallelAndFaceGrazing)
{
    using Real = TypeParam;
    auto const g = make_voxel_geometry<Real>(dims, spacing, corner);
    double const len_x = dims[0] * spacing[0];
    double const eps = std::numeric_limits<Real>::epsilon();
    // Along +x on the grid's low y face and low z face (an edge of the box):
    // the closed box keeps it inside, in the j = 0, k = 0 row.
    auto w = walk(g, {{-10.0, corner[1], corner[2]}}, {{1.0, 0.0, 0.0}});
    ASSERT_TRUE(w.hit);
    EXPECT_NEAR(8.0, w.entry_cm, 16 * eps);
    EXPECT_NEAR(len_x, w.path_cm, 16 * eps * 10);
    ASSERT_EQ(size_t(dims[0]), w.voxels.size());
    for (int i = 0; i < dims[0]; ++i)
    {
        EXPECT_EQ(i, w.voxels[i][0]);
        EXPECT_EQ(0, w.voxels[i][1]);
        EXPECT_EQ(0, w.voxels[i][2]);
    }
    // Along -x exactly on an internal y plane (between j = 1 and 2) and on the
    // high z face: every voxel of one row, in reverse order.
    double const y_plane = g.plane_cm(1, 2);
    double const z_high = g.plane_cm(2, dims[2]);
    w = walk(g, {{10.0, y_plane, z_high}}, {{-1.0, 0.0, 0.0}});
    ASSERT_TRUE(w.hit);
    EXPECT_NEAR(len_x, w.path_cm, 16 * eps * 10);
    ASSERT_EQ(size_t(dims[0]), w.voxels.size());
    EXPECT_EQ(dims[0] - 1, w.voxels.front()[0]);
    EXPECT_EQ(dims[2] - 1, w.voxels.front()[2]);
    // Along +z from inside, starting exactly on an internal z plane.
    // (The plane as the grid computes it in Real, so the start is exactly on it.)
    double const z3 = g.plane_cm(2, 3);
    w = walk(g, {{0.1, 2.0, z3}}, {{0.0, 0.0, 1.0}});
    ASSERT_TRUE(w.hit);
    EXPECT_EQ(0.0, w.entry_cm);
    EXPECT_EQ(3, w.voxels.front()[2]);
    EXPECT_NEAR((dims[2] - 3) * spacing[2], w.path_cm, 16 * eps * 10);
    // Same start going -z: starts in voxel k = 2 (the one it points into).
    w = walk(g, {{0.1, 2.0, z3}}, {{0.0, 0.0, -1.0}});
    EXPECT_EQ(2, w.voxels.front()[2]);
    EXPECT_NEAR(3 * spacing[2], w.path_cm, 16 * eps * 10);
}

TYPED_TEST(VoxelNavigatorTest, ThroughVoxelCorners)
{
    using Real = TypeParam;
    // Cubic voxels: the main diagonal passes exactly through voxel corners.
    auto const g = make_voxel_geometry<Real>({{6, 6, 6}}, {{0.5, 0.5, 0.5}}, {{0.0, 0.0, 0.0}});
    double const eps = std::numeric_limits<Real>::epsilon();
    double const r3 = 1 / std::sqrt(3.0);
    auto w = walk(g, {{-1.0, -1.0, -1.0}}, {{r3, r3, r3}});
    ASSERT_TRUE(w.hit);
    EXPECT_NEAR(3 * std::sqrt(3.0), w.path_cm, 64 * eps * 10);
    EXPECT_NEAR(std::sqrt(3.0), w.entry_cm, 64 * eps);
    // The diagonal voxels (i, i, i) are all visited with positive length;
    // the corner crossings add zero-length visits to face neighbours.
    int diagonal = 0;
    for (auto const& v : w.voxels)
        diagonal += (v[0] == v[1] && v[1] == v[2]);
    EXPECT_EQ(6, diagonal);
    // A ray through a face diagonal in the plane z = 1.5 (internal plane).
    double const r2 = 1 / std::sqrt(2.0);
    w = walk(g, {{3.0, 0.0, 1.5}}, {{-r2, r2, 0.0}});
    ASSERT_TRUE(w.hit);
    EXPECT_NEAR(3 * std::sqrt(2.0), w.path_cm, 64 * eps * 10);
}

TYPED_TEST(VoxelNavigatorTest, Misses)
{
    using Real = TypeParam;
    auto const g = make_voxel_geometry<Real>(dims, spacing, corner);
    double const x_high = corner[0] + dims[0] * spacing[0];
    double const y_high = corner[1] + dims[1] * spacing[1];
    // Parallel to x, outside the y slab.
    EXPECT_FALSE(walk(g, {{-10.0, y_high + 0.01, 0.0}}, {{1.0, 0.0, 0.0}}).hit);
    // Pointing away from the grid.
    EXPECT_FALSE(walk(g, {{-10.0, 2.0, 0.0}}, {{-1.0, 0.0, 0.0}}).hit);
    // Touching only the edge x = x_high, y = y_high (a zero-length chord).
    double const r2 = 1 / std::sqrt(2.0);
    EXPECT_FALSE(walk(g, {{x_high - 1.0, y_high + 1.0, 0.0}}, {{r2, -r2, 0.0}}).hit);
    // Starting on the high x face pointing out: leaves at once, no length.
    auto const w = walk(g, {{x_high, 2.0, 0.0}}, {{1.0, 0.0, 0.0}});
    EXPECT_FALSE(w.hit);
    EXPECT_EQ(0.0, w.path_cm);
}

TYPED_TEST(VoxelNavigatorTest, TurnInsideAVoxel)
{
    using Real = TypeParam;
    auto const g = make_voxel_geometry<Real>(dims, spacing, corner);
    double const eps = std::numeric_limits<Real>::epsilon();
    VoxelNavigator<Real> nav(g);
    VoxelTrackState<Real> s;
    s.position_cm = {{Real(-5), Real(2.3), Real(0.1)}};
    s.direction = {{1, 0, 0}};
    nav.initialize(s);
    ASSERT_TRUE(s.inside);
    // Cross two planes, move half a voxel, then turn to -y.
    for (int i = 0; i < 2; ++i)
        nav.cross_boundary(s, nav.find_next_boundary(s));
    nav.move_internal(s, Real(0.25));
    EXPECT_EQ(2, s.ijk[0]);
    s.direction = {{0, -1, 0}};
    double path = 0;
    int const j0 = s.ijk[1];
    while (s.inside)
    {
        auto const b = nav.find_next_boundary(s);
        path += b.distance_cm;
        nav.cross_boundary(s, b);
    }
    EXPECT_EQ(1, j0);
    EXPECT_NEAR(2.3 - corner[1], path, 32 * eps * 10);
}

TEST(VoxelGeometryTest, InvalidInputNamesTheField)
{
    EXPECT_THROW(make_voxel_geometry<double>({{0, 1, 1}}, {{1, 1, 1}}, {{0, 0, 0}}), RuntimeError);
    try
    {
        make_voxel_geometry<float>({{2, 2, 2}}, {{1, -1, 1}}, {{0, 0, 0}});
        FAIL() << "negative spacing accepted";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("spacing_cm"), std::string::npos) << e.what();
    }
}
} // namespace
} // namespace mcdose::test
