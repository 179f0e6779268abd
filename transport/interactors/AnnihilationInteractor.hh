//! \file transport/interactors/AnnihilationInteractor.hh
//! Two-photon annihilation of a positron in flight with a free electron at rest
//! (Heitler, The Quantum Theory of Radiation, 3rd ed. (1954); in the form of
//! the PENELOPE-2018 manual, Sec. 3.4, Eqs. 3.185-3.190).
//!
//! With gamma the positron's Lorentz factor and zeta the fraction of the
//! available energy T + 2mc^2 taken by one photon,
//!     dsigma/dzeta ~ S(zeta) = -(gamma+1)^2 + (gamma^2+4gamma+1)/zeta - 1/zeta^2,
//!     zeta in [zeta_min, 1 - zeta_min], zeta_min = 1/(gamma + 1 + sqrt(gamma^2-1))
//! (the second photon takes 1 - zeta). Sampling: zeta from 1/zeta by inversion,
//! accepted with zeta S(zeta) / max = zeta S / (gamma^2 + 2 gamma - 1) (the
//! maximum of zeta S, at zeta = 1/(gamma+1)). Angles from energy-momentum
//! conservation: cos theta = (gamma + 1 - 1/zeta) / sqrt(gamma^2 - 1), the two
//! photons in opposite azimuths. The per-electron total cross section is
//! heitler_annihilation_cm2 (transport/physics/ElectronPhysics.hh).
#pragma once

#include <cmath>

#include "core/Constants.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "transport/interactors/Interaction.hh"

namespace mcdose
{
template <class Real>
class AnnihilationInteractor
{
  public:
    MCDOSE_FUNCTION AnnihilationInteractor(Real energy_MeV, Array3<Real> const& direction)
        : T_(energy_MeV), dir_(direction)
    {
    }

    //! Energy fraction zeta of the first photon.
    template <class Engine>
    MCDOSE_FUNCTION Real sample_fraction(Engine& rng) const
    {
        Real const gamma = 1 + T_ / Real(constants::electron_mass_MeV);
        Real const p = std::sqrt((gamma - 1) * (gamma + 1));
        Real const z_min = 1 / (gamma + 1 + p);
        if (!(z_min < Real(0.5)))
            return Real(0.5);
        Real const ratio = (1 - z_min) / z_min;
        Real const a = gamma * gamma + 4 * gamma + 1;
        Real const bound = gamma * gamma + 2 * gamma - 1;
        for (int trial = 0; trial < 1000; ++trial)
        {
            Real const z = z_min * std::pow(ratio, generate_canonical<Real>(rng));
            Real const zs = a - (gamma + 1) * (gamma + 1) * z - 1 / z;
            if (generate_canonical<Real>(rng) * bound <= zs)
                return z;
        }
        return Real(0.5);
    }

    template <class Engine>
    MCDOSE_FUNCTION Interaction<Real> operator()(Engine& rng) const
    {
        Real const m = Real(constants::electron_mass_MeV);
        Real const gamma = 1 + T_ / m;
        Real const p = std::sqrt((gamma - 1) * (gamma + 1));
        Real const z = this->sample_fraction(rng);
        Real const available = T_ + 2 * m;
        auto cos_of = [&](Real zeta)
        {
            Real c = p > 0 ? (gamma + 1 - 1 / zeta) / p : Real(0);
            return c > 1 ? Real(1) : (c < -1 ? Real(-1) : c);
        };
        auto const [s, c] = sample_azimuth_sincos<Real>(rng);

        Interaction<Real> r;
        r.absorbed = true;
        r.num_secondaries = 2;
        r.secondaries[0].type = ParticleType::photon;
        r.secondaries[0].energy_MeV = z * available;
        r.secondaries[0].direction = rotate(dir_, cos_of(z), c, s);
        r.secondaries[1].type = ParticleType::photon;
        r.secondaries[1].energy_MeV = available - r.secondaries[0].energy_MeV;
        r.secondaries[1].direction = rotate(dir_, cos_of(1 - z), -c, -s);
        r.rest_energy_created_MeV = -2 * m;
        return r;
    }

  private:
    Real T_;
    Array3<Real> dir_;
};
} // namespace mcdose
