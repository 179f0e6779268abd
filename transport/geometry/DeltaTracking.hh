//! \file transport/geometry/DeltaTracking.hh
//! Woodcock (delta) tracking through the voxel grid: flights are sampled with
//! a majorant attenuation coefficient mu_max >= mu(voxel) everywhere, and a
//! collision at a point in voxel v is real with probability mu(v) / mu_max,
//! otherwise virtual (the photon continues unchanged). No voxel boundary is
//! computed. Reference: E. R. Woodcock et al., ANL-7050 (1965) p. 557; for
//! its use in voxel dose engines, e.g. X. Jia et al., Phys. Med. Biol. 57
//! (2012) 7783 (gDPM). Units: lengths [cm], attenuation coefficients [1/cm].
#pragma once

#include <cmath>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "rng/Distributions.hh"
#include "transport/geometry/VoxelNavigator.hh"

namespace mcdose
{
//! Outcome of one delta-tracking walk to the next real collision.
template <class Real>
struct DeltaTrackingResult
{
    bool escaped{false};       //!< left the grid before a real collision
    Real distance_cm{0};       //!< total path length travelled in the grid [cm]
    int virtual_collisions{0}; //!< rejected (virtual) collisions on the way
};

/*!
 * Walk the track to its next real collision, or to the grid exit.
 *
 * `mu_per_cm(voxel)` returns the attenuation coefficient [1/cm] of a voxel
 * (linear index) at the track's energy; it must not exceed
 * `majorant_per_cm` (checked in debug builds). On return the state holds the
 * collision point and its voxel (`inside` true), or the exit point (`inside`
 * false). The start must be inside the grid (call VoxelNavigator::initialize).
 * Each flight uses one generate_canonical for the distance and one for the
 * real/virtual decision.
 */
template <class Real, class MuFunction, class Engine>
MCDOSE_FUNCTION DeltaTrackingResult<Real>
delta_track(VoxelNavigator<Real> const& nav, VoxelTrackState<Real>& state, Real majorant_per_cm,
            MuFunction const& mu_per_cm, Engine& rng)
{
    MCDOSE_EXPECT(state.inside && majorant_per_cm > 0);
    DeltaTrackingResult<Real> result;
    // Distance left to the exit of the (convex) grid box along the ray.
    Real to_exit = nav.intersect_grid(state.position_cm, state.direction).exit_cm;
    for (;;)
    {
        Real const flight = sample_exponential<Real>(rng, Real(1) / majorant_per_cm);
        if (!(flight < to_exit))
        {
            // Leaves the grid: move to the exit point on the box.
            state.position_cm =
                axpy(to_exit > 0 ? to_exit : Real(0), state.direction, state.position_cm);
            result.distance_cm += to_exit > 0 ? to_exit : Real(0);
            state.inside = false;
            result.escaped = true;
            return result;
        }
        state.position_cm = axpy(flight, state.direction, state.position_cm);
        to_exit -= flight;
        result.distance_cm += flight;
        for (int a = 0; a < 3; ++a)
        {
            state.ijk[a] = nav.locate(a, state.position_cm[a], state.direction[a]);
        }
        Real const mu = mu_per_cm(nav.voxel(state));
        MCDOSE_ASSERT(mu >= 0 && mu <= majorant_per_cm * Real(1.000001));
        if (generate_canonical<Real>(rng) * majorant_per_cm <= mu)
            return result;
        ++result.virtual_collisions;
    }
}
} // namespace mcdose
