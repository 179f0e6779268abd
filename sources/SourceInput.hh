//! \file sources/SourceInput.hh
//! What the study file says about one source: kind, particle, energy
//! (mono-energetic or a histogram), position and direction in phantom
//! coordinates, field, weight and represented particles. Plain data with
//! defaults, parsed by sources/Source.json.cc and turned into a sampler by
//! sources/SourceParams.hh; fields, units and defaults are documented in
//! docs/study-format.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/Array3.hh"
#include "core/Particle.hh"

namespace mcdose
{
//! Kinetic energies a source may emit [MeV]: the range the physics tables
//! are built for (transport/physics: 1 keV to 50 MeV).
struct SourceEnergyLimits
{
    static constexpr double min_MeV = 1e-3;
    static constexpr double max_MeV = 50;
};

//! Geometry of the emission.
enum class SourceKind
{
    pencil,   //!< all particles from `position_cm` along `direction`
    parallel, //!< uniform over `field` (perpendicular to `direction`), all along `direction`
    point,    //!< from `position_cm`, directions uniform over `field` at `field.distance_cm`
    isotropic //!< from `position_cm`, directions uniform over 4 pi
};
char const* to_cstring(SourceKind k);

//! Shape of a collimated field.
enum class FieldShape
{
    rectangle,
    circle
};

//! A field for parallel and point sources.
struct FieldInput
{
    FieldShape shape{FieldShape::rectangle};
    double width_cm{0};    //!< rectangle: extent along the field's first axis
    double height_cm{0};   //!< rectangle: extent along the field's second axis
    double diameter_cm{0}; //!< circle
    //! Point sources: distance from the source along `direction` at which the
    //! field size is defined (e.g. 100 cm SSD) [cm].
    double distance_cm{0};
};

//! An energy histogram: `weights[b]` is the relative number of particles
//! emitted with energy uniform in [edges_MeV[b], edges_MeV[b+1]).
struct SpectrumInput
{
    std::vector<double> edges_MeV;
    std::vector<double> weights;
};

//! One source.
struct SourceInput
{
    std::string pointer; //!< JSON pointer, for messages
    SourceKind kind{SourceKind::pencil};
    ParticleType particle{ParticleType::photon};
    std::optional<double> energy_MeV;      //!< mono-energetic kinetic energy, or
    std::optional<SpectrumInput> spectrum; //!< a histogram (exactly one of the two)
    Real3 position_cm{{0, 0, 0}};          //!< physical (phantom) coordinates
    Real3 direction{{0, 0, 1}};            //!< unit vector (normalised by the parser)
    std::optional<FieldInput> field;       //!< parallel and point sources
    double weight{1};                      //!< relative intensity among the sources
    //! Number of source particles the run represents (e.g. from monitor
    //! units): when given, dose is also reported in Gy.
    std::optional<double> particles;
};
} // namespace mcdose
