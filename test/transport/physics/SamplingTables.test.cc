//! \file test/transport/physics/SamplingTables.test.cc
#include "transport/physics/SamplingTables.hh"

#include <gtest/gtest.h>

#include "phantoms/materials/Element.hh"
#include "phantoms/materials/MaterialCatalogue.hh"

namespace mcdose::test
{
TEST(SamplingTables, IncoherentFunctionOfWater)
{
    auto const t = build_incoherent_table(find_material("water"));
    ASSERT_EQ(t.x_per_A.size(), t.s.size());
    EXPECT_EQ(t.x_per_A[0], 0.0);
    EXPECT_EQ(t.s[0], 0.0);
    EXPECT_NEAR(t.electrons, find_material("water").z_over_a(), 1e-12);
    for (std::size_t i = 1; i < t.s.size(); ++i)
    {
        EXPECT_GT(t.x_per_A[i], t.x_per_A[i - 1]);
        EXPECT_GE(t.s[i], t.s[i - 1] - 1e-6 * t.electrons) << i; // spline wiggle at saturation
    }
    // S reaches the electron count at large momentum transfer
    EXPECT_NEAR(t.s.back() / t.electrons, 1.0, 1e-3);
}

TEST(SamplingTables, RayleighFormFactorOfWater)
{
    Material const& w = find_material("water");
    auto const t = build_rayleigh_table(w);
    ASSERT_EQ(t.x2_per_A2.size(), t.f2.size());
    ASSERT_EQ(t.cumulative.size(), t.f2.size());
    // F^2(0) = sum_i n_i Z_i^2 with n_i = w_i / A_i
    double f2_0 = 0;
    for (auto const& c : w.components)
        f2_0 += c.mass_fraction / element_data(c.atomic_number).atomic_weight_g_mol *
                c.atomic_number * c.atomic_number;
    EXPECT_NEAR(t.f2[0], f2_0, 1e-12 * f2_0);
    EXPECT_LT(t.f2.back(), 1e-9 * t.f2[0]);
    for (std::size_t i = 1; i < t.cumulative.size(); ++i)
        EXPECT_GE(t.cumulative[i], t.cumulative[i - 1]);
}
} // namespace mcdose::test
