//! \file dose/Dvh.hh
//! Dose-volume histograms and figures (ICRU Report 83, 2010, section 3.7:
//! D98 % near-minimum, D50 % median, D2 % near-maximum), and the region
//! summary that the run summary and the target-uncertainty rule use.
//!
//! D_V (dose to a volume V) is the least dose received by the hottest V of the
//! structure: voxels sorted by dose, hottest first, their volumes (voxel
//! volume x fraction inside) summed until the sum reaches V; D_V is the dose
//! of that voxel (the structure's least dose if its volume is below V).
//! D_x% is D_V for V = x % of the structure's volume.
//!
//! Every pass over the voxels runs on `threads` host threads (0: all) and sums in
//! fixed blocks of voxels (core/ParallelFor.hh parallel_block_sum), the blocks'
//! sums added in block order: every figure is bit for bit the same for any number
//! of threads.
//!
//! Dvh.cc makes the figures, DvhUncertainty.cc their uncertainty (replica dose fields) and
//! RegionSummary.cc the region summary; dose/detail/ holds what they share.
#pragma once

#include <cstdint>
#include <vector>

#include "dose/DoseData.hh"
#include "dose/DoseFigures.hh"
#include "phantoms/StructureMask.hh"

namespace mcdose
{
//! Bins of the cumulative DVH curve (from 0 to the structure's largest dose).
inline constexpr int dvh_curve_bins = 200;
//! Dose fields drawn to estimate the uncertainty of the figures.
inline constexpr int dvh_uncertainty_replicas = 32;

/*!
 * Figures of a structure from its voxels' doses and volumes [cm^3] (any
 * order), without uncertainty; V at each of `v_at_doses`. Volumes must be > 0.
 */
DvhFigures dvh_figures(std::vector<double> const& dose, std::vector<double> const& volume_cm3,
                       std::vector<double> const& v_at_doses, int threads = 0);

/*!
 * Figures of structure `s` on the run's dose grid, doses multiplied by
 * `dose_scale` (1 for Gy per particle, the particle count for Gy), with the
 * statistical uncertainty of each: Dmean's propagated from the voxels'
 * sigmas; the others model each voxel's dose as normal with its batch sigma,
 * cut at 0 and at 8 sigma, voxels independent. V_at's is exact under that
 * model (a sum of Bernoulli volumes). D_V's is the standard deviation over
 * dvh_uncertainty_replicas dose fields (fixed seed) that draw only the voxels
 * that can fall on either side of the figure, or, where more than 2^14 voxels
 * can, the asymptotic spread of a quantile (delta method). D_min's is drawn
 * likewise where at most 2^16 voxels can hold the minimum, else not given
 * (NaN). The cost follows the voxels near each figure, not the structure's size.
 */
DvhFigures structure_dvh(StructureMask const& s, DoseGridData const& data, double dose_scale,
                         std::vector<double> const& v_at_doses, int threads = 0);

/*!
 * The summary over a region (the body or a structure) in Gy per particle:
 * D0.03cc of the region's voxels at or above `low_density_g_cm3`, the mean
 * relative uncertainty over those of them with dose above `fraction` of it,
 * and the dose in the region's low-density voxels and outside the region.
 */
RegionSummary summarize_region(DoseGridData const& data, StructureMask const& region,
                               double low_density_g_cm3, double fraction, int threads = 0);
} // namespace mcdose
