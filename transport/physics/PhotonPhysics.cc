//! \file transport/physics/PhotonPhysics.cc
#include "transport/physics/PhotonPhysics.hh"

#include <algorithm>
#include <cmath>

#include <xraylib.h>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "transport/physics/PhotonCrossSections.hh"

namespace mcdose
{
namespace
{
using constants::electron_mass_MeV;

double xrl_or_zero(double (*f)(int, int, xrl_error**), int Z, int arg)
{
    xrl_error* err = nullptr;
    double const v = f(Z, arg, &err);
    if (err)
    {
        xrl_error_free(err);
        return 0;
    }
    return v;
}

double partial_photo_or_zero(int Z, int shell, double energy_keV)
{
    xrl_error* err = nullptr;
    double const v = CS_Photo_Partial(Z, shell, energy_keV, &err);
    if (err)
    {
        xrl_error_free(err);
        return 0;
    }
    return v;
}

//! Mean fluorescence energy emitted per photoabsorption times the photo cross section,
//! i.e. sum over K, L1, L2, L3 of sigma_shell omega_shell E_line [MeV cm^2/g], using the
//! dominant line of each shell (K: the K-alpha/K-beta average; L: L1M3, L2M4, L3M5).
//! Cascades (vacancies moved from K to L) are neglected.
double fluorescence_energy_times_photo(int Z, double energy_MeV)
{
    double const e_keV = std::min(energy_MeV, xraylib_photo_limit_MeV) * 1e3;
    double sum_keV = 0;
    double const ka = xrl_or_zero(RadRate, Z, KA_LINE);
    double const kb = xrl_or_zero(RadRate, Z, KB_LINE);
    double const e_k = ka + kb > 0 ? (ka * xrl_or_zero(LineEnergy, Z, KA_LINE) +
                                      kb * xrl_or_zero(LineEnergy, Z, KB_LINE)) /
                                         (ka + kb)
                                   : 0;
    struct ShellLine
    {
        int shell;
        double line_keV;
    };
    ShellLine const shells[] = {{K_SHELL, e_k},
                                {L1_SHELL, xrl_or_zero(LineEnergy, Z, L1M3_LINE)},
                                {L2_SHELL, xrl_or_zero(LineEnergy, Z, L2M4_LINE)},
                                {L3_SHELL, xrl_or_zero(LineEnergy, Z, L3M5_LINE)}};
    for (auto const& s : shells)
    {
        if (s.line_keV <= 0)
            continue;
        double const sigma = partial_photo_or_zero(Z, s.shell, e_keV);
        sum_keV += sigma * xrl_or_zero(FluorYield, Z, s.shell) * s.line_keV;
    }
    double result = sum_keV * 1e-3;
    if (energy_MeV > xraylib_photo_limit_MeV)
    {
        // Shell fractions are fixed above the CS_Photo limit: scale with the total.
        result *=
            photoelectric_cm2_g(Z, energy_MeV) / photoelectric_cm2_g(Z, xraylib_photo_limit_MeV);
    }
    return result;
}
} // namespace

PhotonElementData photon_element_data(int Z, double energy_MeV)
{
    PhotonElementData d;
    auto& c = d.c;
    c.photo = photoelectric_cm2_g(Z, energy_MeV);
    d.compton = incoherent_spectrum(Z, energy_MeV);
    double inc_tr = 0;
    for (std::size_t i = 0; i < d.compton.t_fraction.size(); ++i)
    {
        c.incoherent += d.compton.dsigma_cm2_g[i];
        inc_tr += d.compton.dsigma_cm2_g[i] * d.compton.t_fraction[i];
    }
    c.coherent = coherent_cm2_g(Z, energy_MeV);
    c.pair_nuclear = pair_nuclear_cm2_g(Z, energy_MeV);
    c.pair_electron = pair_electron_cm2_g(Z, energy_MeV);
    c.mu = c.photo + c.incoherent + c.coherent + c.pair_nuclear + c.pair_electron;
    double const x_photo = c.photo > 0 ? fluorescence_energy_times_photo(Z, energy_MeV) : 0;
    d.photo_tr = c.photo - x_photo / energy_MeV;
    d.pair_tr = c.pair() * std::max(0.0, 1 - 2 * electron_mass_MeV / energy_MeV);
    c.mu_tr = d.photo_tr + inc_tr + d.pair_tr;
    c.mu_en = c.mu_tr;
    return d;
}

void add_element(PhotonCoefficients* sum, PhotonElementData const& d, double w, double energy_MeV,
                 YieldFunction const& yield)
{
    auto const& e = d.c;
    double radiated = 0;
    if (yield)
    {
        auto const& sp = d.compton;
        for (std::size_t i = 0; i < sp.t_fraction.size(); ++i)
        {
            double const t = sp.t_fraction[i];
            radiated += sp.dsigma_cm2_g[i] * t * yield(t * energy_MeV);
        }
        if (e.photo > 0)
            radiated += d.photo_tr * yield(std::max(energy_MeV * d.photo_tr / e.photo, 1e-6));
        if (d.pair_tr > 0)
            radiated += d.pair_tr * yield(0.5 * (energy_MeV - 2 * electron_mass_MeV));
    }
    sum->photo += w * e.photo;
    sum->incoherent += w * e.incoherent;
    sum->coherent += w * e.coherent;
    sum->pair_nuclear += w * e.pair_nuclear;
    sum->pair_electron += w * e.pair_electron;
    sum->mu += w * e.mu;
    sum->mu_tr += w * e.mu_tr;
    sum->mu_en += w * (e.mu_tr - radiated);
}

PhotonCoefficients photon_coefficients(Material const& material, double energy_MeV,
                                       YieldFunction const& yield)
{
    PhotonCoefficients sum;
    for (auto const& comp : material.components)
    {
        add_element(&sum, photon_element_data(comp.atomic_number, energy_MeV), comp.mass_fraction,
                    energy_MeV, yield);
    }
    return sum;
}

std::vector<double> photon_energy_grid(Material const& material, double emin_MeV, double emax_MeV,
                                       int per_decade)
{
    MCDOSE_VALIDATE(emin_MeV > 0 && emax_MeV > emin_MeV && per_decade > 0,
                    << "invalid photon grid [" << emin_MeV << ", " << emax_MeV << "] MeV with "
                    << per_decade << " points per decade");
    constexpr double edge_gap = 2e-4;
    std::vector<double> special;
    for (auto const& c : material.components)
    {
        for (double e : photo_edges_MeV(c.atomic_number, emin_MeV, emax_MeV))
        {
            special.push_back(e * (1 - edge_gap));
            special.push_back(e * (1 + edge_gap));
        }
    }
    // The pair and triplet thresholds; 8 m c^2: below it the pair Coulomb fraction is
    // frozen (a kink)
    for (double thr : {2 * electron_mass_MeV, 4 * electron_mass_MeV, 8 * electron_mass_MeV})
    {
        if (thr > emin_MeV && thr < emax_MeV)
            special.push_back(thr);
    }
    int const n = static_cast<int>(std::ceil(std::log10(emax_MeV / emin_MeV) * per_decade));
    double const h = std::log(emax_MeV / emin_MeV) / n;
    std::vector<double> grid;
    for (int i = 0; i <= n; ++i)
        grid.push_back(i == n ? emax_MeV : emin_MeV * std::exp(i * h));
    // Drop regular points closer than 1e-3 (relative) to a special point.
    grid.erase(std::remove_if(grid.begin() + 1, grid.end() - 1,
                              [&](double e)
                              {
                                  for (double s : special)
                                  {
                                      if (std::fabs(e / s - 1) < 1e-3)
                                          return true;
                                  }
                                  return false;
                              }),
               grid.end() - 1);
    grid.insert(grid.end(), special.begin(), special.end());
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    return grid;
}
} // namespace mcdose
