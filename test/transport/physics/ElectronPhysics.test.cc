//! \file test/transport/physics/ElectronPhysics.test.cc
#include "transport/physics/ElectronPhysics.hh"

#include <cmath>

#include <gtest/gtest.h>

#include "core/Constants.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/physics/Bremsstrahlung.hh"
#include "transport/physics/ElasticScattering.hh"
#include "transport/physics/Quadrature.hh"

namespace mcdose::test
{
namespace
{
using namespace constants;

//! Møller differential cross section per electron, d sigma / d eps with eps = W/T [cm^2]
//! (Møller 1932; ICRU-37 Eq. 2.5), written out independently here.
double moller_dsigma_deps(double T, double eps)
{
    double const tau = T / electron_mass_MeV;
    double const gamma = tau + 1;
    double const beta2 = 1 - 1 / (gamma * gamma);
    double const re2 = classical_electron_radius_cm * classical_electron_radius_cm;
    double const pref = two_pi * re2 * electron_mass_MeV / (beta2 * T);
    return pref * (1 / (eps * eps) + 1 / ((1 - eps) * (1 - eps)) + (tau / gamma) * (tau / gamma) -
                   (2 * tau + 1) / (gamma * gamma) / (eps * (1 - eps)));
}
} // namespace

TEST(Bremsstrahlung, BetheHeitlerLimits)
{
    // phi_rad = int k dsigma/dk dk / (alpha r_e^2 Z^2 (T + m c^2)):
    // 16/3 in the non-relativistic limit, 4 ln(2 E0) - 4/3 in the extreme-relativistic
    // unscreened limit (Heitler, Quantum Theory of Radiation, Sec. 25).
    for (double T : {1e-4, 1e3})
    {
        double const s = integrate_gl8([&](double k) { return bethe_heitler_3bn_reduced(T, k); },
                                       T * 1e-9, T * (1 - 1e-9), 400);
        double const phi = s / (T + electron_mass_MeV);
        double const expected =
            T < 1 ? 16.0 / 3.0 : 4 * std::log(2 * (1 + T / electron_mass_MeV)) - 4.0 / 3;
        EXPECT_NEAR(phi / expected, 1.0, 2e-3) << T;
    }
}

TEST(Bremsstrahlung, ScreeningLowersSoftPhotonsAtHighEnergy)
{
    double const T = 20;
    double const k = 1e-3;
    double const screened = brems_nuclear_k_dsigma_dk_cm2(8, T, k);
    double const unscreened = fine_structure * classical_electron_radius_cm *
                              classical_electron_radius_cm * 64 * bethe_heitler_3bn_reduced(T, k);
    EXPECT_LT(screened, 0.8 * unscreened);
    // ... but not hard photons at low energy (large momentum transfer): there the only
    // change to 3BN is the Elwert factor (beta0/beta)(1 - exp(-2 pi a/beta0))/(1 - exp(-2 pi
    // a/beta))
    double const T0 = 0.01;
    double const k0 = 0.005;
    auto beta_of = [](double T)
    {
        double const g = 1 + T / electron_mass_MeV;
        return std::sqrt(1 - 1 / (g * g));
    };
    double const b0 = beta_of(T0);
    double const b = beta_of(T0 - k0);
    double const a = two_pi * fine_structure * 8;
    double const elwert = b0 / b * (1 - std::exp(-a / b0)) / (1 - std::exp(-a / b));
    EXPECT_NEAR(brems_nuclear_k_dsigma_dk_cm2(8, T0, k0) /
                    (fine_structure * classical_electron_radius_cm * classical_electron_radius_cm *
                     64 * bethe_heitler_3bn_reduced(T0, k0) * elwert),
                1.0, 0.03); // screening factor 0.98 there
}

TEST(ElectronPhysics, RestrictedLimitsAndMollerConsistency)
{
    ElectronPhysics const ep(find_material("water"));
    double const n_e = find_material("water").z_over_a() * avogadro; // electrons/g
    for (double T : {0.05, 1.0, 10.0})
    {
        for (Lepton l : {Lepton::electron, Lepton::positron})
        {
            double const full = ep.collision_stopping(T, l);
            EXPECT_NEAR(ep.restricted_collision_stopping(T, T, l) / full, 1.0, 1e-12);
            EXPECT_LT(ep.restricted_collision_stopping(T, 0.01 * T, l), full);
        }
        EXPECT_EQ(ep.hard_collision_cross_section(T, 0.5 * T, Lepton::electron), 0.0);
        EXPECT_EQ(ep.hard_collision_cross_section(T, T, Lepton::positron), 0.0);
        EXPECT_GT(ep.hard_collision_cross_section(T, 0.1 * T, Lepton::positron), 0.0);

        // S - L(Delta) = n_e int_Delta^{T/2} W dsigma/dW dW, and the hard cross section
        // is n_e int dsigma/dW dW: checked by quadrature of the differential Møller formula.
        double const cut = 0.02 * T;
        double const x0 = cut / T;
        double const loss =
            integrate_gl8([&](double e) { return T * e * moller_dsigma_deps(T, e); }, x0, 0.5, 64);
        double const xs =
            integrate_gl8([&](double e) { return moller_dsigma_deps(T, e); }, x0, 0.5, 64);
        double const s_diff = ep.collision_stopping(T, Lepton::electron) -
                              ep.restricted_collision_stopping(T, cut, Lepton::electron);
        EXPECT_NEAR(s_diff / (n_e * loss), 1.0, 1e-6) << T;
        EXPECT_NEAR(ep.hard_collision_cross_section(T, cut, Lepton::electron) / (n_e * xs), 1.0,
                    1e-6)
            << T;
    }
}

TEST(DensityEffect, HighEnergyLimitAndConductors)
{
    // delta -> 2 ln(beta gamma) - 2 ln(I / h nu_p) - 1 (Sternheimer 1952; ICRU-37 Eq. 4.22)
    Material const& w = find_material("water");
    ElectronPhysics const ep(w);
    double const T = 1e5;
    double const g = 1 + T / electron_mass_MeV;
    double const bg = std::sqrt(g * g - 1);
    double const asym =
        2 * std::log(bg) -
        2 * std::log(w.mean_excitation_energy_eV / ep.density_effect().plasma_energy_eV()) - 1;
    EXPECT_NEAR(ep.delta(T), asym, 2e-3);
    // Water plasma energy 21.47 eV (ICRU-37 Table 5.5)
    EXPECT_NEAR(ep.density_effect().plasma_energy_eV(), 21.47, 0.02);
    // Insulator: no density effect at low energy; conductor: delta_0 > 0
    EXPECT_EQ(ep.delta(0.01), 0.0);
    ElectronPhysics const al(find_material("aluminium"));
    EXPECT_GT(al.delta(0.001), 0.0);
    EXPECT_LT(al.delta(0.001), 0.3);
}

TEST(ElasticScattering, ScreeningAndMottSign)
{
    // Molière A at 1 MeV in oxygen, computed from its definition
    double const T = 1.0;
    double const pc = std::sqrt(T * (T + 2 * electron_mass_MeV));
    double const beta = pc / (T + electron_mass_MeV);
    double const a = 0.885 * bohr_radius_cm / std::cbrt(8.0);
    double const r = hbar_c_MeV_cm / pc / (2 * a);
    double const expected = r * r * (1.13 + 3.76 * std::pow(fine_structure * 8 / beta, 2));
    EXPECT_NEAR(moliere_screening_parameter(8, T) / expected, 1.0, 1e-12);
    // Electrons scatter more than positrons on a nucleus (McKinley–Feshbach)
    EXPECT_GT(elastic_transport_cross_section_cm2(8, T, false),
              elastic_transport_cross_section_cm2(8, T, true));
    // Falls with energy
    EXPECT_GT(elastic_transport_cross_section_cm2(8, 0.1, false),
              elastic_transport_cross_section_cm2(8, 1.0, false));
}
} // namespace mcdose::test
