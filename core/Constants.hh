//! \file core/Constants.hh
//! Physical constants in one place, each with its source.
//! Units: MeV for energy, cm for length, g for mass, s for time, unless the
//! name says otherwise.
#pragma once

namespace mcdose
{
namespace constants
{
// CODATA 2018 recommended values (Tiesinga et al., Rev. Mod. Phys. 93, 025010 (2021)).
//! Electron rest energy m_e c^2 [MeV]
inline constexpr double electron_mass_MeV = 0.51099895000;
//! Classical electron radius r_e [cm]
inline constexpr double classical_electron_radius_cm = 2.8179403262e-13;
//! Fine-structure constant alpha [-]
inline constexpr double fine_structure = 7.2973525693e-3;
//! Avogadro constant [1/mol] (exact in the 2019 SI)
inline constexpr double avogadro = 6.02214076e23;
//! Speed of light in vacuum [cm/s] (exact)
inline constexpr double c_light_cm_s = 2.99792458e10;
//! Elementary charge / 1 MeV in joules [J/MeV] (exact in the 2019 SI)
inline constexpr double joule_per_MeV = 1.602176634e-13;
//! Reduced Planck constant times c [MeV cm]
inline constexpr double hbar_c_MeV_cm = 197.3269804e-13;
//! Bohr radius a_0 [cm]
inline constexpr double bohr_radius_cm = 0.529177210903e-8;
//! Reduced Compton wavelength of the electron, hbar/(m_e c) [cm]
inline constexpr double reduced_compton_wavelength_cm = 3.8615926796e-11;
//! Boltzmann constant [J/K] (exact in the 2019 SI)
inline constexpr double boltzmann_J_K = 1.380649e-23;
//! Atomic mass constant in MeV (for atomic weights) [MeV/u]
inline constexpr double atomic_mass_unit_MeV = 931.49410242;

// Mathematical constants
inline constexpr double pi = 3.14159265358979323846;
inline constexpr double two_pi = 2 * pi;

// Derived
//! 2 pi r_e^2 m_e c^2 N_A [MeV cm^2 / mol]: the Bethe stopping-power prefactor
//! (ICRU Report 37, Eq. 2.1, written per mole of electrons).
inline constexpr double bethe_prefactor_MeV_cm2_mol = two_pi * classical_electron_radius_cm *
                                                      classical_electron_radius_cm *
                                                      electron_mass_MeV * avogadro;
//! Gray per (MeV/g): 1 MeV/g = 1.602176634e-13 J / 1e-3 kg
inline constexpr double gray_per_MeV_g = joule_per_MeV * 1e3;
} // namespace constants
} // namespace mcdose
