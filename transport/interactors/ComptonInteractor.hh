//! \file transport/interactors/ComptonInteractor.hh
//! Compton (incoherent) scattering of a photon on an atomic electron.
//!
//! Model: the Klein-Nishina cross section (O. Klein and Y. Nishina, Z. Phys.
//! 52 (1929) 853), in terms of eps = E'/E and kappa = E / (m c^2),
//!   d sigma / d eps ~ (1/eps + eps) [1 - eps sin^2(theta) / (1 + eps^2)],
//!   eps = 1 / (1 + kappa (1 - cos theta)),  eps in [eps0, 1], eps0 = 1/(1+2 kappa),
//! sampled with the composition-rejection scheme of J. C. Butcher and
//! H. Messel, Nucl. Phys. 20 (1960) 15 (as in EGS4, SLAC-265, Sec. 2.9):
//! 1/eps + eps = a1 f1(eps) + a2 f2(eps), f1 ~ 1/eps with a1 = ln(1/eps0),
//! f2 ~ eps with a2 = (1 - eps0^2)/2, each sampled by inversion, then
//! accepted with the bracket g(eps) = 1 - eps sin^2 / (1 + eps^2) <= 1.
//!
//! Binding effects (optional): the Waller-Hartree incoherent scattering
//! function S(x) multiplies the Klein-Nishina cross section (J. H. Hubbell et
//! al., J. Phys. Chem. Ref. Data 4 (1975) 471); a sampled angle is kept with
//! probability S(x)/S(inf), x = (E/hc) sin(theta/2) [1/Angstrom], and
//! resampled otherwise (PENELOPE-2018 manual, Sec. 2.3 describes the same
//! suppression of forward scattering). Doppler broadening and the binding
//! energy of the struck electron are not modelled: the electron receives
//! T = E - E' [MeV].
//!
//! Energy balance is exact in floating point: T = E - E' is rounded and then
//! E' is recomputed as E - T, which is exact (Sterbenz lemma), so E' + T == E.
//! The electron direction follows from momentum conservation,
//! p_e = E u - E' u' (units MeV/c).
#pragma once

#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "transport/interactors/ComptonData.hh"
#include "transport/interactors/Interaction.hh"
#include "transport/interactors/TableLookup.hh"

namespace mcdose
{
template <class Real>
class ComptonInteractor
{
  public:
    //! Incident photon energy [MeV] and direction; `binding` is the
    //! material's S(x) table, or nullptr for free-electron Klein-Nishina.
    MCDOSE_FUNCTION ComptonInteractor(Real energy_MeV, Array3<Real> const& direction,
                                      IncoherentTableView<Real> const* binding = nullptr)
        : energy_MeV_(energy_MeV), direction_(direction), binding_(binding)
    {
        MCDOSE_EXPECT(energy_MeV > 0);
        MCDOSE_EXPECT(binding == nullptr || binding->electrons > 0);
    }

    //! Sample the scattered photon and the Compton electron.
    template <class Engine>
    MCDOSE_FUNCTION Interaction<Real> operator()(Engine& rng) const
    {
        Real const kappa = energy_MeV_ / Real(constants::electron_mass_MeV);
        Real const eps0 = 1 / (1 + 2 * kappa);
        Real const a1 = -fast_log(eps0);
        Real const a2 = (1 - eps0 * eps0) / 2;
        Real const inv_lambda = energy_MeV_ / Real(hc_MeV_A); // 1/lambda [1/Angstrom]

        Real eps;
        Real one_minus_cos;
        for (int draw = 1;; ++draw)
        {
            bool const last = draw == max_interaction_draws;
            if (generate_canonical<Real>(rng) * (a1 + a2) < a1)
            {
                // f1 ~ 1/eps on [eps0, 1]: eps = eps0^xi
                eps = fast_exp(-a1 * generate_canonical<Real>(rng));
            }
            else
            {
                // f2 ~ eps: eps^2 uniform on [eps0^2, 1]
                Real const eps2 = eps0 * eps0 + (1 - eps0 * eps0) * generate_canonical<Real>(rng);
                eps = std::sqrt(eps2);
            }
            one_minus_cos = (1 - eps) / (eps * kappa);
            one_minus_cos =
                one_minus_cos < 0 ? Real(0) : (one_minus_cos > 2 ? Real(2) : one_minus_cos);
            Real const sin2 = one_minus_cos * (2 - one_minus_cos);
            Real const g = 1 - eps * sin2 / (1 + eps * eps);
            if (generate_canonical<Real>(rng) > g && !last)
                continue;
            if (binding_)
            {
                // x = sin(theta/2) / lambda, sin^2(theta/2) = (1 - cos)/2
                Real const x = inv_lambda * std::sqrt(one_minus_cos / 2);
                Real const s = (x < binding_->x_per_A[binding_->x_per_A.size() - 1])
                                   ? interpolate_linear(binding_->x_per_A, binding_->s, x)
                                   : binding_->electrons;
                if (generate_canonical<Real>(rng) * binding_->electrons > s && !last)
                    continue;
            }
            break;
        }

        Interaction<Real> result;
        Real const electron_MeV = energy_MeV_ - eps * energy_MeV_;
        result.energy_MeV = energy_MeV_ - electron_MeV; // exact: E' + T == E
        result.direction =
            rotate_azimuth_fraction(direction_, 1 - one_minus_cos, generate_canonical<Real>(rng));
        result.num_secondaries = 1;
        auto& electron = result.secondaries[0];
        electron.type = ParticleType::electron;
        electron.energy_MeV = electron_MeV;
        Array3<Real> p;
        for (int a = 0; a < 3; ++a)
            p[a] = energy_MeV_ * direction_[a] - result.energy_MeV * result.direction[a];
        // A vanishing transfer leaves no direction to conserve: keep the photon's.
        electron.direction = dot(p, p) > 0 && electron_MeV > 0 ? normalized(p) : direction_;
        return result;
    }

  private:
    Real energy_MeV_;
    Array3<Real> direction_;
    IncoherentTableView<Real> const* binding_;
};
} // namespace mcdose
