//! Pair-production sampler: energy sharing against the screened
//! Bethe-Heitler cross section (and uniform below 2 MeV), lepton angles
//! against (1 - beta cos)^-2, exact energy balance; element selection data.
#include "transport/interactors/PairProductionInteractor.hh"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "TransportTestHelpers.hh"

namespace mcdose::test
{
namespace
{
double const mc2 = constants::electron_mass_MeV;

template <class Real>
using PairProductionTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(PairProductionTest, RealTypes);

TYPED_TEST(PairProductionTest, EnergySharingAndAngles)
{
    using Real = TypeParam;
    struct Case
    {
        double energy;
        int z;
    };
    for (auto const& c : {Case{1.5, 82}, Case{5, 8}, Case{10, 82}, Case{100, 82}})
    {
        auto const element = make_pair_element<Real>(c.z);
        auto const element_d = make_pair_element<double>(c.z);
        TestEngine rng(31);
        PairProductionInteractor<Real> interact(Real(c.energy), {{0, 0, 1}}, element);
        int const n = 20000;
        std::vector<double> eps(n), u_angle;
        for (int i = 0; i < n; ++i)
        {
            auto const r = interact(rng);
            ASSERT_TRUE(r.absorbed);
            ASSERT_EQ(2, r.num_secondaries);
            auto const& em = r.secondaries[0];
            auto const& ep = r.secondaries[1];
            EXPECT_EQ(ParticleType::electron, em.type);
            EXPECT_EQ(ParticleType::positron, ep.type);
            EXPECT_GE(em.energy_MeV, 0);
            EXPECT_GE(ep.energy_MeV, 0);
            EXPECT_EQ(Real(c.energy), energy_out(r)); // exact
            // 2 m c^2 up to the rounding of E - 2 m c^2 (half an ulp of E).
            EXPECT_NEAR(2 * mc2, double(r.rest_energy_created_MeV),
                        c.energy * std::numeric_limits<Real>::epsilon());
            eps[i] = (double(em.energy_MeV) + mc2) / c.energy;
            // Opposite azimuths about the photon direction (+z).
            EXPECT_LE(em.direction[0] * ep.direction[0] + em.direction[1] * ep.direction[1], 1e-6);
            // Map each polar angle through its CDF (1-b^2)/(2b) [1/(1-b mu) - 1/(1+b)].
            for (auto const* lepton : {&em, &ep})
            {
                double const t = lepton->energy_MeV;
                double const b = std::sqrt(t * (t + 2 * mc2)) / (t + mc2);
                if (b < 1e-3)
                    continue;
                double const mu = lepton->direction[2];
                u_angle.push_back((1 - b * b) / (2 * b) * (1 / (1 - b * mu) - 1 / (1 + b)));
            }
        }
        double const eps0 = mc2 / c.energy;
        std::function<double(double)> pdf;
        if (c.energy < 2)
            pdf = [](double) { return 1.0; };
        else
            pdf = [&](double e) { return pair_energy_density(element_d, c.energy, e); };
        TabulatedCdf cdf(pdf, eps0, 1 - eps0);
        EXPECT_LT(equiprobable_chi_square(eps, std::cref(cdf)), chi_square_limit(19))
            << "E = " << c.energy << " MeV, Z = " << c.z;
        EXPECT_LT(equiprobable_chi_square(u_angle, [](double u) { return u; }),
                  chi_square_limit(19))
            << "angles at E = " << c.energy << " MeV";
    }
}

TEST(PairProductionDataTest, ElementConstantsAndSelection)
{
    auto const pb = make_pair_element<double>(82);
    EXPECT_DOUBLE_EQ(82, pb.z);
    EXPECT_NEAR(std::pow(82.0, -1.0 / 3), pb.inv_cbrt_z, 1e-15);
    EXPECT_NEAR(8.0 / 3 * std::log(82.0), pb.log_term, 1e-12);
    // f_c(Pb) = 0.3316 (Davies-Bethe-Maximon fit evaluated by hand for a = 82/137.036).
    EXPECT_NEAR(0.3316, pair_coulomb_correction(82), 5e-4);
    EXPECT_THROW(make_pair_element<double>(0), RuntimeError);

    // Water: H2O, weights n Z (Z + 1) = 2*1*2 and 1*8*9.
    auto const cdf = pair_selection_cdf({1, 8}, {2, 1});
    ASSERT_EQ(2u, cdf.size());
    EXPECT_NEAR(4.0 / 76, cdf[0], 1e-15);
    EXPECT_EQ(1.0, cdf[1]);
    EXPECT_THROW(pair_selection_cdf({1, 8}, {2}), RuntimeError);

    std::vector<PairElementView<double>> elements{make_pair_element<double>(1),
                                                  make_pair_element<double>(8)};
    PairMaterialView<double> water{make_span(std::as_const(elements)), make_span(cdf)};
    EXPECT_EQ(1, water.select(0.01).z);
    EXPECT_EQ(8, water.select(0.5).z);
    EXPECT_EQ(8, water.select(1.0).z);
}
} // namespace
} // namespace mcdose::test
