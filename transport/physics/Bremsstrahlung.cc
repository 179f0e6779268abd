//! \file transport/physics/Bremsstrahlung.cc
#include "transport/physics/Bremsstrahlung.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "transport/physics/Quadrature.hh"
#include "transport/physics/Screening.hh"

namespace mcdose
{
namespace
{
using namespace constants;
constexpr double alpha_re2_cm2 =
    fine_structure * classical_electron_radius_cm * classical_electron_radius_cm;

//! Screened / unscreened Bethe–Heitler ratio for brems (Bethe & Heitler 1934,
//! Tsai 1974 Eq. 3.9): with y = E/E0 (outgoing/incoming total energy) and
//! Phi_u = 4 ln(272 / delta) - 2 the unscreened limit of Phi_1 = Phi_2 in these variables.
double screening_factor(double z, double delta, double y)
{
    double phi1;
    double phi2;
    butcher_messel_screening(delta, &phi1, &phi2);
    double const lnz3 = 4.0 / 3.0 * std::log(z);
    double const phi_u = 4 * std::log(272.0 / delta) - 2;
    double const num = (1 + y * y) * (phi1 - lnz3) - 2.0 / 3.0 * y * (phi2 - lnz3);
    double const den = (1 + y * y - 2.0 / 3.0 * y) * (phi_u - lnz3);
    if (den <= 0 || num <= 0)
        return den <= 0 ? 1.0 : 0.0;
    return std::min(1.0, num / den);
}

struct Kinematics
{
    double e0, e, p0, p, k; // m c^2 and m c units
};

Kinematics kinematics(double T_MeV, double k_MeV)
{
    Kinematics kin;
    kin.e0 = 1 + T_MeV / electron_mass_MeV;
    kin.k = k_MeV / electron_mass_MeV;
    kin.e = kin.e0 - kin.k;
    kin.p0 = std::sqrt(kin.e0 * kin.e0 - 1);
    kin.p = std::sqrt(std::max(kin.e * kin.e - 1, 0.0));
    return kin;
}
} // namespace

double bethe_heitler_3bn_reduced(double T_MeV, double k_MeV)
{
    MCDOSE_EXPECT(k_MeV > 0 && k_MeV < T_MeV);
    auto const [e0, e, p0, p, k] = kinematics(T_MeV, k_MeV);
    if (p <= 0)
        return 0;
    // Koch & Motz (1959) 3BN, multiplied by k:
    // k dsigma/dk = Z^2 alpha r_e^2 (p/p0) { 4/3 - 2 E0 E (p^2+p0^2)/(p^2 p0^2)
    //   + eps0 E/p0^3 + eps E0/p^3 - eps eps0/(p0 p)
    //   + L [ 8 E0 E/(3 p0 p) + k^2 (E0^2 E^2 + p0^2 p^2)/(p0^3 p^3)
    //         + k/(2 p0 p) ( eps0 (E0 E + p0^2)/p0^3 - eps (E0 E + p^2)/p^3 + 2 k E0 E/(p^2 p0^2) )
    //         ] }
    double const eps0 = std::log((e0 + p0) / (e0 - p0));
    double const eps = std::log((e + p) / (e - p));
    double const L = 2 * std::log((e0 * e + p0 * p - 1) / k);
    double const p02 = p0 * p0;
    double const p2 = p * p;
    double const p03 = p02 * p0;
    double const p3 = p2 * p;
    double const term =
        4.0 / 3.0 - 2 * e0 * e * (p2 + p02) / (p2 * p02) + eps0 * e / p03 + eps * e0 / p3 -
        eps * eps0 / (p0 * p) +
        L * (8 * e0 * e / (3 * p0 * p) + k * k * (e0 * e0 * e * e + p02 * p2) / (p03 * p3) +
             k / (2 * p0 * p) *
                 (eps0 * (e0 * e + p02) / p03 - eps * (e0 * e + p2) / p3 +
                  2 * k * e0 * e / (p2 * p02)));
    return std::max(0.0, p / p0 * term);
}

double brems_nuclear_k_dsigma_dk_cm2(int Z, double T_MeV, double k_MeV)
{
    auto const kin = kinematics(T_MeV, k_MeV);
    if (kin.p <= 0)
        return 0;
    double const z = Z;
    // Elwert factor (beta/beta0 in the text is p/E)
    double const beta0 = kin.p0 / kin.e0;
    double const beta = kin.p / kin.e;
    double const a = two_pi * fine_structure * z;
    double const elwert = (beta0 / beta) * (-std::expm1(-a / beta0)) / (-std::expm1(-a / beta));
    // Screening variable from the exact minimum momentum transfer
    double const q_min = kin.p0 - kin.p - kin.k;
    double const delta = 272.0 / std::cbrt(z) * q_min;
    double const screen = screening_factor(z, delta, kin.e / kin.e0);
    return alpha_re2_cm2 * z * z * bethe_heitler_3bn_reduced(T_MeV, k_MeV) * elwert * screen;
}

double brems_electron_k_dsigma_dk_cm2(int Z, double T_MeV, double k_MeV)
{
    // Electron–electron bremsstrahlung: Z one-electron Bethe–Heitler cross sections
    // (3BN with Z = 1, screened like the nuclear term, no Elwert factor), times
    // R = T / (T + m c^2). R interpolates between the two known limits: at low energy the
    // dipole radiation of two equal charges with equal e/m cancels and the e–e cross
    // section is of quadrupole order, ~beta^2/2 relative (Fedyushin 1952; Haug, Z.
    // Naturforsch. 30a, 1099 (1975)); at high energy it approaches the e–nucleus form
    // with Z = 1 (Haug 1975; Tsai 1974). R is a modelling choice, not a derived
    // result: see docs/physics.md for its measured effect.
    auto const kin = kinematics(T_MeV, k_MeV);
    if (kin.p <= 0)
        return 0;
    double const q_min = kin.p0 - kin.p - kin.k;
    double const z = Z;
    double const screen = screening_factor(z, 272.0 / std::cbrt(z) * q_min, kin.e / kin.e0);
    double const r = T_MeV / (T_MeV + electron_mass_MeV);
    return alpha_re2_cm2 * z * bethe_heitler_3bn_reduced(T_MeV, k_MeV) * screen * r;
}
} // namespace mcdose

