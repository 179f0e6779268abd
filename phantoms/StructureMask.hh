//! \file phantoms/StructureMask.hh
//! A structure (body, target, organ) on the dose grid: the voxels it covers and
//! the fraction of each voxel's volume inside it, and the ways to make one:
//! the body outline of a phantom, contours of a DICOM RT Structure Set, a
//! label of a label image.
//!
//! Partial-volume rule (contours and label images): each voxel is sampled at
//! n x n x n points at the centres of its n^3 equal sub-voxels; the fraction
//! is the share of those points inside the structure. The volume error this
//! leaves on a sphere is stated in docs/study-reference.md ("Structures").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/GridGeometry.hh"
#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
struct RtRoi;
struct ScalarImage;

//! A structure on the grid: voxels (ascending linear indices) with the
//! fraction of each inside (0, 1]. A structure that is the whole grid (the body
//! of a shape phantom) lists nothing: `whole_grid_voxels` is then the grid's
//! voxel count, and voxel i is voxel i of the grid, wholly inside, so that it
//! costs no memory per voxel. Read it through size(), voxel(i) and fraction_at(i).
struct StructureMask
{
    std::string name;
    std::string origin; //!< where it came from, for messages and outputs
    std::vector<size_type> voxels;
    std::vector<float> fraction;
    size_type whole_grid_voxels{0}; //!< > 0: every voxel of a grid of this many

    //! Voxels at least partly inside.
    size_type size() const { return whole_grid_voxels > 0 ? whole_grid_voxels : voxels.size(); }
    //! Linear index of the structure's voxel i (i < size(), ascending in i).
    size_type voxel(size_type i) const { return whole_grid_voxels > 0 ? i : voxels[i]; }
    //! Fraction of the structure's voxel i inside.
    float fraction_at(size_type i) const { return whole_grid_voxels > 0 ? 1.0f : fraction[i]; }
    //! Volume inside the structure [cm^3] on a grid of `voxel_volume_cm3`.
    double volume_cm3(double voxel_volume_cm3) const;
    //! Is voxel v (at least partly) inside? (binary search)
    bool contains(size_type v) const;
};

//! Sub-voxel samples per axis by default (64 per voxel).
inline constexpr int default_sub_voxel_samples = 4;
//! Most sub-voxel samples per axis accepted.
inline constexpr int max_sub_voxel_samples = 10;

//! Default density above which a voxel can belong to the body outline [g/cm^3]:
//! above lung (0.2-0.3 g/cm^3, filled in as a hole) and well above air
//! (0.0012 g/cm^3), below fat (0.92 g/cm^3).
inline constexpr double default_body_density_g_cm3 = 0.5;

/*!
 * The body outline of a density grid: the largest 6-connected region of voxels
 * with density above `threshold_g_cm3`, with its holes filled slice by slice
 * (in each plane of constant k, the CT's slices, every region of voxels not in
 * the body that does not reach the slice's edge, 4-connected, is added: lungs,
 * airways, bowel gas). Fractions are 1. Empty if no voxel is above the threshold.
 */
StructureMask body_outline(GridGeometry const& geometry, Span<float const> density_g_cm3,
                           double threshold_g_cm3);

//! Every voxel of the grid (the body of an analytic phantom), listing none.
StructureMask whole_grid(GridGeometry const& geometry);

//! The voxels of `s` whose density is at or above `threshold_g_cm3` (listed, fractions
//! kept): the region the run summary's figures describe (low-density voxels reported apart).
StructureMask without_low_density(StructureMask const& s, Span<float const> density_g_cm3,
                                  double threshold_g_cm3);

/*!
 * Rasterise a structure's closed planar contours (patient coordinates in mm,
 * each contour at constant z) onto the grid with `samples` sub-voxel samples
 * per axis. A sample point lies inside when it is inside an odd number of the
 * contours of the contour plane nearest to it in z (even-odd rule, so a
 * contour inside another is a hole), and that plane is within half the
 * contour plane spacing (the smallest distance between adjacent planes; the
 * grid's k spacing for a single plane). Contours must be axial: the grid's
 * third axis along patient z. Throws RuntimeError (naming the structure and
 * the fix) for non-planar or non-axial contours, contours that leave the grid,
 * and a structure that covers no sample point.
 */
StructureMask rasterise_contours(RtRoi const& roi, GridGeometry const& geometry, int samples);

/*!
 * The voxels of label image `labels` equal to `label`, sampled onto the grid
 * (which may differ from the image's) with `samples` sub-voxel samples per
 * axis; points outside the image are outside. Throws RuntimeError when no
 * sample point has the label.
 */
StructureMask label_structure(ScalarImage const& labels, int label, std::string const& name,
                              GridGeometry const& geometry, int samples);
} // namespace mcdose
