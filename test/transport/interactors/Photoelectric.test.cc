//! Photoelectric sampler: shell selection frequencies, exact energy balance
//! with the binding energy deposited, and the Sauter angular distribution.
#include "transport/interactors/PhotoelectricInteractor.hh"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "TransportTestHelpers.hh"

namespace mcdose::test
{
namespace
{
double const mc2 = constants::electron_mass_MeV;

//! Sauter (1931) K-shell distribution in cos(theta), written directly from
//! its definition (not from the sampler's factorisation).
double sauter(double kinetic_MeV, double mu)
{
    double const gamma = 1 + kinetic_MeV / mc2;
    double const beta = std::sqrt(1 - 1 / (gamma * gamma));
    double const one_minus_bmu = 1 - beta * mu;
    return (1 - mu * mu) / std::pow(one_minus_bmu, 4) *
           (1 + 0.5 * gamma * (gamma - 1) * (gamma - 2) * one_minus_bmu);
}

template <class Real>
using PhotoelectricTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(PhotoelectricTest, RealTypes);

TYPED_TEST(PhotoelectricTest, ShellSelectionAndEnergyBalance)
{
    using Real = TypeParam;
    // K, L, M shells of a lead-like atom (binding in MeV, conditional probability).
    std::vector<Real> binding{Real(0.088), Real(0.015), Real(0.003)};
    std::vector<Real> prob{Real(0.8), Real(0.7), Real(1.0)};
    PhotoelectricShellsView<Real> shells{make_span(std::as_const(binding)),
                                         make_span(std::as_const(prob))};
    struct Case
    {
        double energy;
        std::vector<double> expected; // K, L, M, none
    };
    for (auto const& c : {Case{0.1, {0.8, 0.2 * 0.7, 0.2 * 0.3, 0}}, Case{0.05, {0, 0.7, 0.3, 0}},
                          Case{0.002, {0, 0, 0, 1}}})
    {
        TestEngine rng(17);
        PhotoelectricInteractor<Real> interact(Real(c.energy), {{0, 0, 1}}, shells);
        std::vector<double> counts(4, 0.0);
        int const n = 20000;
        for (int i = 0; i < n; ++i)
        {
            auto const r = interact(rng);
            ASSERT_TRUE(r.absorbed);
            ASSERT_EQ(1, r.num_secondaries);
            EXPECT_EQ(ParticleType::electron, r.secondaries[0].type);
            EXPECT_EQ(Real(c.energy), energy_out(r)); // exact
            int shell = 3;
            for (int s = 0; s < 3; ++s)
            {
                if (std::fabs(double(r.energy_deposit_MeV) - binding[s]) < 1e-6)
                    shell = s;
            }
            if (shell == 3)
            {
                EXPECT_EQ(Real(0), r.energy_deposit_MeV);
            }
            counts[shell] += 1;
        }
        int const dof = int(std::count_if(c.expected.begin(), c.expected.end(),
                                          [](double p) { return p > 0; })) -
                        1;
        if (dof > 0)
        {
            EXPECT_LT(chi_square(counts, c.expected), chi_square_limit(dof)) << c.energy;
        }
        else
        {
            EXPECT_EQ(double(n), counts[3]);
        }
    }
}

TYPED_TEST(PhotoelectricTest, SauterAngularDistribution)
{
    using Real = TypeParam;
    for (double kinetic : {0.002, 0.05, 0.4, 2.0})
    {
        TestEngine rng(23);
        std::vector<double> mu(20000);
        for (auto& m : mu)
        {
            m = sample_sauter_cos_theta(Real(kinetic), rng);
            ASSERT_GE(m, -1);
            ASSERT_LE(m, 1);
        }
        TabulatedCdf cdf([kinetic](double m) { return sauter(kinetic, m); }, -1, 1);
        EXPECT_LT(equiprobable_chi_square(mu, std::cref(cdf)), chi_square_limit(19))
            << "T = " << kinetic << " MeV";
    }
}
} // namespace
} // namespace mcdose::test
