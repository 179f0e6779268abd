//! \file sources/BeamGeometry.hh
//! Where a beam source is: the IEC 61217 coordinate systems, mapped to the phantom's
//! coordinates (docs/coordinates.md has the figure).
//!
//! - IEC fixed system f: origin at the isocentre, Z_f up, Y_f from the isocentre towards the
//!   gantry stand, X_f to the right of an observer at the foot of the couch facing the gantry.
//! - Gantry g: the fixed system rotated about Y_f by the gantry angle; beam-limiting device b
//!   (collimator): the gantry system rotated about Z_g by the collimator angle; patient
//!   support s (couch): the fixed system rotated about Z_f by the couch angle. Each rotation
//!   is positive clockwise when seen from the origin looking along the positive axis (IEC
//!   61217 and DICOM PS3.3 C.8.8.25.6), i.e. right-handed about +Y_f, +Z_g, +Z_f. The
//!   focal spot is at (0, 0, SAD) in b: above the isocentre at gantry 0, on +X_f (the
//!   patient's left, head first supine) at gantry 90.
//! - The patient lies head first supine (HFS) on the couch, the table top at the
//!   isocentre without eccentric, pitch or roll: X_s = patient left, Y_s = superior (head),
//!   Z_s = anterior. The phantom's coordinates are DICOM patient coordinates (LPS: x to the
//!   patient's left, y posterior, z superior), so x = X_s, y = -Z_s, z = Y_s, about the
//!   isocentre given in phantom coordinates.
//!
//! A point p_b of the beam-limiting-device system is at
//! isocentre + M R_z(-couch) R_y(gantry) R_z(collimator) p_b in the phantom, M the HFS map.
#pragma once

#include <string>
#include <vector>

#include "core/Array3.hh"
#include "core/GridGeometry.hh"

namespace mcdose
{
struct BeamInput;
struct SourceInput;

//! How the patient lies on the couch (DICOM Patient Position (0018,5100), PS3.3 C.7.3.1.1.2):
//! head or feet first (towards the gantry), supine or prone.
enum class PatientPosition
{
    hfs,
    hfp,
    ffs,
    ffp
};

//! The position named by a DICOM Patient Position ("HFS", ...); false for one not modelled
//! (decubitus, sitting).
bool patient_position_from_dicom(std::string const& code, PatientPosition* position);

//! A vector of the IEC fixed system in phantom (DICOM patient) coordinates: rotated by the
//! couch angle [deg] into the patient support system, then mapped by the patient's position
//! (head first supine: x = X_s, y = -Z_s, z = Y_s).
Real3 fixed_to_phantom(Real3 const& v, double couch_deg, PatientPosition position);

//! A beam's focal spot and axes in phantom coordinates.
struct BeamAxes
{
    Real3 source_cm;    //!< the focal spot [cm]
    Real3 central_axis; //!< unit, from the focal spot towards the isocentre (-Z_b)
    Real3 x_b;          //!< unit, IEC X_b (the X jaws move along it)
    Real3 y_b;          //!< unit, IEC Y_b
};

//! The focal spot and axes of a beam (angles in degrees).
BeamAxes beam_axes(BeamInput const& beam);

//! The solid angle [sr] of a rectangle of the isocentre plane (sources/PlanView.hh).
double rectangle_solid_angle(double x0, double x1, double y0, double y1, double d);

//! The field of a beam at the isocentre plane: cells (x0, x1, y0, y1 each, [cm], IEC b
//! coordinates) and their sampling weights, transmission x solid angle at the focal spot:
//! the jaw opening alone, or the aperture image's pixels with a positive transmission,
//! clipped to the jaws when both are given. Throws RuntimeError naming `where` when the
//! field is empty.
struct BeamField
{
    std::vector<double> cells_cm;
    std::vector<double> weights;
};
BeamField beam_field(BeamInput const& beam, std::string const& where);

//! Whether any ray from the focal spot through the field meets the phantom's grid (an exact
//! separating-axis test of each cell's pyramid against the grid's box).
bool beam_reaches_grid(BeamAxes const& axes, double sad_cm, BeamField const& field,
                       GridGeometry const& grid);

//! Refuse (RuntimeError naming the source and what to change) a beam whose field misses the
//! phantom's grid.
void check_beam_reaches_grid(SourceInput const& source, GridGeometry const& grid);
} // namespace mcdose
