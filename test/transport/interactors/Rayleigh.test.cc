//! Rayleigh sampler: F^2 = Z^2 gives the Thomson distribution (1 + cos^2)/2;
//! a tabulated screened form factor gives Thomson x F^2(x); energy unchanged.
#include "transport/interactors/RayleighInteractor.hh"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "TransportTestHelpers.hh"

namespace mcdose::test
{
namespace
{
//! Host-owned table in precision Real.
template <class Real>
struct Table
{
    std::vector<Real> x2, f2, cumulative;
    Table(std::vector<double> const& x2d, std::vector<double> const& f2d)
        : x2(x2d.begin(), x2d.end()), f2(f2d.begin(), f2d.end())
    {
        auto const c = rayleigh_cumulative(x2d, f2d, "test");
        cumulative.assign(c.begin(), c.end());
    }
    RayleighTableView<Real> view() const
    {
        return {make_span(x2), make_span(f2), make_span(cumulative)};
    }
};

template <class Real>
std::vector<double> sample_mu(Real energy, RayleighTableView<Real> const& table, int n,
                              std::uint64_t seed)
{
    TestEngine rng(seed);
    RayleighInteractor<Real> interact(energy, {{0, 0, 1}}, table);
    std::vector<double> mu(n);
    for (int i = 0; i < n; ++i)
    {
        auto const r = interact(rng);
        EXPECT_FALSE(r.absorbed);
        EXPECT_EQ(0, r.num_secondaries);
        EXPECT_EQ(energy, energy_out(r));
        mu[i] = r.direction[2];
    }
    return mu;
}

template <class Real>
using RayleighTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(RayleighTest, RealTypes);

TYPED_TEST(RayleighTest, ConstantFormFactorIsThomson)
{
    using Real = TypeParam;
    // F^2 = Z^2 = 64 up to x^2 = 1e6 / Angstrom^2 (beyond any k^2 used here).
    Table<Real> table({0, 1e6}, {64, 64});
    TabulatedCdf thomson([](double m) { return (1 + m * m) / 2; }, -1, 1);
    for (double energy : {0.01, 0.2})
    {
        auto const mu = sample_mu(Real(energy), table.view(), 20000, 3);
        EXPECT_LT(equiprobable_chi_square(mu, std::cref(thomson)), chi_square_limit(19))
            << "E = " << energy << " MeV";
    }
}

TYPED_TEST(RayleighTest, ScreenedFormFactor)
{
    using Real = TypeParam;
    // F^2 = Z^2 / (1 + x^2/a)^2 on a grid that is finer near 0; the sampler
    // follows the table's piecewise-linear F^2, so the expectation does too.
    double const a = 0.5, z2 = 64;
    std::vector<double> x2, f2;
    for (int i = 0; i <= 300; ++i)
    {
        x2.push_back(20.0 * std::pow(i / 300.0, 2));
        f2.push_back(z2 / std::pow(1 + x2.back() / a, 2));
    }
    Table<Real> table(x2, f2);
    double const energy = 0.03;
    double const k2 = std::pow(energy / hc_MeV_A, 2);
    ASSERT_LT(k2, x2.back());
    auto const mu = sample_mu(Real(energy), table.view(), 20000, 5);
    auto pdf = [&](double m)
    {
        double const q2 = k2 * (1 - m) / 2;
        return (1 + m * m) / 2 *
               interpolate_linear(make_span(std::as_const(x2)), make_span(std::as_const(f2)), q2);
    };
    TabulatedCdf cdf(pdf, -1, 1);
    EXPECT_LT(equiprobable_chi_square(mu, std::cref(cdf)), chi_square_limit(19));
    // Forward peaking is really there (Thomson alone fails).
    TabulatedCdf thomson([](double m) { return (1 + m * m) / 2; }, -1, 1);
    EXPECT_GT(equiprobable_chi_square(mu, std::cref(thomson)), chi_square_limit(19));
}

TEST(RayleighDataTest, CumulativeAndValidation)
{
    auto const c = rayleigh_cumulative({0, 1, 3}, {4, 2, 0}, "water");
    ASSERT_EQ(3u, c.size());
    EXPECT_DOUBLE_EQ(0, c[0]);
    EXPECT_DOUBLE_EQ(3, c[1]); // (4 + 2)/2 * 1
    EXPECT_DOUBLE_EQ(5, c[2]); // + (2 + 0)/2 * 2
    EXPECT_THROW(rayleigh_cumulative({0.1, 1}, {1, 1}, "water"), RuntimeError);
    EXPECT_THROW(rayleigh_cumulative({0, 1, 1}, {1, 1, 1}, "water"), RuntimeError);
    EXPECT_THROW(rayleigh_cumulative({0, 1}, {1, -1}, "water"), RuntimeError);
}
} // namespace
} // namespace mcdose::test
