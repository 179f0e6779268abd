//! \file dose/RegionSummary.cc
//! The summary over a region (dose/Dvh.hh, summarize_region): its near-maximum, the mean
//! relative uncertainty above a fraction of it, and the doses of its low-density voxels and
//! outside it.
#include "dose/Dvh.hh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "core/Assert.hh"
#include "core/ParallelFor.hh"
#include "dose/VolumeQuantiles.hh"
#include "dose/detail/DvhSums.hh"
#include "dose/detail/StructureDoses.hh"

namespace mcdose
{
namespace
{
using detail::IgnoreVoxel;
using detail::StructureDoses;
using detail::volume_slack;

//! The region summary's near-maximum is found in its scan where each piece of the grid
//! needs at most this many of its hottest voxels to hold 0.03 cm^3.
constexpr std::size_t max_hottest_voxels = std::size_t(1) << 16;

//! Is voxel a (dose, index) before voxel b when sorted hottest first, equal doses by index?
bool hotter(std::pair<double, std::size_t> const& a, std::pair<double, std::size_t> const& b)
{
    return a.first > b.first || (a.first == b.first && a.second < b.second);
}

/*!
 * The hottest voxels of a part of a region (dose, index in the region), in the order
 * they are added (ascending index): those that can be among the hottest `target` cm^3
 * of the whole region. A heap whose top is the coldest kept drops it while the others
 * hold the target with room (relative 1e-6, far above the rounding of the running
 * volume), so the part's hottest `target` cm^3 are always kept; more than
 * max_hottest_voxels of them are given up (`too_many`).
 */
class HottestVoxels
{
  public:
    using Voxel = std::pair<double, std::size_t>;
    explicit HottestVoxels(double target_cm3) : keep_cm3_(target_cm3 * (1 + 1e-6)) {}

    //! Would add() keep voxel i of dose d? If not, nor any later voxel of that dose (as
    //! long as none is added).
    bool takes(double d, std::size_t i) const
    {
        return !too_many && !(full_ && !hotter({d, i}, voxels.front()));
    }

    //! Adds voxel i of dose d and volume w.
    void add(double d, std::size_t i, double w, StructureDoses const& doses)
    {
        if (!this->takes(d, i))
            return;
        voxels.push_back({d, i});
        std::push_heap(voxels.begin(), voxels.end(), hotter);
        volume_ += w;
        while (voxels.size() > 1)
        {
            double const coldest = doses.volume(voxels.front().second);
            if (volume_ - coldest < keep_cm3_)
                break;
            std::pop_heap(voxels.begin(), voxels.end(), hotter);
            voxels.pop_back();
            volume_ -= coldest;
        }
        full_ = volume_ >= keep_cm3_;
        too_many = voxels.size() > max_hottest_voxels;
        if (too_many)
            std::vector<Voxel>().swap(voxels);
    }

    std::vector<Voxel> voxels;
    bool too_many{false};

  private:
    double keep_cm3_;
    double volume_{0};
    bool full_{false};
};

//! D_V of the region for V = `target` from the hottest voxels of its parts (`parts`, each
//! holding its part's hottest V): the voxels sorted hottest first, equal doses by index,
//! their volumes summed until V (the least kept dose `least` beyond the region's volume).
double dose_to_volume_of(std::vector<HottestVoxels> const& parts, double target, double least,
                         StructureDoses const& doses)
{
    std::vector<HottestVoxels::Voxel> all;
    for (HottestVoxels const& p : parts)
        all.insert(all.end(), p.voxels.begin(), p.voxels.end());
    std::sort(all.begin(), all.end(), hotter);
    double running = 0;
    for (auto const& [d, i] : all)
    {
        running += doses.volume(i);
        if (running >= target)
            return d;
    }
    return least;
}

//! What summarize_region finds in one pass over the grid.
struct RegionScan
{
    size_type low_density_voxels{0};
    double low_density_max{0};
    double outside_max{0};
    double kept_least{std::numeric_limits<double>::infinity()}; //!< of the voxels kept
    double kept_largest{-std::numeric_limits<double>::infinity()};
    std::optional<double> near_max; //!< D_V of the voxels kept, V = the scan's target
};

/*!
 * The voxels whose density is below a threshold [g/cm^3]: a density (a float) is below the
 * threshold (a double) exactly where it is below the least float not below the threshold,
 * so a word's 64 densities are compared as floats, in a loop the compiler vectorizes.
 */
class LowDensity
{
  public:
    LowDensity(Span<float const> density, double threshold_g_cm3) : density_(density.data())
    {
        float f = static_cast<float>(threshold_g_cm3); // the nearest (NaN: none is below)
        if (double(f) < threshold_g_cm3)
            f = std::nextafter(f, std::numeric_limits<float>::infinity());
        below_ = f;
    }
    bool operator()(size_type v) const { return density_[v] < below_; }
    //! Of the voxels [w0, w1) (at most a mask word's 64) without energy: bit v - w0 of
    //! `bits` clear.
    size_type without_energy(size_type w0, size_type w1, std::uint64_t bits) const
    {
        size_type low = 0;
        if (w1 - w0 == 64) // all of the word's, less those with energy
        {
            float const* r = density_ + w0;
            unsigned count = 0;
            for (std::size_t k = 0; k < 64; ++k)
                count += r[k] < below_ ? 1u : 0u;
            low = count;
            for_each_set_bit(bits, w0, [&](size_type v) { low -= (*this)(v) ? 1 : 0; });
            return low;
        }
        for (size_type v = w0; v < w1; ++v)
            low += ((bits >> (v - w0)) & 1) == 0 && (*this)(v) ? 1 : 0;
        return low;
    }

