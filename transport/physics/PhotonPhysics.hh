//! \file transport/physics/PhotonPhysics.hh
//! Photon attenuation and energy-absorption coefficients of a material (host only).
#pragma once

#include <functional>
#include <vector>

#include "phantoms/materials/Material.hh"
#include "transport/physics/PhotonCrossSections.hh"

namespace mcdose
{
//! Mass coefficients of one material at one photon energy [cm^2/g].
struct PhotonCoefficients
{
    double photo{0};
    double incoherent{0};
    double coherent{0};
    double pair_nuclear{0};
    double pair_electron{0};
    double mu{0};    //!< total mass attenuation coefficient (sum of the above)
    double mu_tr{0}; //!< mass energy-transfer coefficient
    double mu_en{0}; //!< mass energy-absorption coefficient (1 - g) mu_tr
    double pair() const { return pair_nuclear + pair_electron; }
};

//! Radiation yield Y(T) of an electron of kinetic energy T in the material [-].
using YieldFunction = std::function<double(double T_MeV)>;

//! mu_tr = tau (1 - X/E) + sigma_inc <T>/E + kappa (1 - 2 m c^2 / E), with X the mean
//! fluorescence energy emitted per photoabsorption (K and L shells, xraylib partial
//! cross sections, fluorescence yields and line energies); mu_en = mu_tr - g mu_tr with
//! the radiated part from the electron radiation yield: photoelectrons Y(E - X),
//! Compton electrons integrated over the Klein–Nishina–S spectrum, pair leptons
//! Y((E - 2 m c^2)/2) each (annihilation in flight neglected). Seltzer, Radiat. Res.
//! 136, 147 (1993), Eqs. 1–8; Hubbell & Seltzer, NISTIR 5632 (1995).
//!
//! Yield-independent data of one element at one energy: everything needed to form
//! its coefficients for any material (the tables cache these per (Z, E)).
struct PhotonElementData
{
    PhotonCoefficients c;       //!< mu_tr filled, mu_en = mu_tr (no radiative loss yet)
    double photo_tr{0};         //!< tau (1 - X/E) [cm^2/g]
    double pair_tr{0};          //!< kappa (1 - 2 m c^2/E) [cm^2/g]
    IncoherentSpectrum compton; //!< for the Compton electrons' radiative loss
};
PhotonElementData photon_element_data(int Z, double energy_MeV);

//! Add element `d` (mass fraction w) to `sum`, with the radiative loss from `yield`.
void add_element(PhotonCoefficients* sum, PhotonElementData const& d, double w, double energy_MeV,
                 YieldFunction const& yield);

//! Mix element coefficients by mass fraction.
PhotonCoefficients photon_coefficients(Material const& material, double energy_MeV,
                                       YieldFunction const& yield);

//! Photon energy grid for a material: `per_decade` points per decade, log-spaced over
//! [emin, emax], plus the points bracketing each absorption edge of its elements
//! (E_edge (1 -/+ 2e-4): xraylib's tabulated jump lies up to ~3e-5 below EdgeEnergy) the pair
//! thresholds 2 m c^2, 4 m c^2 and 8 m c^2 (kink of the Coulomb fraction).
std::vector<double> photon_energy_grid(Material const& material, double emin_MeV, double emax_MeV,
                                       int per_decade);
} // namespace mcdose
