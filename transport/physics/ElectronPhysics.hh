//! \file transport/physics/ElectronPhysics.hh
//! Stopping powers and cross sections of electrons and positrons in a material,
//! evaluated directly from the models (host only); the tables sample these.
//! Units: energies MeV, mass stopping powers MeV cm^2/g, cross sections cm^2/g.
#pragma once

#include "phantoms/materials/Material.hh"
#include "transport/physics/DensityEffect.hh"

namespace mcdose
{
enum class Lepton
{
    electron,
    positron
};

//! Heitler's cross section per free electron at rest [cm^2] for two-photon
//! annihilation of a positron of kinetic energy T (Heitler 1954; PENELOPE-2018
//! manual Eq. 3.185): pi r_e^2 / ((gamma + 1)(gamma^2 - 1))
//!   [(gamma^2 + 4 gamma + 1) ln(gamma + sqrt(gamma^2 - 1)) - (gamma + 3) sqrt(gamma^2 - 1)].
double heitler_annihilation_cm2(double T_MeV);

class ElectronPhysics
{
  public:
    explicit ElectronPhysics(Material const& material);

    Material const& material() const { return material_; }
    DensityEffect const& density_effect() const { return delta_; }

    //! Sternheimer delta at kinetic energy T [-].
    double delta(double T_MeV) const { return delta_.at_kinetic_energy(T_MeV); }

    //! Unrestricted collision stopping power: Bethe theory with the Møller (e-) or Bhabha
    //! (e+) cross section and the density effect (ICRU-37 Eqs. 2.1–2.4, no shell
    //! correction, as in ICRU-37/ESTAR). Bethe theory fails at energies comparable to
    //! the binding energies: below the maximum of the Bethe curve (T_max, about 0.1 keV
    //! in water, ~4 keV in lead) the value is continued as S(T_max) sqrt(T/T_max), the
    //! velocity-proportional low-energy form (Fermi & Teller 1947; Lindhard & Scharff
    //! 1961), so that ranges stay finite. Only relevant below ~10 keV for heavy elements.
    double collision_stopping(double T_MeV, Lepton lepton) const;

    //! Kinetic energy of the maximum of the Bethe collision stopping power [MeV].
    double bethe_maximum_MeV(Lepton lepton) const
    {
        return bethe_max_T_[lepton == Lepton::positron];
    }

    //! Restricted collision stopping power: energy losses W < cut (secondary electrons
    //! below the cut), Berger & Seltzer (NASA SP-3012 (1964)); ICRU-37 Eq. 2.12–2.13.
    //! The cut is clamped to T/2 for e- and T for e+ (then equals the unrestricted value).
    double restricted_collision_stopping(double T_MeV, double cut_MeV, Lepton lepton) const;

    //! Macroscopic cross section for producing a secondary electron above `cut_MeV`
    //! (Møller / Bhabha, integrated analytically) [cm^2/g].
    double hard_collision_cross_section(double T_MeV, double cut_MeV, Lepton lepton) const;

    //! Radiative stopping power: sum over elements of (N_A w_i/A_i) int_0^T k dsigma/dk dk
    //! (Bremsstrahlung.hh); positrons use the electron value.
    double radiative_stopping(double T_MeV) const;

    //! Radiative stopping restricted to photons below `k_cut_MeV`.
    double restricted_radiative_stopping(double T_MeV, double k_cut_MeV) const;

    //! Macroscopic cross section for emitting a photon above `k_cut_MeV` [cm^2/g].
    double hard_brems_cross_section(double T_MeV, double k_cut_MeV) const;

    //! k dsigma/dk for the material [cm^2/g] (the bremsstrahlung spectrum for sampling).
    double brems_k_dsigma_dk(double T_MeV, double k_MeV) const;

    //! Two-photon annihilation in flight of a positron with the material's electrons
    //! [cm^2/g] (heitler_annihilation_cm2 per electron).
    double annihilation_cross_section(double T_MeV) const;

    //! Elastic transport cross section sigma_1 = 2 pi int (1 - cos theta) dsigma/dOmega
    //! [cm^2/g] (ElasticScattering.hh); 1/(rho sigma_1) is the transport mean free path.
    double transport_cross_section(double T_MeV, Lepton lepton) const;

    //! Second elastic transport cross section sigma_2 (1 - P_2 weighting) [cm^2/g].
    double second_transport_cross_section(double T_MeV, Lepton lepton) const;

  private:
    Material material_;
    DensityEffect delta_;
    double electrons_per_gram_;   //!< N_A sum w Z/A [1/g]
    double bethe_max_T_[2]{0, 0}; //!< T of the Bethe maximum for e-, e+ [MeV]
    double bethe_max_S_[2]{0, 0}; //!< S_col there [MeV cm^2/g]

    double bethe_restricted(double T_MeV, double cut_MeV, Lepton lepton) const;

    double bethe_prefactor(double T_MeV) const;
    template <class F>
    double sum_over_elements(F&& per_atom_cm2) const;
};
} // namespace mcdose
