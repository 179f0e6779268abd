//! \file transport/physics/PhotonCrossSections.hh
//! Photon interaction cross sections of one element [cm^2/g] (host only).
//!
//! Mixtures use the mass-fraction rule mu/rho = sum_i w_i (mu/rho)_i (additivity;
//! molecular and solid-state effects are neglected, as in XCOM).
#pragma once

#include <functional>
#include <vector>

namespace mcdose
{
//! Photon energy above which CS_Photo (xraylib, Scofield 1973 data) is not tabulated [MeV].
inline constexpr double xraylib_photo_limit_MeV = 0.8;

//! Photoelectric cross section [cm^2/g]: xraylib CS_Photo up to 0.8 MeV; above,
//! CS_Photo(0.8 MeV) scaled by the shape of Sauter's relativistic K-shell cross
//! section (Sauter, Ann. Phys. 11, 454 (1931); Davisson & Evans, RMP 24, 79 (1952),
//! Eq. 9), which tends to the 1/E high-energy form (Pratt, Phys. Rev. 117, 1017 (1960)).
double photoelectric_cm2_g(int Z, double energy_MeV);

//! The Sauter K-shell shape factor (arbitrary normalisation) used above 0.8 MeV.
double sauter_k_shell_shape(double energy_MeV);

//! Integrals over the incoherent (bound Compton) cross section.
struct IncoherentIntegrals
{
    double sigma_cm2_g{0}; //!< int dsigma
    //! int (T/E) dsigma, T = E - E' the Compton electron's kinetic energy (binding neglected)
    double energy_transfer_cm2_g{0};
    //! int (T/E) Y(T) dsigma with Y the radiation yield (only if a yield is given)
    double radiated_cm2_g{0};
};

//! Klein–Nishina (Z. Phys. 52, 853 (1929)) times the incoherent scattering function
//! S(x, Z) (xraylib SF_Compt, Hubbell et al., JPCRD 4, 471 (1975)), integrated over
//! angle numerically. `yield_of_T_MeV` (optional) gives the electron radiation yield.
IncoherentIntegrals incoherent_integrals(int Z, double energy_MeV,
                                         std::function<double(double)> const& yield_of_T_MeV = {});

//! The incoherent cross section resolved into its quadrature nodes: Compton electron
//! energy fraction T/E and d sigma [cm^2/g] of each node (sum of d sigma = sigma).
struct IncoherentSpectrum
{
    std::vector<double> t_fraction;
    std::vector<double> dsigma_cm2_g;
};
IncoherentSpectrum incoherent_spectrum(int Z, double energy_MeV);

//! Incoherent cross section [cm^2/g].
inline double incoherent_cm2_g(int Z, double energy_MeV)
{
    return incoherent_integrals(Z, energy_MeV).sigma_cm2_g;
}

//! Coherent (Rayleigh) cross section [cm^2/g]: Thomson times F(x, Z)^2 (xraylib FF_Rayl,
//! Hubbell & Overbo, JPCRD 8, 69 (1979)), integrated; anomalous scattering neglected.
double coherent_cm2_g(int Z, double energy_MeV);

//! Pair production in the field of the nucleus (screened atom) [cm^2/g], combined as in
//! Hubbell, Gimm & Overbo (JPCRD 9, 1023 (1980)): the exact Born unscreened total cross
//! section (Maximon, J. Res. NBS 72B, 79 (1968), Eqs. 3.1 and 3.2) plus the screening
//! correction of the extreme-relativistic Bethe–Heitler formula evaluated with the atomic
//! form factor F(q) (xraylib FF_Rayl, Hubbell & Overbo 1979) plus the Davies–Bethe–Maximon
//! Coulomb correction (Phys. Rev. 93, 788 (1954)) of the same formula. The radiative
//! correction (Mork & Olsen 1965) is not included.
double pair_nuclear_cm2_g(int Z, double energy_MeV);

//! The nuclear pair cross section per atom / (alpha r_e^2 Z^2) [-]; k = E / (m c^2).
double pair_nuclear_reduced(int Z, double k);

//! Pair production in the field of the atomic electrons (triplet) [cm^2/g]: Z times the
//! exact Born cross section of the Bethe–Heitler graphs on a recoiling electron
//! (Borsellino 1947), computed from the photon's structure functions, with the
//! incoherent scattering function S(q)/Z for binding (Wheeler & Lamb 1939); see
//! triplet_reduced in PhotonCrossSections.cc.
double pair_electron_cm2_g(int Z, double energy_MeV);

//! Triplet cross section per atomic electron / (alpha r_e^2) [-]; k = E / (m c^2);
//! Z = 0: a free electron (no binding).
double triplet_reduced(int Z, double k);

//! Lowest-order QED structure functions F_2 and F_L of a real photon, divided by alpha,
//! for one lepton of unit mass and charge (the box graph gamma* gamma -> l+ l-, exact in the
//! lepton mass; Budnev et al., Phys. Rep. 15, 181 (1975); Nisius, Phys. Rep. 332, 165
//! (2000)). x Bjorken's variable, q2 = Q^2 / m^2. Their Q^2 -> 0 limit is the
//! Breit–Wheeler cross section and their m -> 0 limit the known logarithmic forms (tested).
void photon_structure_functions(double x, double q2, double* f2, double* fl);

//! Unscreened Born pair cross section per atom / (alpha r_e^2 Z^2) (Maximon 1968) [-];
//! k = photon energy / (m c^2).
double maximon_pair_reduced(double k);

//! Davies–Bethe–Maximon Coulomb correction f_c(Z) [-].
double coulomb_correction(int Z);

//! Absorption edge energies of Z in (emin_MeV, emax_MeV) [MeV], ascending.
std::vector<double> photo_edges_MeV(int Z, double emin_MeV, double emax_MeV);
} // namespace mcdose
