//! Woodcock tracking reproduces the analogue collision-point distribution in
//! a heterogeneous row of voxels (chi-square against exact probabilities).
#include "transport/geometry/DeltaTracking.hh"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "../interactors/TransportTestHelpers.hh"

namespace mcdose::test
{
namespace
{
template <class Real>
using DeltaTrackingTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(DeltaTrackingTest, RealTypes);

TYPED_TEST(DeltaTrackingTest, CollisionVoxelDistribution)
{
    using Real = TypeParam;
    // Four 2-cm voxels along x with mu = 0.1, 0.5, 0 (void), 0.3 per cm.
    std::vector<double> const mu{0.1, 0.5, 0.0, 0.3};
    double const s = 2.0;
    auto const g = make_voxel_geometry<Real>({{4, 1, 1}}, {{s, 3.0, 3.0}}, {{0.0, 0.0, 0.0}});
    VoxelNavigator<Real> nav(g);
    auto mu_of_voxel = [&mu](size_type v) { return Real(mu[v]); };
    Real const majorant = Real(0.5);

    // Exact probabilities: collide in voxel i after surviving 0..i-1; or escape.
    std::vector<double> prob(5);
    double survive = 1;
    for (int i = 0; i < 4; ++i)
    {
        prob[i] = survive * (1 - std::exp(-mu[i] * s));
        survive *= std::exp(-mu[i] * s);
    }
    prob[4] = survive;

    TestEngine rng(2024);
    int const n = 40000;
    std::vector<double> counts(5, 0.0);
    long virtual_total = 0;
    for (int h = 0; h < n; ++h)
    {
        VoxelTrackState<Real> st;
        st.position_cm = {{Real(-1), Real(1.5), Real(1.5)}};
        st.direction = {{1, 0, 0}};
        nav.initialize(st);
        ASSERT_TRUE(st.inside);
        auto const r = delta_track(nav, st, majorant, mu_of_voxel, rng);
        virtual_total += r.virtual_collisions;
        if (r.escaped)
        {
            EXPECT_FALSE(st.inside);
            EXPECT_NEAR(4 * s, double(st.position_cm[0]), 1e-5);
            counts[4] += 1;
        }
        else
        {
            ASSERT_TRUE(st.inside);
            EXPECT_NE(2, st.ijk[0]) << "real collision in a void voxel";
            counts[st.ijk[0]] += 1;
        }
    }
    // Five outcomes, one of probability 0 (the void): 3 degrees of freedom.
    EXPECT_LT(chi_square(counts, prob), chi_square_limit(3));
    EXPECT_GT(virtual_total, 0); // the majorant exceeds mu in three voxels
}
} // namespace
} // namespace mcdose::test
