//! \file transport/physics/ElectronPhysics.cc
#include "transport/physics/ElectronPhysics.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "phantoms/materials/Element.hh"
#include "transport/physics/Bremsstrahlung.hh"
#include "transport/physics/ElasticScattering.hh"

namespace mcdose
{
namespace
{
using constants::electron_mass_MeV;
constexpr double two_pi_re2_mc2_MeV_cm2 =
    constants::two_pi * constants::classical_electron_radius_cm *
    constants::classical_electron_radius_cm * electron_mass_MeV;
} // namespace

ElectronPhysics::ElectronPhysics(Material const& material)
    : material_(material), delta_(material),
      electrons_per_gram_(material.z_over_a() * constants::avogadro)
{
    // Locate the Bethe maximum on a fine log grid (100 per decade, 10 eV - 1 MeV).
    for (Lepton l : {Lepton::electron, Lepton::positron})
    {
        int const idx = l == Lepton::positron;
        for (int i = 0; i <= 500; ++i)
        {
            double const T = 1e-5 * std::pow(10.0, i / 100.0);
            double const s = bethe_restricted(T, T, l);
            if (s > bethe_max_S_[idx])
            {
                bethe_max_S_[idx] = s;
                bethe_max_T_[idx] = T;
            }
        }
    }
}

template <class F>
double ElectronPhysics::sum_over_elements(F&& per_atom_cm2) const
{
    double sum = 0;
    for (auto const& c : material_.components)
    {
        double const atoms_per_gram = c.mass_fraction * constants::avogadro /
                                      element_data(c.atomic_number).atomic_weight_g_mol;
        sum += atoms_per_gram * per_atom_cm2(c.atomic_number);
    }
    return sum;
}

double ElectronPhysics::bethe_prefactor(double T_MeV) const
{
    double const tau = T_MeV / electron_mass_MeV;
    double const beta2 = tau * (tau + 2) / ((tau + 1) * (tau + 1));
    return two_pi_re2_mc2_MeV_cm2 * electrons_per_gram_ / beta2;
}

double ElectronPhysics::restricted_collision_stopping(double T_MeV, double cut_MeV,
                                                      Lepton lepton) const
{
    int const idx = lepton == Lepton::positron;
    if (T_MeV < bethe_max_T_[idx])
    {
        // Below the Bethe maximum: velocity-proportional continuation (see header). The
        // cut is irrelevant there in practice (cuts are well above T_max).
        return bethe_max_S_[idx] * std::sqrt(T_MeV / bethe_max_T_[idx]);
    }
    return bethe_restricted(T_MeV, cut_MeV, lepton);
}

double ElectronPhysics::bethe_restricted(double T_MeV, double cut_MeV, Lepton lepton) const
{
    MCDOSE_EXPECT(T_MeV > 0 && cut_MeV > 0);
    double const tau = T_MeV / electron_mass_MeV;
    double const gamma = tau + 1;
    double const beta2 = tau * (tau + 2) / (gamma * gamma);
    double const ln_i = std::log(material_.mean_excitation_energy_eV * 1e-6 / electron_mass_MeV);
    double const w_max = lepton == Lepton::electron ? 0.5 * tau : tau;
    double const d = std::min(cut_MeV / electron_mass_MeV, w_max);
    // Common part: ln(2 (tau + 2) / (I/mc^2)^2)
    double bracket = std::log(2 * (tau + 2)) - 2 * ln_i;
    if (lepton == Lepton::electron)
    {
        // Møller, restricted to W < d (Berger & Seltzer 1964; ICRU-37 Eq. 2.12):
        // -1 - beta^2 + ln((tau - d) d) + tau/(tau - d)
        //   + [d^2/2 + (2 tau + 1) ln(1 - d/tau)] / gamma^2
        bracket += -1 - beta2 + std::log((tau - d) * d) + tau / (tau - d) +
                   (0.5 * d * d + (2 * tau + 1) * std::log1p(-d / tau)) / (gamma * gamma);
    }
    else
    {
        // Bhabha, restricted (ICRU-37 Eq. 2.13), y = 1/(gamma + 1):
        // ln(tau d) - beta^2/tau [tau + 2d - y (3 d^2/2 + y (d - d^3/3 + y (d^2/2 - tau d^3/3 +
        // d^4/4)))]
        double const y = 1 / (gamma + 1);
        double const d2 = d * d;
        double const d3 = d2 * d;
        bracket += std::log(tau * d) -
                   beta2 / tau *
                       (tau + 2 * d -
                        y * (1.5 * d2 +
                             y * (d - d3 / 3 + y * (0.5 * d2 - tau * d3 / 3 + 0.25 * d2 * d2))));
    }
    bracket -= delta_(beta2);
    return std::max(0.0, bethe_prefactor(T_MeV) * bracket);
}

double ElectronPhysics::collision_stopping(double T_MeV, Lepton lepton) const
{
    return restricted_collision_stopping(T_MeV, T_MeV, lepton);
}

double ElectronPhysics::hard_collision_cross_section(double T_MeV, double cut_MeV,
                                                     Lepton lepton) const
{
    MCDOSE_EXPECT(T_MeV > 0 && cut_MeV > 0);
    double const x_max = lepton == Lepton::electron ? 0.5 : 1.0;
    double const x_min = cut_MeV / T_MeV;
    if (x_min >= x_max)
        return 0;
    double const gamma = T_MeV / electron_mass_MeV + 1;
    double const gamma2 = gamma * gamma;
    double const beta2 = 1 - 1 / gamma2;
    double cross;
    if (lepton == Lepton::electron)
    {
        // Møller (Ann. Phys. 14, 531 (1932)) integrated over x = W/T in [x_min, 1/2]:
        // d sigma/dx ~ (1/beta^2)[(gamma-1)^2/gamma^2 + 1/x^2 + 1/(1-x)^2 - g/(x(1-x))],
        // g = (2 gamma - 1)/gamma^2
        double const g = (2 * gamma - 1) / gamma2;
        cross = ((x_max - x_min) * (1 - g + 1 / (x_min * x_max) + 1 / ((1 - x_min) * (1 - x_max))) -
                 g * std::log(x_max * (1 - x_min) / (x_min * (1 - x_max)))) /
                beta2;
    }
    else
    {
        // Bhabha (Proc. R. Soc. A 154, 195 (1936)) integrated over x in [x_min, 1]:
        // d sigma/dx ~ 1/(beta^2 x^2) - B1/x + B2 - B3 x + B4 x^2
        double const y = 1 / (1 + gamma);
        double const y2 = y * y;
        double const y12 = 1 - 2 * y;
        double const b1 = 2 - y2;
        double const b2 = y12 * (3 + y2);
        double const y122 = y12 * y12;
        double const b4 = y122 * y12;
        double const b3 = b4 + y122;
        cross = (x_max - x_min) * (1 / (beta2 * x_min * x_max) + b2 - 0.5 * b3 * (x_min + x_max) +
                                   b4 * (x_min * x_min + x_min * x_max + x_max * x_max) / 3) -
                b1 * std::log(x_max / x_min);
    }
    return std::max(0.0, cross * two_pi_re2_mc2_MeV_cm2 / T_MeV * electrons_per_gram_);
}

double ElectronPhysics::brems_k_dsigma_dk(double T_MeV, double k_MeV) const
{
    return sum_over_elements([&](int Z) { return brems_k_dsigma_dk_cm2(Z, T_MeV, k_MeV); });
}

double ElectronPhysics::restricted_radiative_stopping(double T_MeV, double k_cut_MeV) const
{
    return sum_over_elements([&](int Z)
                             { return brems_energy_loss_cm2_MeV(Z, T_MeV, 0.0, k_cut_MeV); });
}

double ElectronPhysics::radiative_stopping(double T_MeV) const
{
    return restricted_radiative_stopping(T_MeV, T_MeV);
}

double ElectronPhysics::hard_brems_cross_section(double T_MeV, double k_cut_MeV) const
{
    if (k_cut_MeV >= T_MeV)
        return 0;
    return sum_over_elements([&](int Z)
                             { return brems_cross_section_cm2(Z, T_MeV, k_cut_MeV, T_MeV); });
}

double ElectronPhysics::transport_cross_section(double T_MeV, Lepton lepton) const
{
    return sum_over_elements(
        [&](int Z)
        { return elastic_transport_cross_section_cm2(Z, T_MeV, lepton == Lepton::positron); });
}

double ElectronPhysics::second_transport_cross_section(double T_MeV, Lepton lepton) const
{
    return sum_over_elements(
        [&](int Z) {
            return elastic_second_transport_cross_section_cm2(Z, T_MeV, lepton == Lepton::positron);
        });
}

double heitler_annihilation_cm2(double T_MeV)
{
    MCDOSE_EXPECT(T_MeV > 0);
    double const gamma = 1 + T_MeV / electron_mass_MeV;
    double const g2m1 = (gamma - 1) * (gamma + 1);
    double const p = std::sqrt(g2m1);
    double const re = constants::classical_electron_radius_cm;
    return constants::pi * re * re / ((gamma + 1) * g2m1) *
           ((gamma * gamma + 4 * gamma + 1) * std::log(gamma + p) - (gamma + 3) * p);
}

double ElectronPhysics::annihilation_cross_section(double T_MeV) const
{
    return electrons_per_gram_ * heitler_annihilation_cm2(T_MeV);
}
} // namespace mcdose
