//! \file dose/BatchFigures.hh
//! The uncertainty of a structure's dose figures from the batches.
//!
//! A structure's voxels share histories (a particle crossing the target doses many of its
//! voxels), so their doses are correlated and the figures' uncertainty cannot be had from
//! the voxels' sigmas taken as independent: that gives a lower bound. Instead the batches,
//! statistically independent, give it. A structure of at most max_bootstrap_voxels voxels,
//! in a run of at most max_bootstrap_batches fixed batches, keeps each batch's dose of its
//! voxels (8 bytes per voxel and batch; no grid is kept per batch), and each of its figures'
//! sigma is the bootstrap's over the batches (Efron and Tibshirani, An Introduction to the
//! Bootstrap, 1993, ch. 6): the figures of batch_bootstrap_replicas resampled runs, each the
//! sum of B batches drawn with replacement per its histories. It holds for figures that are
//! not smooth functions of the doses (quantiles), where a delete-one jackknife fails, and
//! for batches of unequal size. Larger structures keep the independent-voxel sigmas.
#pragma once

#include <cstdint>
#include <vector>

#include "dose/DoseData.hh"
#include "dose/DoseFigures.hh"
#include "phantoms/StructureMask.hh"
#include "tally/BatchEnergyView.hh"

namespace mcdose
{
//! Resampled runs of the bootstrap over the batches.
inline constexpr int batch_bootstrap_replicas = 200;
//! Largest structure whose voxels' batch doses are kept for the bootstrap ...
inline constexpr size_type max_bootstrap_voxels = size_type(1) << 16;
//! ... in a run of at most this many batches (fixed; 64 MiB per structure at most).
inline constexpr std::uint64_t max_bootstrap_batches = 128;

/*!
 * What each batch keeps of the structures (its digest: the batch's history count, then the
 * dose of each voxel of each structure it keeps), and the figures' sigmas from the digests.
 * `materials` gives the grid, densities, materials and dose-to-water factors (its energy
 * arrays are not read); it and the structures must outlive this.
 */
class StructureBatchFigures
{
  public:
    //! Keeps the structures of at most `voxel_limit` voxels (0: none).
    StructureBatchFigures(DoseGridData materials, std::vector<StructureMask const*> structures,
                          size_type voxel_limit);

    //! Whether any structure is kept (else a batch's digest is of no use).
    bool any() const { return count_ > 0; }
    //! The voxels the digests read: [first(), first() + count()).
    size_type first() const { return first_; }
    size_type count() const { return count_; }

    //! One batch's digest.
    std::vector<double> operator()(BatchEnergyView const& batch) const;

    /*!
     * Sets the statistical sigma of D_mean, D0.03cc, D98, D95, D50 and D2 of the kept
     * structures among `dvhs` (one per structure, in order; doses per particle times
     * `dose_scale`) from the batches' digests (each from `offset` on). Leaves the sigmas as
     * they are with fewer than 2 batches, or digests of another layout (a checkpoint of a
     * build that kept none).
     */
    void set_sigmas(std::vector<DvhFigures>& dvhs, std::vector<std::vector<double>> const& digests,
                    std::size_t offset, double dose_scale) const;

  private:
    DoseGridData materials_;
    std::vector<StructureMask const*> structures_;
    std::vector<bool> kept_;
    size_type first_{0}, count_{0};

    //! The bootstrap's sigmas of structure `s` from its voxels' doses in each batch.
    std::vector<double> bootstrap(StructureMask const& s,
                                  std::vector<std::vector<double>> const& doses,
                                  std::vector<std::uint64_t> const& histories) const;
};

/*!
 * Carries a relative uncertainty common to every dose (e.g. an absolute-dose calibration's)
 * into each figure's sigma in quadrature: sigma^2 = sigma_stat^2 + (relative x value)^2.
 */
void add_common_relative_sigma(std::vector<DvhFigures>& dvhs, double relative);
} // namespace mcdose
