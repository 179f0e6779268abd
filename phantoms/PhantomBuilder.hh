//! \file phantoms/PhantomBuilder.hh
//! Build a voxel phantom from its input: shapes over a grid, a CT image with
//! a HU calibration, or a material-index image with a density image.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "io/DicomReference.hh"
#include "phantoms/PhantomInput.hh"
#include "phantoms/VoxelGrid.hh"

namespace mcdose
{
//! Nominal mass density [g/cm^3] of a catalogue material, used where the
//! input gives no density. Throws RuntimeError for an unknown name.
using NominalDensityFn = std::function<double(std::string const& material)>;

//! Build the phantom. `nominal_density` may be empty when every density is
//! given explicitly (a missing one then stops with an error saying so).
//! Notes that do not stop the build (e.g. a shape that covers no voxel
//! centre) are appended to `warnings` when it is not null. When the phantom is
//! a DICOM CT series and `ct_dicom` is not null, it receives the series'
//! patient, study and frame of reference (for outputs that overlay the CT).
Phantom build_phantom(PhantomInput const& input, NominalDensityFn const& nominal_density,
                      std::vector<std::string>* warnings = nullptr,
                      DicomReference* ct_dicom = nullptr);

Phantom build_shape_phantom(ShapePhantomInput const& input, NominalDensityFn const& nominal_density,
                            std::vector<std::string>* warnings = nullptr);

//! The voxels (linear indices, ascending) whose centre lies in `shape`, by ShapeInput's
//! rule; the shape's fill is not used.
std::vector<size_type> voxels_in_shape(ShapeInput const& shape, GridGeometry const& geometry);

//! Convert CT numbers with a calibration. Throws RuntimeError naming the
//! first voxel whose HU lies outside the calibration (unless it clamps).
Phantom build_ct_phantom(GridGeometry const& geometry, std::vector<double> const& hu,
                         HuCalibration const& calibration);
} // namespace mcdose
