//! \file core/Particle.hh
//! Track state of one particle as the sources create it and the interactors
//! return it: type, kinetic energy [MeV], position [cm], unit direction and
//! statistical weight. Positions and directions are in the frame of the
//! voxel geometry (transport/geometry/VoxelGeometryView.hh).
#pragma once

#include <cstdint>
#include <string>

#include "core/Array3.hh"
#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/Macros.hh"

namespace mcdose
{
//! Particle species transported by mcdose.
enum class ParticleType : std::uint8_t
{
    photon,
    electron,
    positron
};

//! Rest energy m c^2 [MeV] of a particle type (CODATA 2018 via core/Constants.hh).
MCDOSE_FORCEINLINE_FUNCTION constexpr double rest_energy_MeV(ParticleType type)
{
    return type == ParticleType::photon ? 0.0 : constants::electron_mass_MeV;
}

//! Lower-case name ("photon", "electron", "positron").
inline char const* to_cstring(ParticleType type)
{
    switch (type)
    {
    case ParticleType::photon:
        return "photon";
    case ParticleType::electron:
        return "electron";
    case ParticleType::positron:
        return "positron";
    }
    return "unknown";
}

//! Parse a particle name; throws RuntimeError naming the allowed values.
inline ParticleType to_particle_type(std::string const& name)
{
    for (auto t : {ParticleType::photon, ParticleType::electron, ParticleType::positron})
    {
        if (name == to_cstring(t))
            return t;
    }
    MCDOSE_VALIDATE(false, << "unknown particle '" << name
                           << "'; use one of: photon, electron, positron");
    return ParticleType::photon;
}

//! State of one particle (trivially copyable; host and device).
template <class Real>
struct Particle
{
    ParticleType type{ParticleType::photon};
    Real energy_MeV{0};         //!< kinetic energy [MeV]
    Array3<Real> position_cm{}; //!< position [cm]
    Array3<Real> direction{};   //!< unit vector [-]
    Real weight{1};             //!< statistical weight [-]
};
} // namespace mcdose
