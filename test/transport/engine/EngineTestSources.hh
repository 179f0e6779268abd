//! \file test/transport/engine/EngineTestSources.hh
//! A pencil beam for engine tests (the product's sources live in transport/source).
#pragma once

#include <vector>

#include "core/GridGeometry.hh"
#include "core/Particle.hh"
#include "phantoms/VoxelGrid.hh"
#include "sources/SourceInput.hh"
#include "sources/SourceParams.hh"

namespace mcdose::test
{
//! The product source (a one-source SourceMixParams, what the driver runs on
//! host and device): a pencil beam along +z at a position given in the grid's
//! local frame (corner of voxel 0 at 0).
template <class Real>
SourceMixParams<Real> pencil_source(GridGeometry const& g, ParticleType type, double energy_MeV,
                                    Real3 local_position_cm)
{
    SourceInput in;
    in.kind = SourceKind::pencil;
    in.particle = type;
    in.energy_MeV = energy_MeV;
    for (int a = 0; a < 3; ++a)
        in.position_cm[a] = local_position_cm[a] + g.origin_cm[a] - 0.5 * g.spacing_cm[a];
    in.direction = {{0, 0, 1}};
    return SourceMixParams<Real>({in}, g);
}

//! Voxel data of a material-0 box (density 1) with a layer of material 1 at
//! `layer_density` over grid slices z in [k0, k1).
struct LayeredPhantom
{
    GridGeometry geometry;
    std::vector<MaterialIndex> material;
    std::vector<float> density;
};

inline LayeredPhantom layered_phantom(Array3<int> dims, Real3 spacing_cm, int k0, int k1,
                                      float layer_density)
{
    LayeredPhantom p;
    p.geometry.dims = dims;
    p.geometry.spacing_cm = spacing_cm;
    p.material.assign(p.geometry.num_voxels(), 0);
    p.density.assign(p.geometry.num_voxels(), 1.0f);
    for (size_type v = 0; v < p.material.size(); ++v)
    {
        int const k = p.geometry.ijk(v)[2];
        if (k >= k0 && k < k1)
        {
            p.material[v] = 1;
            p.density[v] = layer_density;
        }
    }
    return p;
}

template <class Real>
struct TestPencil
{
    ParticleType type{ParticleType::photon};
    Real energy_MeV{1};
    Array3<Real> position_cm{};
    Array3<Real> direction{{0, 0, 1}};

    template <class Engine>
    MCDOSE_FUNCTION Particle<Real> operator()(Engine&) const
    {
        Particle<Real> p;
        p.type = type;
        p.energy_MeV = energy_MeV;
        p.position_cm = position_cm;
        p.direction = direction;
        return p;
    }
};
} // namespace mcdose::test
