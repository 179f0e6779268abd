//! \file sources/SourceInput.hh
//! What the study file says about one source: kind, particle, energy
//! (mono-energetic or a histogram), position and direction in phantom
//! coordinates, field, weight and represented particles. Plain data with
//! defaults, parsed by sources/Source.json.cc and turned into a sampler by
//! sources/SourceParams.hh; fields, units and defaults are documented in
//! docs/study-reference.md.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/Array3.hh"
#include "core/Particle.hh"
#include "phantoms/PhantomInput.hh"
#include "sources/PhaseSpaceInput.hh"
#include "sources/PlanInput.hh"

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
    pencil,      //!< all particles from `position_cm` along `direction`
    parallel,    //!< uniform over `field` (perpendicular to `direction`), all along `direction`
    point,       //!< from `position_cm`, directions uniform over `field` at `field.distance_cm`
    isotropic,   //!< from `position_cm`, directions uniform over 4 pi
    volume,      //!< from within the phantom (VolumeInput), directions uniform over 4 pi
    beam,        //!< a linac beam placed by IEC 61217 angles (BeamInput)
    phase_space, //!< the particles of an MCPL file (PhaseSpaceInput)
    rt_plan      //!< the beams of a DICOM RT Plan, delivered continuously (PlanInput)
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

//! An energy spectrum: histogram bins, discrete lines, or both (a line + continuum spectrum).
//! `weights[b]` is the relative number of particles emitted in bin b, with energy uniform in
//! [edges_MeV[b], edges_MeV[b+1]) (or, when `density` is given, distributed linearly between
//! the densities at the two edges); `line_weights[l]` the relative number emitted with energy
//! lines_MeV[l], on the same scale as the bins' weights.
struct SpectrumInput
{
    std::vector<double> edges_MeV;
    std::vector<double> weights;
    std::vector<double> density; //!< piecewise-linear continuum: density at each edge, or empty
    std::vector<double> lines_MeV;
    std::vector<double> line_weights;
    std::string file; //!< the file the spectrum was read from ("" when inline), for messages

    static SpectrumInput histogram(std::vector<double> edges_MeV, std::vector<double> weights)
    {
        SpectrumInput s;
        s.edges_MeV = std::move(edges_MeV);
        s.weights = std::move(weights);
        return s;
    }
    static SpectrumInput lines(std::vector<double> lines_MeV, std::vector<double> weights)
    {
        SpectrumInput s;
        s.lines_MeV = std::move(lines_MeV);
        s.line_weights = std::move(weights);
        return s;
    }
};

//! Jaw positions at the isocentre plane [cm], IEC 61217 beam-limiting-device coordinates
//! (the DICOM RT Plan convention): x1 < x2 along X_b, y1 < y2 along Y_b; a symmetric
//! 10 x 10 cm^2 field is x1 = y1 = -5, x2 = y2 = 5.
struct JawsInput
{
    double x1_cm{0}, x2_cm{0}, y1_cm{0}, y2_cm{0};
};

//! An aperture (an MLC-shaped field, a block) as an image of transmission at the isocentre
//! plane: pixel (i, j) is centred at (x0 + i dx, y0 + j dy) in the beam-limiting-device
//! coordinates (i along X_b, j along Y_b) [cm]; values >= 0 (1 open, 0 closed).
struct ApertureInput
{
    std::string path;
    int nx{0}, ny{0};
    double x0_cm{0}, y0_cm{0};
    double dx_cm{0}, dy_cm{0};
    std::vector<double> transmission; //!< nx * ny, i fastest
};

//! A beam: a point focal spot at `sad_cm` from the isocentre, rotated by the IEC 61217
//! gantry, collimator (beam-limiting device) and couch (patient support) angles, collimated
//! to the jaws and/or an aperture (see sources/BeamGeometry.hh for the axes).
struct BeamInput
{
    Real3 isocentre_cm{{0, 0, 0}}; //!< phantom (DICOM patient) coordinates
    double sad_cm{100};
    double gantry_deg{0};
    double collimator_deg{0};
    double couch_deg{0};
    std::optional<JawsInput> jaws;
    std::optional<ApertureInput> aperture;
};

//! Where in the phantom a volume source emits, per unit of what.
enum class EmissionDensity
{
    per_mass,   //!< uniformly per unit mass (e.g. a Fano test, a uniformly taken-up tracer)
    per_volume, //!< uniformly per unit volume
    activity    //!< per unit volume as an activity-concentration image
};
char const* to_cstring(EmissionDensity e);

//! A volume source: particles start at points distributed over the voxels by
//! `emission` (uniform within each voxel), in the voxels of `material` and inside
//! `region` when given, with isotropic directions.
struct VolumeInput
{
    EmissionDensity emission{EmissionDensity::per_mass};
    //! activity: an ITK-readable image of activity concentration (any unit per volume);
    //! resolved against the study's folder. Its values are taken at each phantom voxel's
    //! centre (nearest image voxel; 0 outside the image), so it may have its own grid.
    std::string activity_image;
    std::optional<std::string> material; //!< only voxels of this material
    std::optional<ShapeInput> region;    //!< only voxels whose centre is inside
};

//! One source.
struct SourceInput
{
    std::string pointer; //!< JSON pointer, for messages
    SourceKind kind{SourceKind::pencil};
    ParticleType particle{ParticleType::photon};
    std::optional<double> energy_MeV;           //!< mono-energetic kinetic energy, or
    std::optional<SpectrumInput> spectrum;      //!< a histogram (exactly one of the two)
    Real3 position_cm{{0, 0, 0}};               //!< physical (phantom) coordinates
    Real3 direction{{0, 0, 1}};                 //!< unit vector (normalised by the parser)
    std::optional<FieldInput> field;            //!< parallel and point sources
    std::optional<VolumeInput> volume;          //!< volume sources
    std::optional<BeamInput> beam;              //!< beams (position_cm and direction derived)
    std::optional<PhaseSpaceInput> phase_space; //!< phase-space sources
    std::optional<PlanInput> plan;              //!< rt_plan sources
    double weight{1};                           //!< relative intensity among the sources
    //! Number of source particles the run represents (e.g. from monitor
    //! units): when given, dose is also reported in Gy.
    std::optional<double> particles;
    //! Monitor units of this source: with `calibration`, the study turns them into
    //! `particles` (study/SourceCalibration.hh; docs/study-reference.md, "Absolute dose").
    std::optional<double> monitor_units;
    //! The calibration file of this source model (written by `mcdose calibrate`),
    //! resolved against the study's folder; required with `monitor_units`.
    std::string calibration;
    //! Monitor-chamber backscatter correction: (chamber signal per particle in the
    //! reference field) / (that in this field). Backscatter into the monitor chamber is
    //! not transported; 1 neglects it (Popescu et al., Phys. Med. Biol. 50 (2005) 3375).
    double monitor_backscatter_factor{1};
};

//! Largest kinetic energy the source emits [MeV].
double max_energy_MeV(SourceInput const& source);
} // namespace mcdose
