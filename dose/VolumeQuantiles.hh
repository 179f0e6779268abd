//! \file dose/VolumeQuantiles.hh
//! D_V, the dose to a volume V, for many voxels without sorting them all.
//!
//! D_V is the dose of the first voxel, hottest first, at which the running sum
//! of the voxels' volumes reaches V (dose/Dvh.hh). Sorting every voxel costs
//! O(n log n) per figure, minutes for a body of 10^8 voxels; here each level
//! bins the voxels that can still hold the answer into 2^16 bins by dose
//! (one pass), finds the bin where the running volume reaches each V, and
//! keeps only that bin's voxels, with their dose range, for the next level.
//! The voxels at the set's least dose have a bin of their own (most of a body
//! gets no dose in a short run): a V reached there is that dose, without a list.
//! Binning preserves the dose order, so the answer is that of a full sort; a set
//! of at most 4096 voxels, or of equal doses, is finished by sorting it. Equal
//! doses are ordered by voxel index, as a stable sort would. Every pass over a
//! set runs on all cores: the dose range (a minimum and a maximum), the voxels
//! kept for the next level (each piece's lists joined in order) and the bins'
//! volumes (summed in fixed blocks of 2^18 voxels, the blocks' sums added in
//! block order), so the answer does not depend on the number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "core/Assert.hh"
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
    //! `threads`: host threads of the passes (0: all; the answer does not depend on it).
    VolumeQuantiles(std::size_t n, Dose dose, Volume volume, Member member, std::size_t count,
                    int threads = 0)
        : n_(n), count_(count), dose_(std::move(dose)), volume_(std::move(volume)),
          member_(std::move(member)), threads_(threads)
    {
    }

    //! D_V for each V in `targets_cm3` (any order), in the same order.
    std::vector<double> operator()(std::vector<double> const& targets_cm3) const
    {
        return (*this)(targets_cm3, this->dose_range(AllVoxels{n_, &member_}));
    }

    //! The same, given the members' least and largest dose (`range`), exactly as
    //! `dose(i)` gives them (from a pass the caller makes anyway): one pass fewer.
    std::vector<double> operator()(std::vector<double> const& targets_cm3,
                                   std::pair<double, double> range) const
    {
        std::vector<double> result(targets_cm3.size(), 0.0);
        if (count_ == 0)
            return result;
        std::vector<Target> targets;
        for (std::size_t k = 0; k < targets_cm3.size(); ++k)
            targets.push_back({targets_cm3[k], k});
        this->resolve(AllVoxels{n_, &member_}, count_, range, 0.0, std::move(targets), result);
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
    //! Positions per block of the bins' sums (a constant: see bin_volumes).
    static constexpr std::size_t bin_block = std::size_t(1) << 18;

    //! The members of [0, n), visited by position: position i is voxel i.
    struct AllVoxels
    {
        std::size_t n;
        Member const* member;
        std::size_t size() const { return n; }
        //! f(i) for the members among the positions [begin, end), in index order.
        template <class F>
        void operator()(std::size_t begin, std::size_t end, F& f) const
        {
            for (std::size_t i = begin; i < end; ++i)
            {
                if ((*member)(i))
                    f(i);
            }
        }
    };
    //! The voxels of a list (one type at every level: a finite recursion).
    struct SomeVoxels
    {
        std::vector<std::size_t> const* members;
        std::size_t size() const { return members->size(); }
        template <class F>
        void operator()(std::size_t begin, std::size_t end, F& f) const
        {
            for (std::size_t j = begin; j < end; ++j)
                f((*members)[j]);
        }
    };

    /*!
     * Resolve `targets` within a set of voxels (visited by `set`, in index order,
     * doses within `range`: least, largest) whose doses are all below those of the
     * voxels outside it that rank first; `above` is the volume of those.
     */
    template <class Set>
    void resolve(Set const& set, std::size_t count, std::pair<double, double> range, double above,
                 std::vector<Target> targets, std::vector<double>& result) const
    {
        auto const [lo, hi] = range;
        if (!(lo < hi))
        {
            for (Target const& t : targets)
                result[t.slot] = hi; // one dose: every target within the set gets it
            return;
        }
        if (count <= small_set)
        {
            this->finish(set, count, above, targets, result);
            return;
        }
        // Bin 0: the least dose; bins 1 to `bins`: the doses above it, ordered as the
        // doses ((d - lo) * scale is non-decreasing in d).
        double const scale = double(bins) / (hi - lo);
        auto bin_of = [lo = lo, scale](double d)
        {
            MCDOSE_EXPECT(d >= lo);
            return d == lo ? std::size_t(0)
                           : 1 + std::min(bins - 1, static_cast<std::size_t>((d - lo) * scale));
        };
        std::vector<double> const bin_volume = this->bin_volumes(set, bin_of);
        // Hottest bin first: the bin in which each target's running volume is reached
        // (the coldest non-empty bin for targets beyond the total).
        std::sort(targets.begin(), targets.end(),
                  [](Target const& a, Target const& b) { return a.volume < b.volume; });
        std::map<std::size_t, std::pair<double, std::vector<Target>>> groups;
        std::size_t next = 0;
        double running = above;
        std::size_t coldest = bin_volume.size();
        for (std::size_t b = bin_volume.size(); b-- > 0 && next < targets.size();)
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
        // The least dose's bin holds one dose: its targets need no list.
        if (auto const least = groups.find(0); least != groups.end())
        {
            for (Target const& t : least->second.second)
                result[t.slot] = lo;
            groups.erase(least);
        }
        if (groups.empty())
            return;
        // The voxels of each group's bin, in index order, with their range, in one pass.
        std::vector<int> group_of_bin(bin_volume.size(), -1);
        int g = 0;
        for (auto const& entry : groups)
            group_of_bin[entry.first] = g++;
        auto const in_group = [&](double d) { return group_of_bin[bin_of(d)]; };
        auto const [members, ranges] = this->split(set, groups.size(), in_group);
        g = 0;
        for (auto& entry : groups)
        {
            std::vector<std::size_t> const& m = members[g];
            this->resolve(SomeVoxels{&m}, m.size(), ranges[g], entry.second.first,
                          std::move(entry.second.second), result);
            ++g;
        }
    }

    //! The least and largest dose of the set's voxels, on all cores (a minimum and a
    //! maximum do not depend on the order).
    template <class Set>
    std::pair<double, double> dose_range(Set const& set) const
    {
        double const inf = std::numeric_limits<double>::infinity();
        std::vector<std::pair<double, double>> piece(parallel_pieces(set.size(), threads_),
                                                     {inf, -inf});
        parallel_for_pieces(set.size(), threads_,
                            [&](std::size_t begin, std::size_t end, std::size_t t)
                            {
                                double lo = inf, hi = -inf;
                                auto visit = [&](std::size_t i)
                                {
                                    double const d = dose_(i);
                                    lo = std::min(lo, d);
                                    hi = std::max(hi, d);
                                };
                                set(begin, end, visit);
                                piece[t] = {lo, hi};
                            });
        std::pair<double, double> r{inf, -inf};
        for (auto const& [lo, hi] : piece)
            r = {std::min(r.first, lo), std::max(r.second, hi)};
        return r;
    }

    //! The volume of the set's voxels in each bin: summed in blocks of bin_block positions
    //! on all cores, the blocks' sums added in block order (the same for any thread count).
    template <class Set, class BinOf>
    std::vector<double> bin_volumes(Set const& set, BinOf const& bin_of) const
    {
        auto part = [&](std::size_t begin, std::size_t end, std::vector<double>& acc)
        {
            auto add = [&](std::size_t i) { acc[bin_of(dose_(i))] += volume_(i); };
            set(begin, end, add);
        };
        auto merge = [](std::vector<double>& total, std::vector<double> const& acc)
        {
            for (std::size_t b = 0; b < total.size(); ++b)
                total[b] += acc[b];
        };
        return parallel_block_sum(set.size(), threads_, std::vector<double>(bins + 1, 0.0), part,
                                  merge, bin_block, 2 * size_type(host_loop_threads(threads_)));
    }

    //! The set's voxels by group_of(dose) in [0, groups) (-1: none), each in index order,
    //! and each group's least and largest dose, on all cores: each piece's lists are
    //! joined in piece order.
    template <class Set, class GroupOf>
    std::pair<std::vector<std::vector<std::size_t>>, std::vector<std::pair<double, double>>>
    split(Set const& set, std::size_t groups, GroupOf const& group_of) const
    {
        using Lists = std::vector<std::vector<std::size_t>>;
        using Ranges = std::vector<std::pair<double, double>>;
        double const inf = std::numeric_limits<double>::infinity();
        std::size_t const pieces = parallel_pieces(set.size(), threads_);
        std::vector<Lists> piece(pieces, Lists(groups));
        std::vector<Ranges> piece_range(pieces, Ranges(groups, {inf, -inf}));
        parallel_for_pieces(set.size(), threads_,
                            [&](std::size_t begin, std::size_t end, std::size_t t)
                            {
                                auto visit = [&](std::size_t i)
                                {
                                    double const d = dose_(i);
                                    int const g = group_of(d);
                                    if (g < 0)
                                        return;
                                    piece[t][g].push_back(i);
                                    auto& r = piece_range[t][g];
                                    r = {std::min(r.first, d), std::max(r.second, d)};
                                };
                                set(begin, end, visit);
                            });
        Lists members(groups);
        Ranges ranges(groups, {inf, -inf});
        for (std::size_t g = 0; g < groups; ++g)
        {
            std::size_t total = 0;
            for (Lists const& p : piece)
                total += p[g].size();
            members[g].reserve(total);
            for (std::size_t t = 0; t < pieces; ++t)
            {
                members[g].insert(members[g].end(), piece[t][g].begin(), piece[t][g].end());
                std::vector<std::size_t>().swap(piece[t][g]);
                ranges[g] = {std::min(ranges[g].first, piece_range[t][g].first),
                             std::max(ranges[g].second, piece_range[t][g].second)};
            }
        }
        return {std::move(members), std::move(ranges)};
    }

    //! Sort a small set hottest first (equal doses by index) and walk its volumes.
    template <class Set>
    void finish(Set const& voxels, std::size_t count, double above,
                std::vector<Target> const& targets, std::vector<double>& result) const
    {
        std::vector<std::pair<double, std::size_t>> set;
        set.reserve(count);
        auto collect = [&](std::size_t i) { set.push_back({dose_(i), i}); };
        voxels(0, voxels.size(), collect);
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
    int threads_;
};

//! Deduction guide helper: VolumeQuantiles over two callables.
template <class Dose, class Volume>
VolumeQuantiles<Dose, Volume> make_volume_quantiles(std::size_t n, Dose dose, Volume volume,
                                                    int threads = 0)
{
    return VolumeQuantiles<Dose, Volume>(n, std::move(dose), std::move(volume), EveryVoxel{}, n,
                                         threads);
}

//! VolumeQuantiles over the `count` voxels of [0, n) for which `member(i)` holds.
template <class Dose, class Volume, class Member>
VolumeQuantiles<Dose, Volume, Member> make_volume_quantiles(std::size_t n, Dose dose, Volume volume,
                                                            Member member, std::size_t count,
                                                            int threads = 0)
{
    return VolumeQuantiles<Dose, Volume, Member>(n, std::move(dose), std::move(volume),
                                                 std::move(member), count, threads);
}
} // namespace mcdose
