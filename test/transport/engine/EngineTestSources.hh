//! \file test/transport/engine/EngineTestSources.hh
//! A pencil beam for engine tests (the product's sources live in transport/source).
#pragma once

#include "transport/Particle.hh"

namespace mcdose::test
{
template<class Real>
struct TestPencil
{
    ParticleType type{ParticleType::photon};
    Real energy_MeV{1};
    Array3<Real> position_cm{};
    Array3<Real> direction{{0, 0, 1}};

    template<class Engine>
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
}  // namespace mcdose::test
