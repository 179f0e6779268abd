//! \file transport/interactors/PairProductionInteractor.hh
//! Electron-positron pair production in the field of a nucleus (triplet
//! production is folded in through the target selection, PairProductionData.hh).
//!
//! Energies: the Bethe-Heitler cross section with screening and Coulomb
//! correction in the form of J. C. Butcher and H. Messel, Nucl. Phys. 20
//! (1960) 15 (also Geant4 Physics Reference Manual, "Gamma conversion",
//! and EGS4, SLAC-265, Sec. 2.7). With eps = (T_- + m c^2)/E the fraction of
//! the photon energy E given to the electron, eps0 = m c^2 / E,
//!   d sigma / d eps ~ [eps^2 + (1-eps)^2] (Phi1(delta) - F/2)
//!                   + (2/3) eps (1-eps) (Phi2(delta) - F/2),
//!   delta = 136 eps0 Z^(-1/3) / (eps (1 - eps)),
//!   Phi1 = 20.867 - 3.242 delta + 0.625 delta^2,  Phi2 = 20.209 - 1.930 delta - 0.086 delta^2
//!       (delta <= 1),   Phi1 = Phi2 = 21.12 - 4.184 ln(delta + 0.952)  (delta > 1),
//!   F = (8/3) ln Z, plus 8 f_c(Z) above 50 MeV.
//! The cross section is symmetric about eps = 1/2. With u = eps - 1/2 it
//! equals (2/3) u^2 F1(delta) + (1/3) F2(delta), F1 = 3 Phi1 - Phi2 - F,
//! F2 = (3/2) Phi1 + (1/2) Phi2 - F (both largest at eps = 1/2), so |u| is
//! sampled on [0, 1/2 - eps0] from u^2 or from a constant with the weights of
//! the two terms and accepted with F_i(delta)/F_i(delta_min); which lepton
//! gets eps is then decided by a fair coin. Below 2 MeV, where the screened
//! Born cross section is poor and pair production is rare, eps is sampled
//! uniformly in [eps0, 1 - eps0] (the approximation of EGS4 and Geant4).
//!
//! Directions: polar angle of each lepton from the leading term of the
//! Sauter-Gluckstern-Hull distribution, p(cos) ~ (1 - beta cos)^-2, by
//! inversion: cos = (2 xi - 1 + beta) / ((2 xi - 1) beta + 1) (PENELOPE-2018
//! manual, Sec. 2.4.1); the positron's azimuth is opposite the electron's.
//!
//! Energy balance: T_- + T_+ = E - 2 m c^2 exactly in floating point (each is
//! recomputed from the other by an exact subtraction) and the rest energy
//! 2 m c^2 is reported as `rest_energy_created_MeV` (so that
//! (T_- + T_+) + rest == E); the positron carries it until it annihilates.
//! Units: energies [MeV].
#pragma once

#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "transport/interactors/Interaction.hh"
#include "transport/interactors/PairProductionData.hh"

namespace mcdose
{
//! Screening functions Phi1, Phi2 of Butcher & Messel at delta (see above).
template <class Real>
struct PairScreening
{
    Real phi1;
    Real phi2;
};

template <class Real>
MCDOSE_FORCEINLINE_FUNCTION PairScreening<Real> pair_screening(Real delta)
{
    if (delta <= 1)
    {
        return {Real(20.867) - delta * (Real(3.242) - Real(0.625) * delta),
                Real(20.209) - delta * (Real(1.930) + Real(0.086) * delta)};
    }
    Real const phi = Real(21.12) - Real(4.184) * std::log(delta + Real(0.952));
    return {phi, phi};
}

//! Probability density (unnormalised) of eps for element `el` at energy E
//! [MeV], the function the sampler draws from above 2 MeV (exposed for tests).
template <class Real>
MCDOSE_FUNCTION Real pair_energy_density(PairElementView<Real> const& el, Real energy_MeV, Real eps)
{
    Real const eps0 = Real(constants::electron_mass_MeV) / energy_MeV;
    Real const f = energy_MeV > 50 ? el.coulomb_term : el.log_term;
    Real const delta = 136 * eps0 * el.inv_cbrt_z / (eps * (1 - eps));
    auto const p = pair_screening(delta);
    Real const value = (eps * eps + (1 - eps) * (1 - eps)) * (p.phi1 - f / 2) +
                       Real(2) / 3 * eps * (1 - eps) * (p.phi2 - f / 2);
    return value > 0 ? value : Real(0);
}

template <class Real>
class PairProductionInteractor
{
  public:
    //! Energy below which eps is sampled uniformly [MeV].
    static constexpr Real uniform_below_MeV = 2;

