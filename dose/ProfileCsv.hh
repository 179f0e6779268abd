//! \file dose/ProfileCsv.hh
//! Depth-dose and lateral-profile CSV files.
//!
//! Depth dose: energy deposited per source particle in each slab of voxels
//! perpendicular to the beam axis (laterally integrated over the whole
//! phantom), with columns `z_lo_cm,z_hi_cm,z_mid_cm,edep_MeV,edep_sigma_MeV`.
//! Slab positions are along the grid axis in phantom coordinates:
//! origin_cm[axis] + (k - 1/2) s (exact for axis-aligned grids).
//!
//! The uncertainty of a slab sum is not the quadrature sum of its voxels'
//! uncertainties (one history deposits in many voxels of a slab, so voxel
//! estimates are correlated); it is estimated from independent batches
//! (depth_dose_from_batches) or from per-slab history moments supplied by the
//! tally.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dose/DepthDoseCurve.hh"
#include "dose/DoseData.hh"

namespace mcdose
{
//! Sum of voxel values over each slab perpendicular to `axis`.
std::vector<double> laterally_integrate(GridGeometry const& geometry, int axis,
                                        Span<double const> voxel_values);

//! Slab faces along `axis` (size n + 1).
std::vector<double> slab_faces_cm(GridGeometry const& geometry, int axis);

//! Depth dose from B >= 2 independent batches of equal size, each an array of
//! voxel energies per source particle of that batch: the mean over batches and
//! the standard error of the mean, sqrt(sum_b (x_b - mean)^2 / (B (B - 1))).
DepthDoseCurve depth_dose_from_batches(GridGeometry const& geometry, int axis,
                                       std::vector<std::vector<double>> const& batch_edep_MeV);

//! The same from each batch's slab sums (laterally_integrate of its voxel
//! energies per source particle): what a run keeps per batch instead of grids.
DepthDoseCurve depth_dose_from_batch_slabs(GridGeometry const& geometry, int axis,
                                           std::vector<std::vector<double>> const& slabs);

//! Depth dose from a run's slab sums over N >= 2 histories, history by history
//! (Walters, Kawrakow and Rogers 2002): `sums` each slab's energy [MeV] and
//! `sum_sq` each slab's sum over histories of (the history's energy in it)^2
//! [MeV^2]; the mean per history S/N and its standard error
//! sqrt(N/(N-1) (Q - S^2/N)) / N.
DepthDoseCurve depth_dose_from_history_slabs(GridGeometry const& geometry, int axis,
                                             std::vector<double> const& sums,
                                             std::vector<double> const& sum_sq,
                                             std::uint64_t histories);

//! Write a depth-dose curve (columns z_lo_cm,z_hi_cm,z_mid_cm,edep_MeV,edep_sigma_MeV).
void write_depth_dose_csv(std::string const& path, DepthDoseCurve const& curve);

//! Dose along grid axis `axis` through the voxel holding `point_cm`, per source particle.
struct LateralProfile
{
    int axis{0};
    std::vector<double> lo_cm, hi_cm;
    std::vector<double> dose_Gy;       //!< per source particle
    std::vector<double> dose_sigma_Gy; //!< 1 sigma
};

//! Extract a profile; throws RuntimeError naming the point if it is outside the grid.
LateralProfile lateral_profile(DoseGridData const& data, int axis, Real3 const& point_cm);

//! Write a profile (columns <a>_lo_cm,<a>_hi_cm,<a>_mid_cm,dose_Gy_per_particle,
//! dose_sigma_Gy_per_particle, with <a> the axis letter).
void write_lateral_profile_csv(std::string const& path, LateralProfile const& profile);
} // namespace mcdose
