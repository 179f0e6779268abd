//! \file transport/physics/DensityEffect.cc
#include "transport/physics/DensityEffect.hh"

#include <algorithm>
#include <cmath>

#include <xraylib.h>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "phantoms/materials/Element.hh"

namespace mcdose
{
namespace
{
//! Principal quantum number of an xraylib shell index (K=0, L1..L3=1..3, M1..M5=4..8,
//! N1..N7=9..15, O1..O7=16..22, P1..P5=23..27).
int principal_number(int shell)
{
    if (shell == K_SHELL)
        return 1;
    if (shell <= L3_SHELL)
        return 2;
    if (shell <= M5_SHELL)
        return 3;
    if (shell <= N7_SHELL)
        return 4;
    if (shell <= O7_SHELL)
        return 5;
    return 6;
}

struct Shell
{
    double electrons;
    double binding_eV;
    int n;
};

std::vector<Shell> shells_of(int Z)
{
    std::vector<Shell> result;
    for (int s = K_SHELL; s <= P5_SHELL; ++s)
    {
        xrl_error* err = nullptr;
        double const occ = ElectronConfig(Z, s, &err);
        if (err)
        {
            xrl_error_free(err);
            continue;
        }
        if (occ <= 0)
            continue;
        err = nullptr;
        double e_keV = EdgeEnergy(Z, s, &err);
        if (err)
        {
            xrl_error_free(err);
            e_keV = 0;
        }
        // ICRU-37 used free-atom binding energies (Carlson 1975); xraylib's are referenced
        // to the Fermi level of the solid, which matters only for the outer shells: no
        // free-atom shell is bound more weakly than the first ionization energy.
        double const e_eV = std::max(e_keV * 1e3, element_data(Z).first_ionization_energy_eV);
        result.push_back({occ, e_eV, principal_number(s)});
    }
    return result;
}
} // namespace

DensityEffect::DensityEffect(Material const& material)
{
    // Plasma energy h nu_p = hbar sqrt(4 pi n_e r_e) c [eV] (ICRU-37 Eq. 4.19)
    double const n_e = material.electron_density_cm3();
    plasma_energy_eV_ =
        constants::hbar_c_MeV_cm * 1e6 *
        std::sqrt(4 * constants::pi * n_e * constants::classical_electron_radius_cm);

    // Oscillator strengths: electron fraction of each shell (ICRU-37 Eq. 4.17)
    double const electrons_per_gram = material.z_over_a();
    std::vector<double> binding; // eV, 0 for conduction
    for (auto const& c : material.components)
    {
        auto const& el = element_data(c.atomic_number);
        double const atom_frac = c.mass_fraction / el.atomic_weight_g_mol / electrons_per_gram;
        auto shells = shells_of(c.atomic_number);
        MCDOSE_VALIDATE(!shells.empty(), << "no shell data for Z=" << c.atomic_number);
        int n_max = 0;
        for (auto const& s : shells)
            n_max = std::max(n_max, s.n);
        double conduction = 0;
        for (auto const& s : shells)
        {
            if (material.conductor && s.n == n_max)
            {
                conduction += s.electrons;
                continue;
            }
            f_.push_back(atom_frac * s.electrons);
            binding.push_back(s.binding_eV);
        }
        if (conduction > 0)
        {
            f_.push_back(atom_frac * conduction);
            binding.push_back(0);
        }
    }
    // Energies of the bound levels l_i = sqrt((rho_s E_i / h nu_p)^2 + 2/3 f_i), of the
    // conduction level l_c = sqrt(f_c) (ICRU-37 Eqs. 4.20, 4.21); rho_s from
    // ln I = sum_i f_i ln(h nu_p l_i) (Eq. 4.18), solved by bisection in ln rho_s
    // (the right side increases monotonically with rho_s).
    double const ln_target = std::log(material.mean_excitation_energy_eV / plasma_energy_eV_);
    auto l2_of = [&](double rho_s, std::size_t i)
    {
        double const e = rho_s * binding[i] / plasma_energy_eV_;
        return binding[i] > 0 ? e * e + 2.0 / 3.0 * f_[i] : f_[i];
    };
    auto mean_ln_l = [&](double rho_s)
    {
        double sum = 0;
        for (std::size_t i = 0; i < f_.size(); ++i)
            sum += 0.5 * f_[i] * std::log(l2_of(rho_s, i));
        return sum;
    };
    double lo = std::log(1e-4);
    double hi = std::log(1e4);
    MCDOSE_VALIDATE(mean_ln_l(std::exp(lo)) < ln_target && mean_ln_l(std::exp(hi)) > ln_target,
                    << "material '" << material.name << "': the mean excitation energy "
                    << material.mean_excitation_energy_eV
                    << " eV is inconsistent with its atomic shells (no Sternheimer factor in "
                       "[1e-4, 1e4]); check 'mean_excitation_energy_eV'");
    for (int iter = 0; iter < 200 && hi - lo > 1e-14; ++iter)
    {
        double const mid = 0.5 * (lo + hi);
        (mean_ln_l(std::exp(mid)) < ln_target ? lo : hi) = mid;
    }
    rho_s_ = std::exp(0.5 * (lo + hi));
    l2_.resize(f_.size());
    nu2_.resize(f_.size());
    threshold_ = 0;
    for (std::size_t i = 0; i < f_.size(); ++i)
    {
        l2_[i] = l2_of(rho_s_, i);
        double const nu = rho_s_ * binding[i] / plasma_energy_eV_;
        nu2_[i] = nu * nu;
        threshold_ = nu2_[i] > 0 && threshold_ < HUGE_VAL ? threshold_ + f_[i] / nu2_[i] : HUGE_VAL;
    }
}

double DensityEffect::operator()(double beta_squared) const
{
    MCDOSE_EXPECT(beta_squared > 0 && beta_squared < 1);
    double const rhs = 1 / beta_squared - 1;
    if (rhs >= threshold_)
        return 0; // below the Cherenkov-like threshold of an insulator
    // Solve sum_i f_i / (nu_i^2 + L^2) = 1/beta^2 - 1 for L^2, nu_i = rho_s E_i / h nu_p
    // (Sternheimer 1952 Eq. 8; ICRU-37 Eq. 4.16b); the left side decreases monotonically
    // in L^2. Bisection on ln L^2.
    auto g = [&](double L2)
    {
        double s = 0;
        for (std::size_t i = 0; i < f_.size(); ++i)
            s += f_[i] / (nu2_[i] + L2);
        return s - rhs;
    };
    double lo = -60; // ln L^2
    double hi = 0;
    while (g(std::exp(hi)) > 0)
        hi += 5;
    for (int iter = 0; iter < 200 && hi - lo > 1e-13; ++iter)
    {
        double const mid = 0.5 * (lo + hi);
        (g(std::exp(mid)) > 0 ? lo : hi) = mid;
    }
    double const L2 = std::exp(0.5 * (lo + hi));
    // delta = sum_i f_i ln(1 + L^2 / l_i^2) - L^2 (1 - beta^2) (ICRU-37 Eq. 4.16a)
    double delta = -L2 * (1 - beta_squared);
    for (std::size_t i = 0; i < f_.size(); ++i)
        delta += f_[i] * std::log1p(L2 / l2_[i]);
    return std::max(delta, 0.0);
}

double DensityEffect::at_kinetic_energy(double T_MeV) const
{
    double const tau = T_MeV / constants::electron_mass_MeV;
    double const beta2 = tau * (tau + 2) / ((tau + 1) * (tau + 1));
    return (*this)(beta2);
}
} // namespace mcdose