    //! Incident photon energy [MeV] (> 2 m c^2) and direction; target element.
    MCDOSE_FUNCTION PairProductionInteractor(Real energy_MeV, Array3<Real> const& direction,
                                             PairElementView<Real> const& element)
        : energy_MeV_(energy_MeV), direction_(direction), element_(element)
    {
        MCDOSE_EXPECT(energy_MeV > 2 * Real(constants::electron_mass_MeV));
    }

    template <class Engine>
    MCDOSE_FUNCTION Interaction<Real> operator()(Engine& rng) const
    {
        Real const mc2 = Real(constants::electron_mass_MeV);
        Real const eps0 = mc2 / energy_MeV_;
        Real eps;
        if (energy_MeV_ < uniform_below_MeV)
        {
            eps = eps0 + (1 - 2 * eps0) * generate_canonical<Real>(rng);
        }
        else
        {
            eps = this->sample_screened(eps0, rng);
            if (generate_canonical<Real>(rng) <= Real(0.5))
                eps = 1 - eps;
        }

        Interaction<Real> result;
        result.absorbed = true;
        Real const kinetic = energy_MeV_ - 2 * mc2;
        result.rest_energy_created_MeV = energy_MeV_ - kinetic;
        Real t_minus = (eps - eps0) * energy_MeV_;
        t_minus = t_minus < 0 ? Real(0) : (t_minus > kinetic ? kinetic : t_minus);
        Real const t_plus = kinetic - t_minus;
        t_minus = kinetic - t_plus; // exact: t_minus + t_plus == kinetic

        result.num_secondaries = 2;
        result.secondaries[0].type = ParticleType::electron;
        result.secondaries[0].energy_MeV = t_minus;
        result.secondaries[1].type = ParticleType::positron;
        result.secondaries[1].energy_MeV = t_plus;
        auto const [s, c] = sample_azimuth_sincos<Real>(rng);
        result.secondaries[0].direction = rotate(direction_, sample_lepton_cos(t_minus, rng), c, s);
        result.secondaries[1].direction =
            rotate(direction_, sample_lepton_cos(t_plus, rng), -c, -s);
        return result;
    }

    //! cos(theta) of a lepton of kinetic energy T [MeV] from (1 - beta cos)^-2.
    template <class Engine>
    MCDOSE_FUNCTION static Real sample_lepton_cos(Real kinetic_MeV, Engine& rng)
    {
        Real const mc2 = Real(constants::electron_mass_MeV);
        Real const beta = std::sqrt(kinetic_MeV * (kinetic_MeV + 2 * mc2)) / (kinetic_MeV + mc2);
        Real const w = 2 * generate_canonical<Real>(rng) - 1;
        Real cos_theta = (w + beta) / (w * beta + 1);
        return cos_theta < -1 ? Real(-1) : (cos_theta > 1 ? Real(1) : cos_theta);
    }

  private:
    Real energy_MeV_;
    Array3<Real> direction_;
    PairElementView<Real> element_;

    //! eps in [eps0, 1/2] from the screened Bethe-Heitler cross section.
    template <class Engine>
    MCDOSE_FUNCTION Real sample_screened(Real eps0, Engine& rng) const
    {
        Real const f = energy_MeV_ > 50 ? element_.coulomb_term : element_.log_term;
        Real const delta_scale = 136 * eps0 * element_.inv_cbrt_z; // delta = scale/(eps(1-eps))
        auto const smin = pair_screening(4 * delta_scale);
        Real const f1_max = 3 * smin.phi1 - smin.phi2 - f;
        Real const f2_max = Real(1.5) * smin.phi1 + Real(0.5) * smin.phi2 - f;
        Real const half_width = Real(0.5) - eps0; // |u| in [0, half_width]
        // Weights of the two terms: int (2/3) u^2 F1max du : int (1/3) F2max du.
        Real const w1 = f1_max > 0 ? Real(2) / 3 * half_width * half_width * f1_max : Real(0);
        Real const w2 = f2_max > 0 ? f2_max : Real(0);
        if (!(w1 + w2 > 0))
        {
            // Screening so strong the bracket vanishes even at eps = 1/2
            // (cannot happen above 2 MeV for Z <= 100): fall back to uniform.
            return eps0 + half_width * generate_canonical<Real>(rng);
        }
        for (int draw = 1;; ++draw)
        {
            bool const first = generate_canonical<Real>(rng) * (w1 + w2) < w1;
            Real const xi = generate_canonical<Real>(rng);
            Real const u = first ? half_width * std::cbrt(xi) : half_width * xi;
            Real const eps = Real(0.5) - u;
            auto const sc = pair_screening(delta_scale / (eps * (1 - eps)));
            Real const accept = first ? (3 * sc.phi1 - sc.phi2 - f) / f1_max
                                      : (Real(1.5) * sc.phi1 + Real(0.5) * sc.phi2 - f) / f2_max;
            if (generate_canonical<Real>(rng) <= accept || draw == max_interaction_draws)
                return eps;
        }
    }
};
} // namespace mcdose
