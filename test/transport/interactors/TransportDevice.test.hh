//! \file test/transport/interactors/TransportDevice.test.hh
//! One small kernel per functor family (voxel traversal, a source, the
//! Compton sampler), and the per-item functions both the kernels and the
//! host references call, so that host and device run the same code on the
//! same Philox streams (history id = item index).
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "rng/Philox.hh"
#include "sources/SourceView.hh"
#include "transport/geometry/VoxelNavigator.hh"
#include "transport/interactors/ComptonInteractor.hh"

namespace mcdose::test
{
//! One ray for the traversal kernel and its result.
template <class Real>
struct Ray
{
    Array3<Real> position_cm;
    Array3<Real> direction;
};
template <class Real>
struct RayResult
{
    Real path_cm{0}; //!< sum of the step lengths inside the grid
    int steps{0};    //!< voxels visited
    size_type last_voxel{0};
};

template <class Real>
MCDOSE_FUNCTION RayResult<Real> traverse_ray(VoxelGeometryView<Real> const& grid,
                                             Ray<Real> const& ray)
{
    VoxelNavigator<Real> nav(grid);
    VoxelTrackState<Real> s;
    s.position_cm = ray.position_cm;
    s.direction = ray.direction;
    nav.initialize(s);
    RayResult<Real> r;
    while (s.inside)
    {
        r.last_voxel = nav.voxel(s);
        auto const b = nav.find_next_boundary(s);
        r.path_cm += b.distance_cm;
        ++r.steps;
        nav.cross_boundary(s, b);
    }
    return r;
}

//! Source particle i (its own Philox history).
template <class Real>
MCDOSE_FUNCTION Particle<Real> sample_source(SourceView<Real> const& source,
                                             PhiloxView const& rng_view, size_type thread,
                                             size_type i)
{
    PhiloxEngine rng(rng_view, thread);
    rng.begin_history(i);
    return source(rng);
}

//! Compton interaction i of a photon of energy E along +z.
template <class Real>
MCDOSE_FUNCTION Interaction<Real> sample_compton(Real energy_MeV, PhiloxView const& rng_view,
                                                 size_type thread, size_type i)
{
    PhiloxEngine rng(rng_view, thread);
    rng.begin_history(i);
    ComptonInteractor<Real> interact(energy_MeV, Array3<Real>{{0, 0, 1}});
    return interact(rng);
}

#if MCDOSE_USE_CUDA
template <class Real>
std::vector<RayResult<Real>> device_traverse(VoxelGeometryView<Real> const& grid,
                                             std::vector<Ray<Real>> const& rays);
template <class Real>
std::vector<Particle<Real>> device_sample_source(SourceView<Real> const& device_source,
                                                 PhiloxRngParams const& rng, size_type n);
template <class Real>
std::vector<Interaction<Real>> device_compton(Real energy_MeV, PhiloxRngParams const& rng,
                                              size_type n);
#else
template <class Real>
std::vector<RayResult<Real>> device_traverse(VoxelGeometryView<Real> const&,
                                             std::vector<Ray<Real>> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
template <class Real>
std::vector<Particle<Real>> device_sample_source(SourceView<Real> const&, PhiloxRngParams const&,
                                                 size_type)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
template <class Real>
std::vector<Interaction<Real>> device_compton(Real, PhiloxRngParams const&, size_type)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::test
