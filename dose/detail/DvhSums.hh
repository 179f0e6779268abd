//! \file dose/detail/DvhSums.hh
//! What the passes of the DVH figures share (dose/Dvh.cc, and the replica dose fields of
//! their uncertainty in dose/DvhUncertainty.cc): the figures' volumes, the cumulative curve,
//! the normal tail, the range of a voxel's draws and the sums of one pass over the voxels.
//! Internal to dose/.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "core/Constants.hh"
#include "core/ParallelFor.hh"
#include "dose/Dvh.hh"
#include "dose/detail/StructureDoses.hh"

namespace mcdose::detail
{
//! Relative slack on a target volume: a running sum of voxel volumes that should
//! equal V exactly (V = x % of the total) must not miss it by rounding.
constexpr double volume_slack = 1e-12;
//! Normal deviates of the replica dose fields are cut at this many sigma (a
//! deviate beyond has probability 1.2e-15), so that voxels far from a figure
//! are known to lie on one side of it in every replica and need no draws.
constexpr double truncation_sigmas = 8;
//! A dose-to-volume figure with more voxels than this that can cross it takes the
//! asymptotic (delta-method) spread instead of replicas: sorting that many drawn doses 32
//! times would cost seconds, and so many voxels make the asymptotic form accurate.
constexpr std::size_t max_replica_voxels = std::size_t(1) << 14;
//! The least dose's spread is estimated only where at most this many voxels can hold it.
constexpr std::size_t max_minimum_voxels = std::size_t(1) << 16;

//! P(Z > |z|) (`tail`) and the density phi(z) of a standard normal Z, from one
//! exponential: erfc by Abramowitz & Stegun (1964) 7.1.26, absolute error <= 1.5e-7 (and
//! falling with erfc in the tails), ample for the spread of a figure; the variance terms
//! p (1 - p) = tail (1 - tail) need no cancelling difference.
struct NormalTail
{
    double tail, density;
};

inline NormalTail normal_tail(double z)
{
    double const x = std::fabs(z) / std::sqrt(2.0);
    double const e = std::exp(-x * x); // exp(-z^2 / 2)
    double const t = 1 / (1 + 0.3275911 * x);
    double const erfc_x =
        t *
        (0.254829592 +
         t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) *
        e;
    return {0.5 * erfc_x, e / std::sqrt(2 * constants::pi)};
}

//! Adds element by element (the merge of a block sum of a vector).
inline void add_to(std::vector<double>& total, std::vector<double> const& part)
{
    for (std::size_t k = 0; k < total.size(); ++k)
        total[k] += part[k];
}

//! The cumulative DVH's levels: dvh_curve_bins + 1 doses from 0 to `top`.
struct CurveLevels
{
    double top;
    double level(int b) const { return top * b / dvh_curve_bins; }
    //! The level b whose volume (at_level[b]) holds dose d: d >= level(b) but < level(b + 1).
    int bin(double d) const
    {
        int const n = dvh_curve_bins;
        int b = top > 0 ? static_cast<int>(std::min<double>(n, std::floor(d / top * n))) : n;
        while (b < n && d >= level(b + 1))
            ++b;
        while (b > 0 && d < level(b))
            --b;
        return b;
    }
};

//! The curve of `f` from the volume of the voxels at each level (CurveLevels::bin) and
//! the total volume.
inline void finish_curve(CurveLevels const& levels, std::vector<double> const& at_level,
                         double total, DvhFigures& f)
{
    int const n = dvh_curve_bins;
    std::vector<double> at_least(n + 1, 0.0);
    double sum = 0;
    for (int b = n; b >= 0; --b)
        at_least[b] = sum += at_level[b];
    for (int b = 0; b <= n; ++b)
    {
        f.curve_dose.push_back(levels.level(b));
        f.curve_volume_cm3.push_back(b == 0 ? total : at_least[b]);
    }
}

//! The cumulative DVH at dvh_curve_bins + 1 doses from 0 to `top`, in one pass on all
//! cores (fixed blocks of voxels added in block order; Replicas::scan in DvhUncertainty.cc
//! makes the same sums in its pass).
template <class Dose, class Volume>
void set_curve(std::size_t count, Dose const& dose, Volume const& volume, double top, double total,
               int threads, DvhFigures& f)
{
    CurveLevels const levels{top};
    auto const part = [&](std::size_t begin, std::size_t end, std::vector<double>& at_level)
    {
        for (std::size_t i = begin; i < end; ++i)
            at_level[levels.bin(dose(i))] += volume(i);
    };
    std::vector<double> const at_level = parallel_block_sum(
        count, threads, std::vector<double>(dvh_curve_bins + 1, 0.0), part, add_to);
    finish_curve(levels, at_level, total, f);
}

//! The dose-to-volume figures, in the order of `fixed_figures`: volumes to reach.
inline std::vector<double> figure_volumes(double total)
{
    return {0.03, 0.98 * total, 0.95 * total, 0.50 * total, 0.02 * total};
}

inline std::array<FigureWithSigma*, 5> fixed_figures(DvhFigures& f)
{
    return {&f.d_003cc, &f.d98, &f.d95, &f.d50, &f.d2};
}

//! The least and largest dose a voxel of dose `d` and sigma `sd` can draw.
struct DrawRange
{
    double low, high;
    DrawRange(double d, double sd)
        : low(std::max(0.0, d - truncation_sigmas * sd)), high(d + truncation_sigmas * sd)
    {
    }
};

/*!
 * What one pass over a structure's voxels sums: the nominal figures' totals, the
 * volume at least each dose of `levels`, and what the uncertainty needs.
 */
struct VoxelSums
{
    double total{0};    //!< sum w
    double weighted{0}; //!< sum w d
    double least{std::numeric_limits<double>::infinity()};
    double largest{-std::numeric_limits<double>::infinity()};
    std::vector<double> v_at;                                  //!< sum w over d >= levels[k]
    bool finite{true};                                         //!< every voxel's sigma is finite
    double mean_var{0};                                        //!< sum w^2 sigma^2
    double high_min{std::numeric_limits<double>::infinity()};  //!< least largest draw
    double high_max{-std::numeric_limits<double>::infinity()}; //!< largest largest draw
    double low_min{std::numeric_limits<double>::infinity()};   //!< least least draw
    double low_max{-std::numeric_limits<double>::infinity()};  //!< largest least draw
    //! sum w^2 p (1 - p), p = P(d' >= levels[k]): the variance of V at levels[k]
    std::vector<double> v_at_var;

