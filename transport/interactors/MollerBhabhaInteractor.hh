//! \file transport/interactors/MollerBhabhaInteractor.hh
//! Hard inelastic collision of an electron (Møller) or positron (Bhabha) with
//! an atomic electron treated as free and at rest, energy transfer W above the
//! delta-ray cut W_cc (class II condensed history; softer losses are in the
//! restricted stopping power).
//!
//! With x = W / T (T: kinetic energy of the incident particle):
//! - Møller (Ann. Phys. 14, 531 (1932)), x in [W_cc/T, 1/2] (the faster of the
//!   two identical electrons is the primary):
//!     dsigma/dx ~ 1/x^2 + 1/(1-x)^2 - g/(x(1-x)) + c,
//!     g = (2 gamma - 1)/gamma^2, c = ((gamma - 1)/gamma)^2;
//! - Bhabha (Proc. R. Soc. A 154, 195 (1936)), x in [W_cc/T, 1]:
//!     dsigma/dx ~ 1/(beta^2 x^2) - B1/x + B2 - B3 x + B4 x^2,
//!     y = 1/(gamma+1), B1 = 2 - y^2, B2 = (1-2y)(3+y^2), B4 = (1-2y)^3,
//!     B3 = B4 + (1-2y)^2
//! (the same forms integrated in transport/physics/ElectronPhysics.cc, so the
//! sampled spectrum and the hard cross section agree). Sampling: x from the
//! 1/x^2 part by inversion, accepted with x^2 dsigma/dx over its maximum,
//! which is 2 - g + c/4 (Møller, at x = 1/2) and 1 (Bhabha, at x -> 0).
//! Angles from two-body kinematics with the target at rest: a product with
//! kinetic energy T' leaves at cos^2 theta = T'(T + 2mc^2) / (T (T' + 2mc^2)),
//! the two in opposite azimuths.
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
//! cos(theta) of a product of kinetic energy t leaving a collision of a
//! particle of kinetic energy T with a free electron at rest.
template <class Real>
MCDOSE_FORCEINLINE_FUNCTION Real binary_collision_cos_theta(Real T, Real t)
{
    Real const two_m = 2 * Real(constants::electron_mass_MeV);
    Real const c2 = t * (T + two_m) / (T * (t + two_m));
    return c2 >= 1 ? Real(1) : std::sqrt(c2);
}

template <class Real>
class MollerBhabhaInteractor
{
  public:
    MCDOSE_FUNCTION MollerBhabhaInteractor(Real energy_MeV, Array3<Real> const& direction,
                                           Real cut_MeV, bool positron)
        : T_(energy_MeV), dir_(direction), cut_(cut_MeV), positron_(positron)
    {
    }

    //! x = W/T sampled from the Møller or Bhabha distribution above the cut.
    template <class Engine>
    MCDOSE_FUNCTION Real sample_fraction(Engine& rng) const
    {
        Real const gamma = 1 + T_ / Real(constants::electron_mass_MeV);
        Real const x_min = cut_ / T_;
        Real const x_max = positron_ ? Real(1) : Real(0.5);
        if (!(x_min < x_max))
            return x_max; // no hard collision possible: caller's tables give sigma = 0
        Real const shrink = 1 - x_min / x_max;
        if (!positron_)
        {
            Real const g = (2 * gamma - 1) / (gamma * gamma);
            Real const c = (gamma - 1) * (gamma - 1) / (gamma * gamma);
            Real const bound = 2 - g + c / 4;
            for (int trial = 0; trial < 1000; ++trial)
            {
                Real const x = x_min / (1 - generate_canonical<Real>(rng) * shrink);
                Real const y = x / (1 - x);
                Real const h = 1 + y * y - g * y + c * x * x;
                if (generate_canonical<Real>(rng) * bound <= h)
                    return x;
            }
            return x_min;
        }
        Real const beta2 = 1 - 1 / (gamma * gamma);
        Real const y = 1 / (gamma + 1);
        Real const y12 = 1 - 2 * y;
        Real const b1 = 2 - y * y;
        Real const b2 = y12 * (3 + y * y);
        Real const b4 = y12 * y12 * y12;
        Real const b3 = b4 + y12 * y12;
        for (int trial = 0; trial < 1000; ++trial)
        {
            Real const x = x_min / (1 - generate_canonical<Real>(rng) * shrink);
            Real const h = 1 - beta2 * x * (b1 - x * (b2 - x * (b3 - x * b4)));
            if (generate_canonical<Real>(rng) <= h)
                return x;
        }
        return x_min;
    }

    template <class Engine>
    MCDOSE_FUNCTION Interaction<Real> operator()(Engine& rng) const
    {
        Real const W = this->sample_fraction(rng) * T_;
        Real const t_primary = T_ - W;
        Real const cos_p = binary_collision_cos_theta(T_, t_primary);
        Real const cos_d = binary_collision_cos_theta(T_, W);
        auto const [s, c] = sample_azimuth_sincos<Real>(rng);

        Interaction<Real> r;
        r.energy_MeV = t_primary;
        r.direction = rotate(dir_, cos_p, c, s);
        r.num_secondaries = 1;
        r.secondaries[0].type = ParticleType::electron;
        r.secondaries[0].energy_MeV = W;
        r.secondaries[0].direction = rotate(dir_, cos_d, -c, -s);
        return r;
    }

  private:
    Real T_;
    Array3<Real> dir_;
    Real cut_;
    bool positron_;
};
} // namespace mcdose
