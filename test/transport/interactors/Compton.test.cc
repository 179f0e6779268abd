//! Compton sampler: angular distribution against Klein-Nishina (free
//! electrons, and with S(x) = Z, which must be identical) and against
//! Klein-Nishina x S(x)/Z for an analytic S; Compton kinematics, momentum
//! and exact energy conservation in every sample; float and double.
#include "transport/interactors/ComptonInteractor.hh"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "TransportTestHelpers.hh"

namespace mcdose::test
{
namespace
{
double const mc2 = constants::electron_mass_MeV;

//! Klein-Nishina d sigma / d cos(theta) up to a constant (Klein & Nishina 1929).
double klein_nishina(double energy_MeV, double mu)
{
    double const eps = 1 / (1 + energy_MeV / mc2 * (1 - mu));
    return eps * eps * (eps + 1 / eps - (1 - mu * mu));
}

template <class Real>
class ComptonTest : public ::testing::Test
{
  protected:
    //! Sample n interactions along +z; check every sample; return cos(theta).
    std::vector<double> sample(Real energy, IncoherentTableView<Real> const* binding, int n,
                               std::uint64_t seed)
    {
        TestEngine rng(seed);
        Array3<Real> const dir{{0, 0, 1}};
        ComptonInteractor<Real> interact(energy, dir, binding);
        double const eps = std::numeric_limits<Real>::epsilon();
        std::vector<double> mu(n);
        for (int i = 0; i < n; ++i)
        {
            auto const r = interact(rng);
            EXPECT_FALSE(r.absorbed);
            EXPECT_EQ(energy, energy_out(r)); // exact in floating point
            EXPECT_EQ(1, r.num_secondaries);
            auto const& e = r.secondaries[0];
            EXPECT_EQ(ParticleType::electron, e.type);
            EXPECT_GE(e.energy_MeV, 0);
            mu[i] = r.direction[2];
            EXPECT_NEAR(1.0, double(dot(r.direction, r.direction)), 8 * eps);
            // Compton formula E' = E / (1 + kappa (1 - cos)).
            double const expected = energy / (1 + energy / mc2 * (1 - mu[i]));
            EXPECT_NEAR(expected, double(r.energy_MeV), 64 * eps * energy * (1 + energy / mc2));
            // Momentum: E u = E' u' + p_e u_e with p_e = sqrt(T (T + 2 m c^2)).
            // Rounding bound: the vector terms carry ~eps E each; T = E - E'
            // carries eps E, which p_e amplifies by dp/dT = (T + m c^2)/p_e.
            double const t = e.energy_MeV;
            double const pe = std::sqrt(t * (t + 2 * mc2));
            double const tol = 16 * eps * energy * (1 + (pe > 0 ? (t + mc2) / pe : 0));
            for (int a = 0; a < 3; ++a)
            {
                double const balance =
                    energy * dir[a] - r.energy_MeV * r.direction[a] - pe * e.direction[a];
                EXPECT_NEAR(0.0, balance, tol) << "axis " << a << " sample " << i;
            }
        }
        return mu;
    }
};
TYPED_TEST_SUITE(ComptonTest, RealTypes);

TYPED_TEST(ComptonTest, KleinNishinaAngularDistribution)
{
    using Real = TypeParam;
    for (double energy : {0.02, 0.5, 6.0})
    {
        auto const mu = this->sample(Real(energy), nullptr, 20000, 7);
        TabulatedCdf cdf([energy](double m) { return klein_nishina(energy, m); }, -1, 1);
        EXPECT_LT(equiprobable_chi_square(mu, std::cref(cdf)), chi_square_limit(19))
            << "E = " << energy << " MeV";
    }
}

TYPED_TEST(ComptonTest, ConstantScatteringFunctionIsKleinNishina)
{
    using Real = TypeParam;
    // S(x) = Z everywhere: the binding rejection never rejects.
    std::vector<Real> x{0, 1, 100}, s{8, 8, 8};
    IncoherentTableView<Real> table{make_span(std::as_const(x)), make_span(std::as_const(s)), 8};
    double const energy = 0.1;
    auto const mu = this->sample(Real(energy), &table, 20000, 11);
    TabulatedCdf cdf([energy](double m) { return klein_nishina(energy, m); }, -1, 1);
    EXPECT_LT(equiprobable_chi_square(mu, std::cref(cdf)), chi_square_limit(19));
}

TYPED_TEST(ComptonTest, BindingSuppressesForwardScattering)
{
    using Real = TypeParam;
    // Analytic S(x) = Z (1 - exp(-x / x0)), tabulated; the sampler follows
    // the linear interpolation of the table, so the expected density uses it too.
    double const z = 8, x0 = 0.5;
    std::vector<Real> x, s;
    for (int i = 0; i <= 400; ++i)
    {
        x.push_back(Real(0.025 * i));
        s.push_back(Real(z * (1 - std::exp(-x.back() / x0))));
    }
    IncoherentTableView<Real> table{make_span(std::as_const(x)), make_span(std::as_const(s)),
                                    Real(z)};
    double const energy = 0.05;
    auto const mu = this->sample(Real(energy), &table, 20000, 13);
    std::vector<double> xd(x.begin(), x.end()), sd(s.begin(), s.end());
    auto pdf = [&](double m)
    {
        double const xm = energy / hc_MeV_A * std::sqrt((1 - m) / 2);
        double const sm = xm < xd.back() ? interpolate_linear(make_span(std::as_const(xd)),
                                                              make_span(std::as_const(sd)), xm)
                                         : z;
        return klein_nishina(energy, m) * sm / z;
    };
    TabulatedCdf cdf(pdf, -1, 1);
    EXPECT_LT(equiprobable_chi_square(mu, std::cref(cdf)), chi_square_limit(19));
    // And the suppression is real: the free-electron distribution fails.
    TabulatedCdf kn([energy](double m) { return klein_nishina(energy, m); }, -1, 1);
    EXPECT_GT(equiprobable_chi_square(mu, std::cref(kn)), chi_square_limit(19));
}
} // namespace
} // namespace mcdose::test
