//! \file tally/DoseFold.hh
//! Folding a batch grid into the running totals where the grid lives: the
//! device entry points (kernels in tally/DoseFold.cu) and what they share with
//! the host threads of tally/DoseTally.cc (tally/detail/BatchFold.hh).
#pragma once

#include <cstdint>
#include <optional>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/Macros.hh"
#include "core/Types.hh"
#include "tally/TallyMethod.hh"
#include "tally/detail/BatchFold.hh"

namespace mcdose
{
/*!
 * Per-batch sums of the energy over the slabs of a grid along one index axis
 * (e.g. the laterally integrated depth dose): voxel v = i + nx (j + ny k)
 * belongs to slab i, j or k for axis 0, 1 or 2. Disabled when axis < 0.
 */
struct SlabSpec
{
    int axis{-1};
    size_type dims[3]{0, 0, 0};

    MCDOSE_FORCEINLINE_FUNCTION bool enabled() const { return axis >= 0; }
    MCDOSE_FORCEINLINE_FUNCTION size_type count() const { return enabled() ? dims[axis] : 0; }
    MCDOSE_FORCEINLINE_FUNCTION size_type slab_of(size_type v) const
    {
        return axis == 0   ? v % dims[0]
               : axis == 1 ? (v / dims[0]) % dims[1]
                           : v / (dims[0] * dims[1]);
    }
};

//! Device arrays of a tally's running totals (one double per voxel each).
using DeviceTotals = detail::TotalsArrays;

//! Device batch grids to fold in one pass: `slots` grids of `voxels` words of
//! the method, grid k at `words + k * slot_words64` (64-bit words), and their
//! touched-strip flags, grid k's at `touched + k * slot_strips` (null: fold
//! every voxel).
struct DeviceBatchGrids
{
    std::uint64_t* words{nullptr};
    size_type slot_words64{0};
    size_type slots{1};
    std::uint8_t const* touched{nullptr};
    size_type slot_strips{0};
    //! Grid k's squares enter the sums of squares times sq_weights[k] (device memory;
    //! null: 1 for every grid), detail::fold_energy.
    double const* sq_weights{nullptr};
};

//! The batches a tally folded and their effective count (histories over the reference
//! batch size; the count itself where the batches are of equal size): detail::batch_sigma.
struct BatchCount
{
    double batches{0};
    double effective{0};
};

#if MCDOSE_USE_CUDA
/*!
 * Fold the device batch grids (method `m`, FX quantum `quantum_MeV`) into
 * `totals`, in grid order, and zero them: each voxel's totals are read once,
 * take the grids' batch energies one after the other (the operations, hence
 * the bits, of one fold per grid) and are written once. With `slabs` enabled,
 * also add each voxel's energy of grid k to `slab_words[k * slabs.count() +
 * slab]`, which the caller zeroes before: FX adds the raw 64-bit words as
 * integers (exact, independent of the order), the other methods add the
 * decoded doubles (their bits are in the words). With touched flags only the
 * voxels of flagged strips of 2^tally_strip_shift are folded: the others hold
 * zeros.
 */
void fold_batches_device(TallyMethod m, double quantum_MeV, DeviceBatchGrids const& grids,
                         size_type voxels, DeviceTotals totals, SlabSpec const& slabs,
                         std::uint64_t* slab_words);
//! Final grids from the totals: energy [MeV] and its batch-method standard
//! uncertainty (NaN with fewer than 2 batches), one double per voxel each.
void batch_result_device(double const* hi, double const* lo, double const* sum_sq, size_type voxels,
                         BatchCount batches, double* energy_MeV, double* sigma_MeV);
/*!
 * The mask of the voxels with energy of those grids (tally/EnergyMask.hh), computed from
 * the totals into `mask` (mask_words(voxels) words), and the number of such voxels before
 * each word into `offsets` (as many words). Returns the number of voxels with energy, or
 * nothing where a voxel without energy has an uncertainty other than +0 (fewer than 2
 * batches: NaN), so that the voxels with energy alone do not give the grids.
 */
std::optional<size_type> result_mask_device(double const* hi, double const* lo,
                                            double const* sum_sq, size_type voxels,
                                            BatchCount batches, std::uint64_t* mask,
                                            std::uint64_t* offsets);
//! The energies and uncertainties of batch_result_device of the voxels of `mask`, word w's
//! at offsets[w] onward of `energy_MeV` and `sigma_MeV` (result_mask_device's arrays).
void result_voxels_device(double const* hi, double const* lo, double const* sum_sq,
                          size_type voxels, BatchCount batches, std::uint64_t const* mask,
                          std::uint64_t const* offsets, double* energy_MeV, double* sigma_MeV);
#else
inline std::optional<size_type> result_mask_device(double const*, double const*, double const*,
                                                   size_type, BatchCount, std::uint64_t*,
                                                   std::uint64_t*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline void result_voxels_device(double const*, double const*, double const*, size_type, BatchCount,
                                 std::uint64_t const*, std::uint64_t const*, double*, double*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline void fold_batches_device(TallyMethod, double, DeviceBatchGrids const&, size_type,
                                DeviceTotals, SlabSpec const&, std::uint64_t*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline void batch_result_device(double const*, double const*, double const*, size_type, BatchCount,
                                double*, double*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
