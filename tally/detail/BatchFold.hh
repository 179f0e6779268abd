//! \file tally/detail/BatchFold.hh
//! Per-voxel arithmetic of the batch fold and of the batch-method
//! uncertainty, shared by the device kernels (tally/DoseFold.cu) and the host
//! threads (tally/DoseTally.cc). Every operation is one IEEE-754
//! round-to-nearest operation that nvcc may not contract into an FMA, so the
//! host and the device produce bitwise the same totals and sigmas.
#pragma once

#include <cmath>

#include "core/Macros.hh"
#include "core/Types.hh"
#include "tally/accum/DoubleWord.hh"
#include "tally/accum/FloatOps.hh"

namespace mcdose::detail
{
//! fl(a b), never contracted.
MCDOSE_FORCEINLINE_FUNCTION double mul_rn(double a, double b)
{
#if MCDOSE_DEVICE_COMPILE
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

//! fl(a / b).
MCDOSE_FORCEINLINE_FUNCTION double div_rn(double a, double b)
{
#if MCDOSE_DEVICE_COMPILE
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}

//! Correctly rounded square root (IEEE-754 on both sides).
MCDOSE_FORCEINLINE_FUNCTION double sqrt_rn(double a)
{
#if MCDOSE_DEVICE_COMPILE
    return __dsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}

//! Running totals of one voxel: double-double sum of the batch energies and
//! the sum of their squares [MeV, MeV^2].
struct VoxelTotals
{
    double hi;
    double lo;
    double sum_sq;
};

/*!
 * Fold one batch energy e [MeV] into a voxel's totals; its square enters the sum of
 * squares times `sq_weight`, the tally's reference batch size over this batch's history
 * count (1 where the batches are of equal size: then the square enters unchanged).
 */
MCDOSE_FORCEINLINE_FUNCTION void fold_energy(double e, VoxelTotals& t, double sq_weight = 1.0)
{
    accum::DoubleWordSum<double> total(t.hi, t.lo);
    total.add(e);
    t.hi = total.hi();
    t.lo = total.lo();
    t.sum_sq = accum::add_rn(t.sum_sq, mul_rn(sq_weight, mul_rn(e, e)));
}

//! The running totals of a grid, one double per voxel each, in host or device memory.
struct TotalsArrays
{
    double* hi{nullptr};
    double* lo{nullptr};
    double* sum_sq{nullptr};
};

//! Fold the batch energy e [MeV] of voxel v into the grid's totals.
MCDOSE_FORCEINLINE_FUNCTION void fold_voxel(double e, TotalsArrays const& totals, size_type v,
                                            double sq_weight = 1.0)
{
    VoxelTotals t{totals.hi[v], totals.lo[v], totals.sum_sq[v]};
    fold_energy(e, t, sq_weight);
    totals.hi[v] = t.hi;
    totals.lo[v] = t.lo;
    totals.sum_sq[v] = t.sum_sq;
}

//! Total energy of a voxel [MeV] (hi + lo, rounded once).
MCDOSE_FORCEINLINE_FUNCTION double total_energy(VoxelTotals const& t)
{
    return accum::add_rn(t.hi, t.lo);
}

/*!
 * Batch-method standard uncertainty of a voxel's total E = sum_b E_b over B >= 2
 * batches of n_b histories (N in all). Each E_b has variance n_b s^2 (s^2: one
 * history's), so s^2 is estimated without bias by sum_b (E_b - n_b E/N)^2 / n_b / (B-1)
 * and Var(E) = N s^2. With the squares folded as (n_ref / n_b) E_b^2 (fold_energy) and
 * `effective` = N / n_ref: s^2(E) = B'/(B-1) (sum_b (n_ref/n_b) E_b^2 - E^2/B') with
 * B' = effective. Batches of equal size give B' = B: B times the sample variance of the
 * batch totals (negative rounding residues clamp to 0).
 */
MCDOSE_FORCEINLINE_FUNCTION double batch_sigma(VoxelTotals const& t, double batches,
                                               double effective)
{
    double const total = total_energy(t);
    double spread = accum::sub_rn(t.sum_sq, div_rn(mul_rn(total, total), effective));
    spread = spread > 0 ? spread : 0.0;
    return sqrt_rn(mul_rn(div_rn(effective, accum::sub_rn(batches, 1.0)), spread));
}
} // namespace mcdose::detail
