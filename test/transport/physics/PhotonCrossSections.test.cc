//! \file test/transport/physics/PhotonCrossSections.test.cc
#include "transport/physics/PhotonCrossSections.hh"

#include <cmath>

#include <gtest/gtest.h>
#include <xraylib.h>

#include "core/Constants.hh"
#include "phantoms/materials/Element.hh"

namespace mcdose::test
{
namespace
{
using namespace constants;

//! Klein–Nishina total cross section per free electron [cm^2] (Klein & Nishina 1929;
//! e.g. Evans, The Atomic Nucleus, Eq. 22-2.1), written out independently here.
double klein_nishina_total_cm2(double energy_MeV)
{
    double const k = energy_MeV / electron_mass_MeV;
    double const re2 = classical_electron_radius_cm * classical_electron_radius_cm;
    double const l = std::log(1 + 2 * k);
    return 2 * pi * re2 *
           ((1 + k) / (k * k) * (2 * (1 + k) / (1 + 2 * k) - l / k) + l / (2 * k) -
            (1 + 3 * k) / ((1 + 2 * k) * (1 + 2 * k)));
}

double per_atom(int Z)
{
    return element_data(Z).atomic_weight_g_mol / avogadro;
}
} // namespace

TEST(PhotonCrossSections, IncoherentTendsToKleinNishinaPerElectron)
{
    // Above ~1 MeV binding (S < Z) changes sigma by < 0.1% for light elements
    for (int Z : {1, 8})
    {
        for (double e : {2.0, 10.0, 50.0})
        {
            double const sigma = incoherent_cm2_g(Z, e) * per_atom(Z);
            EXPECT_NEAR(sigma / (Z * klein_nishina_total_cm2(e)), 1.0, 1e-3) << Z << " " << e;
        }
    }
}

TEST(PhotonCrossSections, AgreesWithXraylibIntegratedTables)
{
    // xraylib's CS_Compt/CS_Rayl are independently integrated tables: for light atoms
    // our integrals of the same S and F agree within 0.5% (incoherent) and 1% (coherent).
    // (For heavy atoms CS_Rayl differs by up to 11% for Pb at 0.5 MeV: a brute-force
    // 2e6-point integration of Thomson x F^2 agrees with ours, not with CS_Rayl, whose
    // tables are not plain F^2 integrals; not a test of our integration.)
    for (int Z : {1, 6, 7, 8})
    {
        for (double e_keV : {5.0, 20.0, 100.0, 500.0})
        {
            double const inc = incoherent_cm2_g(Z, e_keV * 1e-3);
            double const coh = coherent_cm2_g(Z, e_keV * 1e-3);
            double const ref_inc = CS_Compt(Z, e_keV, nullptr);
            double const ref_coh = CS_Rayl(Z, e_keV, nullptr);
            EXPECT_NEAR(inc / ref_inc, 1.0, 0.005) << "Z=" << Z << " E=" << e_keV << " keV";
            EXPECT_NEAR(coh / ref_coh, 1.0, 0.01) << "Z=" << Z << " E=" << e_keV << " keV";
        }
    }
}

TEST(PhotonCrossSections, PhotoelectricHighEnergyForm)
{
    for (int Z : {8, 82})
    {
        // Continuous at the xraylib limit
        double const below = photoelectric_cm2_g(Z, xraylib_photo_limit_MeV * (1 - 1e-9));
        double const above = photoelectric_cm2_g(Z, xraylib_photo_limit_MeV * (1 + 1e-9));
        EXPECT_NEAR(above / below, 1.0, 1e-6);
        // Tends to 1/E (Pratt 1960) at high energy
        double const r = photoelectric_cm2_g(Z, 50.0) / photoelectric_cm2_g(Z, 25.0);
        EXPECT_NEAR(r, 0.5, 0.03) << Z;
    }
    // Absorption edges are jumps: O K (0.543 keV is below the grid; use Pb K at 88 keV)
    auto const edges = photo_edges_MeV(82, 0.05, 0.1);
    ASSERT_EQ(edges.size(), 1u);
    double const jump = photoelectric_cm2_g(82, edges[0] * (1 + 2e-4)) /
                        photoelectric_cm2_g(82, edges[0] * (1 - 2e-4));
    EXPECT_GT(jump, 4.0);
    EXPECT_LT(jump, 7.0);
}

TEST(PhotonCrossSections, PairThresholdsAndExpansions)
{
    double const m = electron_mass_MeV;
    EXPECT_EQ(pair_nuclear_cm2_g(8, 2 * m * 0.999), 0.0);
    EXPECT_GT(pair_nuclear_cm2_g(8, 2 * m * 1.01), 0.0);
    EXPECT_EQ(pair_electron_cm2_g(8, 4 * m * 0.999), 0.0);
    EXPECT_GT(pair_electron_cm2_g(8, 4 * m * 1.01), 0.0);
    // Maximon's low- and high-energy expansions meet at k = 4
    EXPECT_NEAR(maximon_pair_reduced(4 - 1e-9) / maximon_pair_reduced(4 + 1e-9), 1.0, 1e-3);
    // High-energy limit of the unscreened Born cross section: 28/9 ln 2k - 218/27
    double const k = 1e5;
    EXPECT_NEAR(maximon_pair_reduced(k), 28.0 / 9 * std::log(2 * k) - 218.0 / 27, 1e-6);
    // Screening lowers the high-energy cross section below the unscreened one
    double const unscreened = fine_structure * classical_electron_radius_cm *
                              classical_electron_radius_cm * 64 * maximon_pair_reduced(100 / m) /
                              per_atom(8);
    EXPECT_LT(pair_nuclear_cm2_g(8, 100.0), unscreened);
    // Coulomb correction f_c(Z = 82) ~ 0.33 (Davies, Bethe & Maximon 1954)
    EXPECT_NEAR(coulomb_correction(82), 0.33, 0.01);
    // The screening and Coulomb corrections vanish towards threshold (Maximon's Born)
    EXPECT_NEAR(pair_nuclear_reduced(1, 2.5) / maximon_pair_reduced(2.5), 1.0, 2e-3);
}

TEST(PhotonCrossSections, PhotonStructureFunctionLimits)
{
    // Q^2 -> 0: 4 pi^2 alpha F_2 / Q^2 is the Breit–Wheeler cross section
    // sigma = 2 pi alpha^2 / W^2 [(3 - beta^4) L - 2 beta (2 - beta^2)] (units m = 1)
    for (double w2 : {4.5, 10.0, 100.0})
    {
        double const q2 = 1e-7;
        double const x = q2 / (q2 + w2);
        double f2;
        double fl;
        photon_structure_functions(x, q2, &f2, &fl);
        double const b = std::sqrt(1 - 4 / w2);
        double const l = std::log((1 + b) / (1 - b));
        double const bw = 2 * pi / w2 * ((3 - b * b * b * b) * l - 2 * b * (2 - b * b));
        EXPECT_NEAR(4 * pi * pi * f2 / q2 / bw, 1.0, 1e-5) << w2;
        EXPECT_LT(fl / f2, 1e-6) << w2; // longitudinal part ~ Q^2
    }
    // m^2 << Q^2: the leading-logarithm forms
    // F_2 = x/pi [(x^2 + (1-x)^2) ln(Q^2 (1-x) / (m^2 x)) + 8 x (1-x) - 1], F_L = 4 x^2 (1-x)/pi
    for (double x : {0.1, 0.5, 0.8})
    {
        double const q2 = 1e9;
        double f2;
        double fl;
        photon_structure_functions(x, q2, &f2, &fl);
        double const f2_ll =
            x / pi *
            ((x * x + (1 - x) * (1 - x)) * std::log(q2 * (1 - x) / x) + 8 * x * (1 - x) - 1);
        EXPECT_NEAR(f2 / f2_ll, 1.0, 1e-6) << x;
        EXPECT_NEAR(fl / (4 * x * x * (1 - x) / pi), 1.0, 1e-6) << x;
    }
}

TEST(PhotonCrossSections, TripletLimits)
{
    EXPECT_EQ(triplet_reduced(0, 4.0), 0.0);
    // Far above threshold the target's recoil no longer matters and the free-electron
    // cross section tends to the nuclear Bethe–Heitler value 28/9 ln 2k - 218/27 (the
    // approach is slow: -2.8 % at k = 1e3, -0.5 % at 1e4, -0.07 % at 1e5)
    double const k = 1e5;
    EXPECT_NEAR(triplet_reduced(0, k) / (28.0 / 9 * std::log(2 * k) - 218.0 / 27), 1.0, 2e-3);
    // Binding (S(q)/Z < 1) lowers it; at 10 MeV by well under 1 % for oxygen
    double const k10 = 10 / electron_mass_MeV;
    EXPECT_LT(triplet_reduced(8, k10), triplet_reduced(0, k10));
    EXPECT_GT(triplet_reduced(8, k10), 0.99 * triplet_reduced(0, k10));
    EXPECT_LT(triplet_reduced(8, 1000), 0.97 * triplet_reduced(0, 1000));
}
} // namespace mcdose::test