  private:
    float const* density_;
    float below_;
};

//! The region's voxels of low density, the largest dose outside the region, the range of
//! the doses of the others (kept) and D_V of those (V = `target_cm3`; none where too many
//! voxels can hold it), on all cores (pieces of the grid taken by whichever thread is free:
//! the dose, and so the work, is often in a few of them; counts and maxima combine in any
//! order, and each piece's hottest voxels hold the hottest V of the whole).
RegionScan scan_region(StructureMask const& region, DoseGridData const& data,
                       StructureDoses const& doses, LowDensity const& low_density,
                       double target_cm3, int threads)
{
    auto const kept = [&](size_type i) { return !low_density(region.voxel(i)); };
    size_type const n = data.geometry.num_voxels();
    size_type const piece_voxels = size_type(1) << 20;
    std::vector<RegionScan> pieces((n + piece_voxels - 1) / piece_voxels);
    std::vector<HottestVoxels> hottest(pieces.size(), HottestVoxels(target_cm3));
    // By the energy mask where the data carry one (no read of the energy of a voxel without).
    std::uint64_t const* mask = data.has_energy.empty() ? nullptr : data.has_energy.data();
    auto const has_energy = [mask](size_type v) { return !mask || mask_bit(mask, v); };
    // Voxel v, the region's voxel `next` or outside it (then before that one).
    auto const one_voxel = [&](size_type v, size_type& next, RegionScan& p, HottestVoxels& hot)
    {
        bool const inside = next < region.size() && region.voxel(next) == v;
        bool const keep = inside && kept(next);
        double const d = has_energy(v) ? voxel_dose_gy_per_particle(data, v) : dose_without_energy;
        if (keep)
        {
            p.kept_least = std::min(p.kept_least, d);
            p.kept_largest = std::max(p.kept_largest, d);
            std::size_t const i = next++;
            hot.add(d, i, doses.volume(i), doses);
            return;
        }
        next += inside ? 1 : 0;
        double& m = inside ? p.low_density_max : p.outside_max;
        m = std::max(m, d);
        p.low_density_voxels += inside ? 1 : 0;
    };
    // The voxels without energy of [w0, w1) (bit b of `bits` clear: voxel w0 + b; a list's
    // word has none with energy) whose dose the hottest voxels would not take: what
    // one_voxel does for each, their dose being the same, and the same for any order
    // (counts and extrema; the hottest voxels' coldest only grows hotter, so that they take
    // none of them later either). A whole grid's voxel is its own index in the region.
    auto const without_energy =
        [&](size_type w0, size_type w1, std::uint64_t bits, size_type& next, RegionScan& p)
    {
        size_type const first = next;
        size_type low = 0;
        if (region.whole_grid_voxels > 0)
        {
            low = low_density.without_energy(w0, w1, bits);
            next = w1;
        }
        else
        {
            for (; next < region.size() && region.voxel(next) < w1; ++next)
                low += kept(next) ? 0 : 1;
        }
        size_type const inside = next - first - size_type(__builtin_popcountll(bits));
        double const d = dose_without_energy;
        if (inside > low)
        {
            p.kept_least = std::min(p.kept_least, d);
            p.kept_largest = std::max(p.kept_largest, d);
        }
        if (low > 0)
            p.low_density_max = std::max(p.low_density_max, d);
        if (next - first < w1 - w0)
            p.outside_max = std::max(p.outside_max, d);
        p.low_density_voxels += low;
    };
    parallel_for_each(
        pieces.size(),
        [&](size_type t)
        {
            size_type const begin = t * piece_voxels, end = std::min(n, begin + piece_voxels);
            RegionScan p;
            // The region's voxels are ascending: its first at or after `begin`.
            size_type next = region.whole_grid_voxels > 0
                                 ? begin
                                 : size_type(std::lower_bound(region.voxels.begin(),
                                                              region.voxels.end(), begin) -
                                             region.voxels.begin());
            for (size_type w0 = begin; w0 < end; w0 += 64)
            {
                size_type const w1 = std::min(end, w0 + 64);
                std::uint64_t const bits = mask ? word_bits_in(mask, w0 / 64, w0, w1) : 0;
                if (mask && (bits == 0 || region.whole_grid_voxels > 0) &&
                    !hottest[t].takes(dose_without_energy, next))
                {
                    without_energy(w0, w1, bits, next, p);
                    for_each_set_bit(bits, w0,
                                     [&](size_type v)
                                     {
                                         size_type at = v; // its index in the whole grid
                                         one_voxel(v, at, p, hottest[t]);
                                     });
                    continue;
                }
                for (size_type v = w0; v < w1; ++v)
                    one_voxel(v, next, p, hottest[t]);
            }
            pieces[t] = p;
        },
        threads);
    RegionScan all;
    bool too_many = false;
    for (std::size_t t = 0; t < pieces.size(); ++t)
    {
        RegionScan const& p = pieces[t];
        all.low_density_voxels += p.low_density_voxels;
        all.low_density_max = std::max(all.low_density_max, p.low_density_max);
        all.outside_max = std::max(all.outside_max, p.outside_max);
        all.kept_least = std::min(all.kept_least, p.kept_least);
        all.kept_largest = std::max(all.kept_largest, p.kept_largest);
        too_many = too_many || hottest[t].too_many;
    }
    if (!too_many)
        all.near_max = dose_to_volume_of(hottest, target_cm3, all.kept_least, doses);
    return all;
}
} // namespace

RegionSummary summarize_region(DoseGridData const& data, StructureMask const& region,
                               double low_density_g_cm3, double fraction, int threads)
{
    validate_dose_data(data);
    RegionSummary r;
    r.region = region.name;
    r.dose_fraction = fraction;
    r.low_density_threshold_g_cm3 = low_density_g_cm3;
    StructureDoses const doses(region, data, 1.0);
    std::size_t const n = doses.size();
    LowDensity const low_density(data.density_g_cm3, low_density_g_cm3);
    auto const kept = [&](std::size_t i) { return !low_density(region.voxel(i)); };
    // The low-density voxels (counted, their largest dose), the largest dose outside the
    // region (reported, never the near-maximum) and the near-maximum of the voxels kept,
    // in one pass on all cores: counts, maxima and the hottest voxels do not depend on the
    // order.
    double const target = 0.03 * (1 - volume_slack);
    RegionScan const scan = scan_region(region, data, doses, low_density, target, threads);
    r.low_density_voxels = scan.low_density_voxels;
    r.low_density_max = scan.low_density_max;
    r.outside_max = scan.outside_max;
    size_type const count = n - r.low_density_voxels;
    if (count == 0)
        return r;
    auto const dose = [&doses](std::size_t i) { return doses.at(i).dose; };
    auto const volume = [&doses](std::size_t i) { return doses.volume(i); };
    // From the scan's hottest voxels, or (where too many of them hold 0.03 cm3) by binning.
    r.near_max =
        scan.near_max
            ? *scan.near_max
            : make_volume_quantiles(n, std::cref(dose), std::cref(volume), std::cref(kept), count,
                                    threads)({target}, {scan.kept_least, scan.kept_largest})[0];
    if (!(r.near_max > 0))
        return r;
    // In fixed blocks of voxels added in block order: the same mean for any thread count.
    double const threshold = fraction * r.near_max;
    // A voxel without energy is counted only if its dose (0) is above the threshold.
    bool const empty_counts = doses.empty_voxel().dose > threshold;
    using Mean = std::pair<double, size_type>; // sum of relative uncertainties, voxels
    auto const part = [&](std::size_t begin, std::size_t end, Mean& m)
    {
        auto const add = [&](std::size_t i)
        {
            if (kept(i) && doses.at(i).dose > threshold)
            {
                m.first += voxel_relative_uncertainty(data, region.voxel(i));
                ++m.second;
            }
        };
        if (empty_counts)
            doses.visit(begin, end, add, add);
        else
            doses.visit(begin, end, add, IgnoreVoxel{});
    };
    auto const merge = [](Mean& total, Mean const& m)
    {
        total.first += m.first;
        total.second += m.second;
    };
    Mean const mean = parallel_block_sum(n, threads, Mean{0.0, 0}, part, merge);
    r.voxels_counted = mean.second;
    if (r.voxels_counted > 0)
        r.mean_relative = mean.first / double(r.voxels_counted);
    return r;
}
} // namespace mcdose
