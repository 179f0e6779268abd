//! \file dose/VolumeQuantiles.hh
//! D_V, the dose to a volume V, for many voxels without sorting them all.
//!
//! D_V is the dose of the first voxel, hottest first, at which the running sum
//! of the voxels' volumes reaches V (dose/Dvh.hh). Sorting every voxel costs
//! O(n log n) per figure, minutes for a body of 10^8 voxels; here each level
//! bins the voxels that can still hold the answer into 2^16 bins by dose
//! (one pass), finds the bin where the running volume reaches each V, and
//! keeps only that bin's voxels for the next level. Binning preserves the dose
//! order, so the answer is that of a full sort; a set of at most 4096 voxels,
//! or of equal doses, is finished by sorting it. Equal doses are ordered by
//! voxel index, as a stable sort would. On the whole set, the dose range and
//! the voxels kept for the next level are found on all cores; the bins' volumes
//! are summed on one thread in voxel order, so the answer does not depend on
//! the number of cores.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "core/ParallelFor.hh"

namespace mcdose
{
//! Every voxel of [0, n) takes part (VolumeQuantiles' default).
struct EveryVoxel
{
    bool operator()(std::size_t) const { return true; }
};

/*!
 * Doses to volumes over the voxels i in [0, n) for which `member(i)` holds
 * (`count` of them): `dose(i)` and `volume(i)` [any dose unit, cm^3]. A
 * target above the total volume gets the least dose. Targets are compared as
 * they are given (callers add their own slack).
 */
template <class Dose, class Volume, class Member = EveryVoxel>
class VolumeQuantiles
{
  public:
    VolumeQuantiles(std::size_t n, Dose dose, Volume volume, Member member = {})
        : VolumeQuantiles(n, std::move(dose), std::move(volume), std::move(member), n)
    {
    }
    VolumeQuantiles(std::size_t n, Dose dose, Volume volume, Member member, std::size_t count)
        : n_(n), count_(count), dose_(std::move(dose)), volume_(std::move(volume)),
          member_(std::move(member))
    {
    }

    //! D_V for each V in `targets_cm3` (any order), in the same order.
    std::vector<double> operator()(std::vector<double> const& targets_cm3) const
    {
        std::vector<double> result(targets_cm3.size(), 0.0);
        if (count_ == 0)
            return result;
        std::vector<Target> targets;
        for (std::size_t k = 0; k < targets_cm3.size(); ++k)
            targets.push_back({targets_cm3[k], k});
        this->resolve(AllVoxels{n_, &member_}, count_, 0.0, std::move(targets), result);
        return result;
    }

  private:
    struct Target
    {
        double volume;
        std::size_t slot;
    };
    static constexpr std::size_t bins = std::size_t(1) << 16;
    static constexpr std::size_t small_set = 4096;

    //! Visits the members of [0, n).
    struct AllVoxels
    {
        std::size_t n;
        Member const* member;
        template <class F>
        void operator()(F& f) const
        {
            for (std::size_t i = 0; i < n; ++i)
            {
                if ((*member)(i))
                    f(i);
            }
        }
    };
    //! Visits the voxels of a list (one type at every level: a finite recursion).
    struct SomeVoxels
    {
        std::vector<std::size_t> const* members;
        template <class F>
        void operator()(F& f) const
        {
            for (std::size_t i : *members)
                f(i);
        }
    };

    /*!
     * Resolve `targets` within a set of voxels (visited by `for_each`, in
     * index order) whose doses are all below those of the voxels outside it
     * that rank first; `above` is the volume of those.
     */
    template <class ForEach>
    void resolve(ForEach const& for_each, std::size_t count, double above,
                 std::vector<Target> targets, std::vector<double>& result) const
    {
        auto const [lo, hi] = this->dose_range(for_each);
        if (!(lo < hi))
        {
            for (Target const& t : targets)
                result[t.slot] = hi; // one dose: every target within the set gets it
            return;
        }
        if (count <= small_set)
        {
            this->finish(for_each, count, above, targets, result);
            return;
        }
        // Bins ordered as the doses: (d - lo) * scale is non-decreasing in d.
        double const scale = double(bins) / (hi - lo);
        auto bin_of = [lo = lo, scale](double d)
        { return std::min(bins - 1, static_cast<std::size_t>((d - lo) * scale)); };
        std::vector<double> bin_volume(bins, 0.0);
        auto add = [&](std::size_t i) { bin_volume[bin_of(dose_(i))] += volume_(i); };
        for_each(add);
        // Hottest bin first: the bin in which each target's running volume is reached
        // (the coldest non-empty bin for targets beyond the total).
        std::sort(targets.begin(), targets.end(),
                  [](Target const& a, Target const& b) { return a.volume < b.volume; });
        std::map<std::size_t, std::pair<double, std::vector<Target>>> groups;
        std::size_t next = 0;
        double running = above;
        std::size_t coldest = bins;
        for (std::size_t b = bins; b-- > 0 && next < targets.size();)
        {
            if (bin_volume[b] == 0)
                continue;
            coldest = b;
            double const through = running + bin_volume[b];
            while (next < targets.size() && targets[next].volume <= through)
            {
                auto& group = groups[b];
                group.first = running;
                group.second.push_back(targets[next++]);
            }
            running = through;
        }
        for (; next < targets.size(); ++next)
        {
            auto& group = groups[coldest];
            group.first = running - bin_volume[coldest];
            group.second.push_back(targets[next]);
        }
        // The voxels of each group's bin, in index order, in one pass.
        std::vector<int> group_of_bin(bins, -1);
        int g = 0;
        for (auto const& entry : groups)
            group_of_bin[entry.first] = g++;
        auto const in_group = [&](std::size_t i) { return group_of_bin[bin_of(dose_(i))]; };
        auto members = this->split(for_each, groups.size(), in_group);
        g = 0;
        for (auto& entry : groups)
        {
            std::vector<std::size_t> const& m = members[g++];
            this->resolve(SomeVoxels{&m}, m.size(), entry.second.first,
                          std::move(entry.second.second), result);
        }
    }

