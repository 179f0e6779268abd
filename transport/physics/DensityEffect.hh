//! \file transport/physics/DensityEffect.hh
//! Sternheimer density-effect correction delta computed for a material from its atomic
//! shells (Sternheimer, Phys. Rev. 88, 851 (1952); Sternheimer, Seltzer & Berger,
//! Phys. Rev. B 26, 6067 (1982); ICRU Report 37 (1984) Sec. 4.3, Eqs. 4.16–4.21).
#pragma once

#include <vector>

#include "phantoms/materials/Material.hh"

namespace mcdose
{
class DensityEffect
{
  public:
    //! Oscillators from xraylib shell occupancies (ElectronConfig) and binding energies
    //! (EdgeEnergy); conduction electrons (material.conductor: the outermost principal
    //! shell) get l = sqrt(f_c). The binding energies are scaled by the Sternheimer
    //! factor rho_s chosen so that sum_i f_i ln l_i reproduces the material's I.
    explicit DensityEffect(Material const& material);

    //! delta for a charged particle with beta^2 = v^2/c^2 [-].
    double operator()(double beta_squared) const;

    //! delta for an electron or positron of kinetic energy T [MeV].
    double at_kinetic_energy(double T_MeV) const;

    double plasma_energy_eV() const { return plasma_energy_eV_; }
    double sternheimer_factor() const { return rho_s_; }
    //! Number of oscillators (shells of all elements, with the conduction level).
    std::size_t num_oscillators() const { return f_.size(); }

  private:
    std::vector<double> f_;   //!< oscillator strengths (electron fractions), sum 1
    std::vector<double> l2_;  //!< squared oscillator energies l_i^2 in units of the plasma energy
    std::vector<double> nu2_; //!< squared scaled binding energies (rho_s E_i / h nu_p)^2
    double plasma_energy_eV_{0};
    double rho_s_{1};
    double threshold_{0}; //!< sum f_i / nu_i^2: delta = 0 while 1/beta^2 - 1 >= this
};
} // namespace mcdose
