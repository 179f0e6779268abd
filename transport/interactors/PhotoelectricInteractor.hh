//! \file transport/interactors/PhotoelectricInteractor.hh
//! Photoelectric absorption: the photon disappears, a photo-electron leaves
//! the ionised shell with T = E - B, and the binding energy B is deposited
//! locally (fluorescence and Auger cascades are not followed: their energy is
//! part of B and stays at the interaction point).
//!
//! Shell: chosen from the element's shells in order of decreasing binding
//! energy; a shell whose edge is above E is skipped, otherwise it is taken
//! with its conditional probability (PhotoelectricData.hh). If no listed
//! shell is taken the electron comes from an outer shell whose binding is
//! neglected (B = 0).
//!
//! Direction: the Sauter K-shell distribution (F. Sauter, Ann. Phys. 11
//! (1931) 454), used for all shells as in PENELOPE (2018 manual, Sec. 2.2.1):
//! with beta, gamma of the electron, nu = 1 - cos(theta), A = 1/beta - 1,
//!   p(nu) ~ (2 - nu) nu / (A + nu)^3 [1/(A + nu) + B],  B = beta gamma (gamma-1)(gamma-2)/2,
//! sampled from pi(nu) ~ nu/(A+nu)^3 by inversion, whose cumulative on [0, 2]
//! is [nu/(A+nu)]^2 [(A+2)/2]^2, i.e. nu = A r / (1 - r), r = 2 sqrt(xi)/(A+2),
//! then accepted with g(nu)/g(0), g(nu) = (2 - nu)[1/(A+nu) + B], which is
//! positive and decreasing on [0, 2] for every beta.
//!
//! Energy balance is exact in floating point: T = E - B rounded, then the
//! deposit is E - T (exact by the Sterbenz lemma), so T + deposit == E.
//! Units: energies [MeV].
#pragma once

#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/Macros.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "transport/interactors/Interaction.hh"
#include "transport/interactors/PhotoelectricData.hh"

namespace mcdose
{
//! Sample cos(theta) of a photo-electron of kinetic energy T [MeV] from the
//! Sauter distribution (see the file comment).
template <class Real, class Engine>
MCDOSE_FUNCTION Real sample_sauter_cos_theta(Real electron_MeV, Engine& rng)
{
    Real const mc2 = Real(constants::electron_mass_MeV);
    Real const gamma = 1 + electron_MeV / mc2;
    Real beta = std::sqrt(electron_MeV * (electron_MeV + 2 * mc2)) / (electron_MeV + mc2);
    // A zero-energy electron has the beta -> 0 limit (a sin^2 dipole).
    constexpr Real beta_min = sizeof(Real) == 4 ? Real(1e-6) : Real(1e-12);
    beta = beta > beta_min ? beta : beta_min;
    Real const a = 1 / beta - 1;
    Real const b = beta * gamma * (gamma - 1) * (gamma - 2) / 2;
    Real const g0 = 2 * (1 / a + b);
    Real nu;
    for (int draw = 1;; ++draw)
    {
        Real const r = 2 * std::sqrt(generate_canonical<Real>(rng)) / (a + 2);
        nu = r < 1 ? a * r / (1 - r) : Real(2); // r <= 1; rounding may reach 1
        nu = nu < 2 ? nu : Real(2);
        Real const g = (2 - nu) * (1 / (a + nu) + b);
        if (generate_canonical<Real>(rng) * g0 <= g || draw == max_interaction_draws)
            break;
    }
    return 1 - nu;
}

template <class Real>
class PhotoelectricInteractor
{
  public:
    //! Incident photon energy [MeV] and direction; shells of the absorbing element.
    MCDOSE_FUNCTION PhotoelectricInteractor(Real energy_MeV, Array3<Real> const& direction,
                                            PhotoelectricShellsView<Real> const& shells)
        : energy_MeV_(energy_MeV), direction_(direction), shells_(shells)
    {
        MCDOSE_EXPECT(energy_MeV > 0);
        MCDOSE_EXPECT(shells.binding_MeV.size() == shells.probability.size());
    }

    template <class Engine>
    MCDOSE_FUNCTION Interaction<Real> operator()(Engine& rng) const
    {
        Real binding = 0;
        for (size_type s = 0; s < shells_.binding_MeV.size(); ++s)
        {
            if (shells_.binding_MeV[s] > energy_MeV_)
                continue;
            if (generate_canonical<Real>(rng) <= shells_.probability[s])
            {
                binding = shells_.binding_MeV[s];
                break;
            }
        }

        Interaction<Real> result;
        result.absorbed = true;
        Real const electron_MeV = energy_MeV_ - binding;
        result.energy_deposit_MeV = energy_MeV_ - electron_MeV; // exact: T + deposit == E
        result.num_secondaries = 1;
        auto& electron = result.secondaries[0];
        electron.type = ParticleType::electron;
        electron.energy_MeV = electron_MeV;
        Real const cos_theta = sample_sauter_cos_theta(electron_MeV, rng);
        electron.direction =
            rotate_azimuth_fraction(direction_, cos_theta, generate_canonical<Real>(rng));
        return result;
    }

  private:
    Real energy_MeV_;
    Array3<Real> direction_;
    PhotoelectricShellsView<Real> shells_;
};
} // namespace mcdose