namespace mcdose
{
namespace
{
//! int g(k) d ln k over [k_lo, k_hi]: 8-point panels of at most 2 units of ln k.
template <class G>
double integrate_ln_k(G&& g, double k_lo, double k_hi)
{
    if (!(k_hi > k_lo))
        return 0;
    double const a = std::log(k_lo);
    double const b = std::log(k_hi);
    int const panels = std::max(2, static_cast<int>(std::ceil((b - a) / 2.0)));
    return integrate_gl8([&](double lnk) { return g(std::exp(lnk)); }, a, b, panels);
}
} // namespace

double brems_energy_loss_cm2_MeV(int Z, double T_MeV, double k_lo_MeV, double k_hi_MeV)
{
    double const lo = std::max(k_lo_MeV, T_MeV * brems_k_min_fraction);
    double const hi = std::min(k_hi_MeV, T_MeV * (1 - 1e-12));
    // int k dsigma/dk dk = int (k dsigma/dk) k d ln k
    return integrate_ln_k([&](double k) { return k * brems_k_dsigma_dk_cm2(Z, T_MeV, k); }, lo, hi);
}

BremsIntegrals brems_integrals(int Z, double T_MeV, double k_cut_MeV)
{
    BremsIntegrals r;
    double const k_min = T_MeV * brems_k_min_fraction;
    double const k_max = T_MeV * (1 - 1e-12);
    double const kc = std::min(std::max(k_cut_MeV, k_min), k_max);
    r.loss_soft_cm2_MeV =
        integrate_ln_k([&](double k) { return k * brems_k_dsigma_dk_cm2(Z, T_MeV, k); }, k_min, kc);
    if (kc < k_max)
    {
        // One pass over [k_c, T] (same panels as integrate_ln_k) for the loss and the
        // cross section: int g d ln k with g = k (k dsigma/dk) and g = k dsigma/dk.
        static GaussLegendre<8> const rule;
        double const a = std::log(kc);
        double const b = std::log(k_max);
        int const panels = std::max(2, static_cast<int>(std::ceil((b - a) / 2.0)));
        double const h = (b - a) / panels;
        for (int p = 0; p < panels; ++p)
        {
            double const mid = a + (p + 0.5) * h;
            for (int i = 0; i < 8; ++i)
            {
                double const k = std::exp(mid + 0.5 * h * rule.x[i]);
                double const w = 0.5 * h * rule.w[i];
                double const kd = brems_k_dsigma_dk_cm2(Z, T_MeV, k);
                r.loss_hard_cm2_MeV += w * k * kd;
                r.xs_hard_cm2 += w * kd;
            }
        }
    }
    return r;
}

double brems_cross_section_cm2(int Z, double T_MeV, double k_lo_MeV, double k_hi_MeV)
{
    MCDOSE_EXPECT(k_lo_MeV > 0);
    double const hi = std::min(k_hi_MeV, T_MeV * (1 - 1e-12));
    return integrate_ln_k([&](double k) { return brems_k_dsigma_dk_cm2(Z, T_MeV, k); }, k_lo_MeV,
                          hi);
}
} // namespace mcdose
