//! Charged-particle samplers of the condensed-history step: Møller and Bhabha
//! energy transfer against their cross sections, two-body angles, annihilation
//! in flight (Heitler spectrum, energy and momentum conservation),
//! bremsstrahlung photon energies against the 3BN spectrum the tables are
//! built from, and the MW multiple-scattering sampler's first two moments.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "TransportTestHelpers.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/interactors/AnnihilationInteractor.hh"
#include "transport/interactors/BremsstrahlungInteractor.hh"
#include "transport/interactors/MollerBhabhaInteractor.hh"
#include "transport/interactors/MultipleScattering.hh"
#include "transport/physics/ElectronPhysics.hh"

namespace mcdose::test
{
namespace
{
double const mc2 = constants::electron_mass_MeV;

//! Transport params of one water voxel (the electron tables and their views).
TransportParams water_params(double emax_MeV)
{
    GridGeometry g;
    g.dims = {{1, 1, 1}};
    g.spacing_cm = {{10, 10, 10}};
    static VoxelGridParams grid(g, {0}, {1.0f}, 1);
    TransportOptions o;
    o.emax_MeV = emax_MeV;
    o.points_per_decade = 50;
    return TransportParams({find_material("water")}, grid, o);
}

template <class Real>
using ChargedInteractorTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(ChargedInteractorTest, RealTypes);
} // namespace

// Møller: x = W/T follows the Møller cross section on [cut/T, 1/2]; energy is
// conserved exactly; the two electrons leave at the two-body angles, in
// opposite azimuths.
TYPED_TEST(ChargedInteractorTest, MollerEnergyTransferAndAngles)
{
    using Real = TypeParam;
    for (double T : {0.5, 10.0})
    {
        double const cut = 0.01 * T * 2; // x_min = 0.02
        double const gamma = 1 + T / mc2;
        double const g = (2 * gamma - 1) / (gamma * gamma);
        double const c = (gamma - 1) * (gamma - 1) / (gamma * gamma);
        TabulatedCdf cdf([&](double x)
                         { return 1 / (x * x) + 1 / ((1 - x) * (1 - x)) - g / (x * (1 - x)) + c; },
                         cut / T, 0.5);
        TestEngine rng(5);
        MollerBhabhaInteractor<Real> interact(Real(T), {{0, 0, 1}}, Real(cut), false);
        int const n = 40000;
        std::vector<double> x(n);
        for (int i = 0; i < n; ++i)
        {
            auto const r = interact(rng);
            ASSERT_EQ(1, r.num_secondaries);
            EXPECT_EQ(ParticleType::electron, r.secondaries[0].type);
            EXPECT_NEAR(T, double(r.energy_MeV) + double(r.secondaries[0].energy_MeV), 4e-7 * T);
            x[i] = double(r.secondaries[0].energy_MeV) / T;
            EXPECT_GE(x[i], cut / T * (1 - 1e-6));
            EXPECT_LE(x[i], 0.5 + 1e-6);
            double const t1 = r.energy_MeV, t2 = r.secondaries[0].energy_MeV;
            EXPECT_NEAR(std::sqrt(t1 * (T + 2 * mc2) / (T * (t1 + 2 * mc2))), r.direction[2], 1e-5);
            EXPECT_NEAR(std::sqrt(t2 * (T + 2 * mc2) / (T * (t2 + 2 * mc2))),
                        r.secondaries[0].direction[2], 1e-5);
            // Opposite azimuths: the transverse components are antiparallel.
            double const cross_t = r.direction[0] * r.secondaries[0].direction[1] -
                                   r.direction[1] * r.secondaries[0].direction[0];
            EXPECT_NEAR(0, cross_t, 1e-5);
            EXPECT_LE(r.direction[0] * r.secondaries[0].direction[0] +
                          r.direction[1] * r.secondaries[0].direction[1],
                      1e-6);
        }
        EXPECT_LT(equiprobable_chi_square(x, cdf, 40), chi_square_limit(39)) << T << " MeV";
    }
}

// Bhabha: x = W/T (the electron's share) follows the Bhabha cross section on [cut/T, 1].
TYPED_TEST(ChargedInteractorTest, BhabhaEnergyTransfer)
{
    using Real = TypeParam;
    for (double T : {0.3, 20.0})
    {
        double const cut = 0.05 * T;
        double const gamma = 1 + T / mc2;
        double const beta2 = 1 - 1 / (gamma * gamma);
        double const y = 1 / (gamma + 1);
        double const y12 = 1 - 2 * y;
        double const b1 = 2 - y * y, b2 = y12 * (3 + y * y), b4 = y12 * y12 * y12;
        double const b3 = b4 + y12 * y12;
        TabulatedCdf cdf([&](double x)
                         { return 1 / (beta2 * x * x) - b1 / x + b2 - b3 * x + b4 * x * x; },
                         cut / T, 1.0);
        TestEngine rng(6);
        MollerBhabhaInteractor<Real> interact(Real(T), {{0, 0, 1}}, Real(cut), true);
        int const n = 40000;
        std::vector<double> x(n);
        for (int i = 0; i < n; ++i)
        {
            auto const r = interact(rng);
            EXPECT_NEAR(T, double(r.energy_MeV) + double(r.secondaries[0].energy_MeV), 4e-7 * T);
            x[i] = double(r.secondaries[0].energy_MeV) / T;
        }
        EXPECT_LT(equiprobable_chi_square(x, cdf, 40), chi_square_limit(39)) << T << " MeV";
    }
}

// Annihilation in flight: photon energy fraction from Heitler's S(zeta);
// energy (T + 2 m c^2) and momentum are conserved.
TYPED_TEST(ChargedInteractorTest, AnnihilationInFlight)
{
    using Real = TypeParam;
    for (double T : {0.1, 2.0, 30.0})
    {
        double const gamma = 1 + T / mc2;
        double const p = std::sqrt(gamma * gamma - 1);
        double const z_min = 1 / (gamma + 1 + p);
        TabulatedCdf cdf(
            [&](double z) {
                return -(gamma + 1) * (gamma + 1) + (gamma * gamma + 4 * gamma + 1) / z -
                       1 / (z * z);
            },
            z_min, 1 - z_min);
        TestEngine rng(7);
        AnnihilationInteractor<Real> interact(Real(T), {{0, 0, 1}});
        double const tol = std::is_same<Real, float>::value ? 1e-5 : 1e-10;
        int const n = 30000;
        std::vector<double> z(n);
        for (int i = 0; i < n; ++i)
        {
            auto const r = interact(rng);
            ASSERT_TRUE(r.absorbed);
            ASSERT_EQ(2, r.num_secondaries);
            auto const& a = r.secondaries[0];
            auto const& b = r.secondaries[1];
            EXPECT_EQ(ParticleType::photon, a.type);
            EXPECT_EQ(ParticleType::photon, b.type);
            EXPECT_NEAR(T, double(energy_out(r)), tol * (T + 2 * mc2));
            // Momentum: photons' vector sum equals the positron's p c along z.
            for (int k = 0; k < 3; ++k)
            {
                double const sum =
                    double(a.energy_MeV) * a.direction[k] + double(b.energy_MeV) * b.direction[k];
                EXPECT_NEAR(k == 2 ? p * mc2 : 0.0, sum, 20 * tol * (T + 2 * mc2)) << k;
            }
            z[i] = double(a.energy_MeV) / (T + 2 * mc2);
        }
        EXPECT_LT(equiprobable_chi_square(z, cdf, 30), chi_square_limit(29)) << T << " MeV";
    }
}

// Bremsstrahlung: at a grid energy the sampled photon energies follow the
// model spectrum k dsigma/dk of transport/physics (in ln k), and the photon
// angles are forward-peaked on the scale m c^2 / E0.
TEST(ChargedInteractorTest, BremsstrahlungSpectrumMatchesModel)
{
    auto const params = water_params(20);
    auto const view = params.view<double>(MemSpace::host);
    auto const& el = view.electron;
    ElectronPhysics const phys(find_material("water"));
    double const kc = el.brems_cut_MeV;
    for (double target : {1.0, 15.0})
    {
        // Use a grid energy (interpolation fraction 0).
        unsigned i;
        double f;
        el.grid.find(target, i, f);
        double const T = std::exp(double(el.grid.ln_emin) + i / double(el.grid.inv_delta));
        TabulatedCdf cdf([&](double lnk) { return phys.brems_k_dsigma_dk(T, std::exp(lnk)); },
                         std::log(kc), std::log(T) - 1e-9);
        TestEngine rng(8);
        BremsstrahlungInteractor<double> interact(T, {{0, 0, 1}}, kc, el.brems, 0, i, 0.0);
        int const n = 40000;
        std::vector<double> lnk(n);
        double mean_theta = 0;
        for (int s = 0; s < n; ++s)
        {
            auto const r = interact(rng);
            ASSERT_EQ(ParticleType::photon, r.secondaries[0].type);
            EXPECT_DOUBLE_EQ(T, r.energy_MeV + r.secondaries[0].energy_MeV);
            EXPECT_EQ(1.0, r.direction[2]); // the electron keeps its direction
            lnk[s] = std::log(r.secondaries[0].energy_MeV);
            mean_theta += std::acos(std::fmin(1.0, r.secondaries[0].direction[2])) / n;
        }
        EXPECT_LT(equiprobable_chi_square(lnk, cdf, 40), chi_square_limit(39)) << T << " MeV";
        // Tsai: <u> of the mixture = (1/4)(2/a) + (3/4)(2/(3a)) = 1/a = 1.6, theta = u m/E0
        // (the cut at pi is negligible at these energies).
        EXPECT_NEAR(1.6 * mc2 / (T + mc2), mean_theta, 0.03 * 1.6 * mc2 / (T + mc2)) << T;
    }
}

// Multiple scattering: the MW sampler reproduces <t> = m1 and
// <t^2> = 2 m1 - 2/3 m2 (t = 1 - cos theta) for steps from the
// single-scattering to the diffusion regime, with the tables' lambda_1, lambda_2.
TEST(ChargedInteractorTest, MultipleScatteringMomentsAreExact)
{
    auto const params = water_params(20);
    auto const view = params.view<double>(MemSpace::host);
    auto const& el = view.electron;
    for (double T : {0.3, 5.0})
    {
        unsigned i;
        double f;
        el.grid.find(T, i, f);
        double const s1 = lerp_table(el.transport_xs.data(), i, f); // water, e-: row 0
        double const s2 = lerp_table(el.transport_xs2.data(), i, f);
        EXPECT_GT(s2, s1); // sigma_2 ~ 3 sigma_1 (1 - small): forward-peaked scattering
        EXPECT_LT(s2, 3 * s1);
        for (double s_over_l1 : {1e-3, 1e-2, 0.1, 0.5, 2.0})
        {
            double const m1 = -std::expm1(-s_over_l1);
            double const m2 = -std::expm1(-s_over_l1 * s2 / s1);
            double const t2_target = 2 * m1 - 2.0 / 3.0 * m2;
            TestEngine rng(9);
            int const n = 400000;
            double sum = 0, sum2 = 0, sum4 = 0;
            for (int k = 0; k < n; ++k)
            {
                double const t = sample_msc_one_minus_mu(el.msc, m1, m2, rng);
                ASSERT_GE(t, 0);
                ASSERT_LE(t, 2);
                sum += t;
                sum2 += t * t;
                sum4 += t * t * t * t;
            }
            double const mean = sum / n, mean2 = sum2 / n;
            double const sd1 = std::sqrt((mean2 - mean * mean) / n);
            double const sd2 = std::sqrt((sum4 / n - mean2 * mean2) / n);
            // 4 sigma plus the tables' interpolation (1e-3 relative).
            EXPECT_NEAR(m1, mean, 4 * sd1 + 1e-3 * m1) << T << " MeV, s/lambda1 " << s_over_l1;
            EXPECT_NEAR(t2_target, mean2, 4 * sd2 + 2e-3 * t2_target)
                << T << " MeV, s/lambda1 " << s_over_l1;
        }
    }
}
} // namespace mcdose::test
