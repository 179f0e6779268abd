//! \file study/DoseToWater.hh
//! Dose to water from dose to medium: per material, the unrestricted collision
//! stopping-power ratio water/medium averaged over the electrons' slowing-down spectrum in
//! the medium (Bragg–Gray cavity theory; Siebers, Keall, Nahum & Mohan, Phys. Med. Biol. 45
//! (2000) 983). The stopping powers are the transport's own (transport/physics
//! ElectronPhysics::collision_stopping: Bethe with the density effect at the material's
//! nominal density, as ESTAR). Computed here, in the one layer that sees both transport/ and
//! dose/, and handed to dose/ as one factor per material (DoseGridData::material_dose_factor).
//!
//! Spectrum: the continuous-slowing-down (CSDA) equilibrium spectrum of electrons started at
//! E0 in the medium, Phi_E(E) = 1 / S_col,m(E) for delta <= E <= E0 (delta rays and
//! bremsstrahlung losses left out), so that
//!
//!   s_w,m = int Phi_E S_col,w dE / int Phi_E S_col,m dE
//!         = 1/(E0 - delta) int_delta^E0 S_col,w(E) / S_col,m(E) dE,
//!
//! with delta = 10 keV (the usual Spencer–Attix cut; below it electrons are local). E0
//! defaults to the largest kinetic energy of the study's sources (outputs.dose_to_water_
//! energy_MeV overrides it); docs/study-reference.md gives s_w,m of the catalogue tissues
//! against E0 (within about 1 % over 1–20 MeV, so the choice matters little).
#pragma once

#include <vector>

#include "dose/DoseData.hh"
#include "phantoms/materials/Material.hh"

namespace mcdose
{
//! Lower end of the slowing-down spectrum [MeV].
inline constexpr double dose_to_water_low_MeV = 0.01;

//! s_w,m for electrons started at `start_MeV` (> 2 x dose_to_water_low_MeV). Exactly 1 for a
//! medium whose stopping power is water's (the same integrand sums to the same value).
double water_to_medium_stopping_power_ratio(Material const& medium, Material const& water,
                                            double start_MeV);

//! The factor of each material (index = the phantom's material index) against the
//! catalogue's "water" (ICRU-37 composition, I = 75 eV), and the quantity it gives.
struct DoseToWater
{
    std::vector<double> factors;
    DoseQuantity quantity;
};
DoseToWater dose_to_water_factors(std::vector<Material> const& materials, double start_MeV);
} // namespace mcdose
