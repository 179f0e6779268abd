//! \file sources/SourceModel.hh
//! What a dose calibration belongs to: a source *model* (particle, emission geometry and
//! energy spectrum) apart from where it is placed and how wide its field is, and the
//! extent of the emission (solid angle or area) that the particles are spread over.
//! study/SourceCalibration.hh uses both to turn monitor units into particles.
#pragma once

#include <string>

#include "sources/SourceInput.hh"

namespace mcdose
{
//! The model of a source as text: its kind, particle and energy (the mono-energetic
//! energy to 17 significant digits, or every edge/line and weight of its spectrum), e.g.
//! "point photon source, 6 MeV". Position, direction and field are not part of it: a
//! model calibrated in one field and position is used in others. Two sources have the same
//! model exactly when these strings are equal.
std::string source_model_key(SourceInput const& source);

//! A short description of the model for people (spectrum summarised).
std::string source_model_description(SourceInput const& source);

//! What the source's particles are spread over, and its unit: a point source emits into
//! the solid angle its field subtends (sr), a parallel source over its field's area (cm^2),
//! a pencil beam has extent 1 ("pencil"). The particles per monitor unit of a model are
//! proportional to it (a collimator selects part of a fixed emission per unit solid angle
//! or area). A beam emits into its field's solid angle, an rt_plan source into the mean
//! solid angle of its jaw openings over its monitor units. Isotropic and volume sources
//! have no monitor units (RuntimeError).
struct EmissionExtent
{
    double value{1};
    std::string unit; //!< "sr", "cm^2" or "pencil"
};
EmissionExtent emission_extent(SourceInput const& source);

//! Solid angle [sr] of a rectangle w x h centred on the axis at distance d (Eq. of the
//! rectangular pyramid: 4 arcsin(w h / sqrt((w^2 + 4 d^2)(h^2 + 4 d^2)))).
double rectangle_solid_angle_sr(double width_cm, double height_cm, double distance_cm);

//! Solid angle [sr] of a disc of diameter D on the axis at distance d:
//! 2 pi (1 - d / sqrt(d^2 + (D/2)^2)).
double disc_solid_angle_sr(double diameter_cm, double distance_cm);
} // namespace mcdose
