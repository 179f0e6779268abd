//! \file transport/physics/Bremsstrahlung.hh
//! Electron bremsstrahlung in the field of an atom (host only).
#pragma once

namespace mcdose
{
//! k d sigma/dk per atom [cm^2] for an electron of kinetic energy T emitting a photon of
//! energy k (0 < k < T), nuclear (screened-nucleus) part:
//! - Bethe–Heitler Born cross section without screening, valid at all energies
//!   (Koch & Motz, RMP 31, 920 (1959), formula 3BN);
//! - times the Elwert factor (Elwert, Ann. Phys. 34, 178 (1939); Koch & Motz Eq. II-6),
//!   the first-order Coulomb correction of the Born approximation at low energies;
//! - times a screening factor: the ratio of the Thomas–Fermi-screened (Butcher & Messel
//!   1960 Phi_1, Phi_2) to the unscreened Bethe–Heitler form, evaluated at the screening
//!   variable delta = 272 Z^{-1/3} q_min with the exact minimum momentum transfer
//!   q_min = p0 - p - k (in m c); it tends to 1 where screening is negligible.
double brems_nuclear_k_dsigma_dk_cm2(int Z, double T_MeV, double k_MeV);

//! k d sigma/dk per atom [cm^2] for electron–electron bremsstrahlung (the Z atomic
//! electrons), see Bremsstrahlung.cc for the model and its limits.
double brems_electron_k_dsigma_dk_cm2(int Z, double T_MeV, double k_MeV);

//! Total k d sigma/dk per atom [cm^2].
inline double brems_k_dsigma_dk_cm2(int Z, double T_MeV, double k_MeV)
{
    return brems_nuclear_k_dsigma_dk_cm2(Z, T_MeV, k_MeV) +
           brems_electron_k_dsigma_dk_cm2(Z, T_MeV, k_MeV);
}

//! int_{k_lo}^{k_hi} k dsigma/dk dk per atom [MeV cm^2] (radiative energy loss).
double brems_energy_loss_cm2_MeV(int Z, double T_MeV, double k_lo_MeV, double k_hi_MeV);

//! int_{k_lo}^{k_hi} dsigma/dk dk per atom [cm^2] (emission cross section).
double brems_cross_section_cm2(int Z, double T_MeV, double k_lo_MeV, double k_hi_MeV);

//! Energy-loss and emission integrals split at a photon cut k_c, from one set of
//! quadrature nodes (what the tables need per element and energy).
struct BremsIntegrals
{
    double loss_soft_cm2_MeV{0}; //!< int_0^{k_c} k dsigma/dk dk
    double loss_hard_cm2_MeV{0}; //!< int_{k_c}^T k dsigma/dk dk
    double xs_hard_cm2{0};       //!< int_{k_c}^T dsigma/dk dk
};
BremsIntegrals brems_integrals(int Z, double T_MeV, double k_cut_MeV);

//! Photon energies below this fraction of T are left out of the integrals (the energy
//! loss integrand vanishes ~k there); the cross section needs a cut k_lo > 0.
inline constexpr double brems_k_min_fraction = 1e-7;

//! 3BN k d sigma/dk / (alpha r_e^2 Z^2) [-], without Elwert or screening factors.
double bethe_heitler_3bn_reduced(double T_MeV, double k_MeV);
} // namespace mcdose