    //! Adds the sums of the next block of voxels.
    void add(VoxelSums const& b)
    {
        total += b.total;
        weighted += b.weighted;
        least = std::min(least, b.least);
        largest = std::max(largest, b.largest);
        add_to(v_at, b.v_at);
        finite = finite && b.finite;
        mean_var += b.mean_var;
        high_min = std::min(high_min, b.high_min);
        high_max = std::max(high_max, b.high_max);
        low_min = std::min(low_min, b.low_min);
        low_max = std::max(low_max, b.low_max);
        add_to(v_at_var, b.v_at_var);
    }
};

//! D_V of the voxels' least and largest draws (DrawRange), at the figures' volumes: every
//! replica's D_V lies between the two.
struct DrawFigures
{
    std::vector<double> lows, highs;
};

/*!
 * The curve of `f` and the sigmas of its D_min and D_V figures (nominal values set) of the
 * voxels of `doses`, given their sums (`sums`, finite sigmas) and the D_V of their least and
 * largest draws (`draws`), from one pass over the voxels on `threads` threads
 * (dose/DvhUncertainty.cc: replica dose fields).
 */
void add_replica_uncertainty(DvhFigures& f, StructureDoses const& doses, VoxelSums const& sums,
                             DrawFigures const& draws, int threads);
} // namespace mcdose::detail
