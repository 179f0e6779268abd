//! \file transport/interactors/RayleighInteractor.hh
//! Rayleigh (coherent) scattering: the photon changes direction, not energy.
//!
//! Model: Thomson cross section times the squared molecular form factor,
//!   d sigma / d cos(theta) ~ (1 + cos^2 theta)/2 F^2(x),
//!   x^2 = k^2 (1 - cos theta)/2,  k = E / hc [1/Angstrom]
//! (J. H. Hubbell et al., J. Phys. Chem. Ref. Data 4 (1975) 471). Since
//! d(x^2) = -(k^2/2) d cos(theta), x^2 is sampled on [0, k^2] from F^2 alone
//! by inverting its running integral, then accepted with (1 + cos^2)/2 <= 1
//! (the scheme of the PENELOPE-2018 manual, Sec. 2.1, and of EGSnrc). The
//! inversion is exact for the table's piecewise-linear F^2: within an
//! interval, A(x_i^2 + d) = A_i + F_i^2 d + s d^2 / 2, solved for d in the
//! cancellation-free form d = 2 r / (F_i^2 + sqrt(F_i^4 + 2 s r)).
//! Units: energy [MeV], x^2 [1/Angstrom^2].
#pragma once

#include <cmath>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "transport/interactors/Interaction.hh"
#include "transport/interactors/RayleighData.hh"
#include "transport/interactors/TableLookup.hh"

namespace mcdose
{
template <class Real>
class RayleighInteractor
{
  public:
    //! Incident photon energy [MeV] and direction; the material's F^2 table.
    MCDOSE_FUNCTION RayleighInteractor(Real energy_MeV, Array3<Real> const& direction,
                                       RayleighTableView<Real> const& table)
        : energy_MeV_(energy_MeV), direction_(direction), table_(table)
    {
        MCDOSE_EXPECT(energy_MeV > 0);
        MCDOSE_EXPECT(table.x2_per_A2.size() >= 2 && table.f2.size() == table.x2_per_A2.size() &&
                      table.cumulative.size() == table.x2_per_A2.size());
    }

    template <class Engine>
    MCDOSE_FUNCTION Interaction<Real> operator()(Engine& rng) const
    {
        Real const k = energy_MeV_ / Real(hc_MeV_A);
        Real const k2 = k * k;
        Real const a_max = this->cumulative_at(k2);
        MCDOSE_ASSERT(a_max > 0);

        Real cos_theta;
        int draws = 0;
        do
        {
            Real const x2 = this->invert_cumulative(generate_canonical<Real>(rng) * a_max);
            cos_theta = 1 - 2 * x2 / k2;
            cos_theta = cos_theta < -1 ? Real(-1) : (cos_theta > 1 ? Real(1) : cos_theta);
        } while (2 * generate_canonical<Real>(rng) > 1 + cos_theta * cos_theta &&
                 ++draws < max_interaction_draws);

        Interaction<Real> result;
        result.energy_MeV = energy_MeV_;
        result.direction =
            rotate_azimuth_fraction(direction_, cos_theta, generate_canonical<Real>(rng));
        return result;
    }

  private:
    Real energy_MeV_;
    Array3<Real> direction_;
    RayleighTableView<Real> table_; // a copy of three spans (no dangling reference)

    //! Running integral of F^2 up to x2 (0 beyond the table's last point).
    MCDOSE_FUNCTION Real cumulative_at(Real x2) const
    {
        auto const& g = table_.x2_per_A2;
        size_type const last = g.size() - 1;
        if (!(x2 < g[last]))
            return table_.cumulative[last];
        size_type const i = find_interval(g, x2);
        Real const d = x2 - g[i];
        Real const slope = (table_.f2[i + 1] - table_.f2[i]) / (g[i + 1] - g[i]);
        return table_.cumulative[i] + d * (table_.f2[i] + slope * d / 2);
    }

    //! x2 with cumulative_at(x2) = target (0 <= target <= cumulative_at(k^2)).
    MCDOSE_FUNCTION Real invert_cumulative(Real target) const
    {
        auto const& g = table_.x2_per_A2;
        size_type const i = find_interval(table_.cumulative, target);
        Real const r = target - table_.cumulative[i];
        Real const width = g[i + 1] - g[i];
        if (!(r > 0))
            return g[i];
        Real const f = table_.f2[i];
        Real const slope = (table_.f2[i + 1] - f) / width;
        Real disc = f * f + 2 * slope * r;
        disc = disc > 0 ? disc : Real(0);
        Real const denom = f + std::sqrt(disc);
        Real d = denom > 0 ? 2 * r / denom : width;
        d = d < width ? d : width;
        return g[i] + d;
    }
};
} // namespace mcdose