    //! The least and largest dose of a list's voxels.
    std::pair<double, double> dose_range(SomeVoxels const& voxels) const
    {
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        for (std::size_t i : *voxels.members)
        {
            double const d = dose_(i);
            lo = std::min(lo, d);
            hi = std::max(hi, d);
        }
        return {lo, hi};
    }

    //! The least and largest dose of the members of [0, n), on all cores (a minimum
    //! and a maximum do not depend on the order).
    std::pair<double, double> dose_range(AllVoxels const& all) const
    {
        double const inf = std::numeric_limits<double>::infinity();
        std::vector<std::pair<double, double>> piece(parallel_pieces(all.n, 0), {inf, -inf});
        parallel_for_pieces(all.n, 0,
                            [&](std::size_t begin, std::size_t end, std::size_t t)
                            {
                                double lo = inf, hi = -inf;
                                for (std::size_t i = begin; i < end; ++i)
                                {
                                    if (!(*all.member)(i))
                                        continue;
                                    double const d = dose_(i);
                                    lo = std::min(lo, d);
                                    hi = std::max(hi, d);
                                }
                                piece[t] = {lo, hi};
                            });
        std::pair<double, double> r{inf, -inf};
        for (auto const& [lo, hi] : piece)
            r = {std::min(r.first, lo), std::max(r.second, hi)};
        return r;
    }

    //! The list's voxels by group_of(i) in [0, groups) (-1: none), each in index order.
    template <class GroupOf>
    std::vector<std::vector<std::size_t>> split(SomeVoxels const& voxels, std::size_t groups,
                                                GroupOf const& group_of) const
    {
        std::vector<std::vector<std::size_t>> members(groups);
        for (std::size_t i : *voxels.members)
        {
            int const g = group_of(i);
            if (g >= 0)
                members[g].push_back(i);
        }
        return members;
    }

    //! The same for the members of [0, n), on all cores: each piece's lists are
    //! joined in piece order, so that each list is in index order.
    template <class GroupOf>
    std::vector<std::vector<std::size_t>> split(AllVoxels const& all, std::size_t groups,
                                                GroupOf const& group_of) const
    {
        using Lists = std::vector<std::vector<std::size_t>>;
        std::vector<Lists> piece(parallel_pieces(all.n, 0), Lists(groups));
        parallel_for_pieces(all.n, 0,
                            [&](std::size_t begin, std::size_t end, std::size_t t)
                            {
                                for (std::size_t i = begin; i < end; ++i)
                                {
                                    int const g = (*all.member)(i) ? group_of(i) : -1;
                                    if (g >= 0)
                                        piece[t][g].push_back(i);
                                }
                            });
        Lists members(groups);
        for (std::size_t g = 0; g < groups; ++g)
        {
            for (Lists const& p : piece)
                members[g].insert(members[g].end(), p[g].begin(), p[g].end());
        }
        return members;
    }

    //! Sort a small set hottest first (equal doses by index) and walk its volumes.
    template <class ForEach>
    void finish(ForEach const& for_each, std::size_t count, double above,
                std::vector<Target> const& targets, std::vector<double>& result) const
    {
        std::vector<std::pair<double, std::size_t>> set;
        set.reserve(count);
        auto collect = [&](std::size_t i) { set.push_back({dose_(i), i}); };
        for_each(collect);
        std::sort(set.begin(), set.end(),
                  [](auto const& a, auto const& b)
                  { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        for (Target const& t : targets)
        {
            double running = above;
            double found = set.back().first; // beyond the set's volume: its least dose
            for (auto const& [d, i] : set)
            {
                running += volume_(i);
                if (running >= t.volume)
                {
                    found = d;
                    break;
                }
            }
            result[t.slot] = found;
        }
    }

    std::size_t n_;
    std::size_t count_;
    Dose dose_;
    Volume volume_;
    Member member_;
};

//! Deduction guide helper: VolumeQuantiles over two callables.
template <class Dose, class Volume>
VolumeQuantiles<Dose, Volume> make_volume_quantiles(std::size_t n, Dose dose, Volume volume)
{
    return VolumeQuantiles<Dose, Volume>(n, std::move(dose), std::move(volume));
}

//! VolumeQuantiles over the `count` voxels of [0, n) for which `member(i)` holds.
template <class Dose, class Volume, class Member>
VolumeQuantiles<Dose, Volume, Member> make_volume_quantiles(std::size_t n, Dose dose, Volume volume,
                                                            Member member, std::size_t count)
{
    return VolumeQuantiles<Dose, Volume, Member>(n, std::move(dose), std::move(volume),
                                                 std::move(member), count);
}
} // namespace mcdose
