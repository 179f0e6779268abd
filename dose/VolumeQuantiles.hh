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
//! Several dose functions of the same voxels (a voxel's dose and the least and
//! largest doses it can draw) are resolved together: `dose(i)` then gives the K
//! doses of voxel i at once, and the first level's two passes over all voxels
//! serve all K. A member type may visit its voxels itself and skip those that share
//! one set of doses (most of a body in a short run: no energy, dose 0), which then
//! count by their number and volume per block (SkippedVoxels).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <map>
#include <type_traits>
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

//! The members a visit of [begin, end) left out, all of one set of doses: how many, and
//! their volume (summed as the member type sums it: the same however the blocks are run).
struct SkippedVoxels
{
    std::size_t count{0};
    double volume{0};
};

namespace detail
{
/*!
 * Does member type M visit its members itself, skipping some? Such a type has `skips`
 * and, instead of a predicate, `visit(begin, end, f, every)`: f(i) for its members in
 * [begin, end) in index order but those it skips (every member with `every`), returning
 * the skipped ones (none with `every`); and `skipped_dose(k)`: dose k of a skipped voxel.
 */
template <class M, class = void>
struct Skips : std::false_type
{
};
template <class M>
struct Skips<M, std::void_t<decltype(M::skips)>> : std::true_type
{
};
//! Doses a dose function gives per voxel: 1 for a number, K for std::array<double, K>.
template <class T>
struct DoseCount
{
    static constexpr std::size_t value = 1;
};
template <std::size_t K>
struct DoseCount<std::array<double, K>>
{
    static constexpr std::size_t value = K;
};
inline std::array<double, 1> as_doses(double d)
{
    return {d};
}
template <std::size_t K>
std::array<double, K> const& as_doses(std::array<double, K> const& d)
{
    return d;
}
} // namespace detail

/*!
 * Doses to volumes over the voxels i in [0, n) for which `member(i)` holds
 * (`count` of them): `dose(i)` and `volume(i)` [any dose unit, cm^3]. A
 * target above the total volume gets the least dose. Targets are compared as
 * they are given (callers add their own slack). `dose(i)` may give K doses
 * (std::array<double, K>): each is resolved with its own targets.
 */
template <class Dose, class Volume, class Member = EveryVoxel>
class VolumeQuantiles
{
  public:
    //! Dose functions resolved together (the size of what `dose(i)` gives).
    static constexpr std::size_t K =
        detail::DoseCount<std::decay_t<std::invoke_result_t<Dose const&, std::size_t>>>::value;
    using Range = std::pair<double, double>; //!< least and largest dose

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

    //! D_V for each V in `targets_cm3` (any order), in the same order (one dose function).
    std::vector<double> operator()(std::vector<double> const& targets_cm3) const
    {
        static_assert(K == 1, "K dose functions: give each its targets and range");
        return (*this)(targets_cm3, this->dose_range(AllVoxels{n_, &member_}));
    }

    //! The same, given the members' least and largest dose (`range`), exactly as
    //! `dose(i)` gives them (from a pass the caller makes anyway): one pass fewer.
    std::vector<double> operator()(std::vector<double> const& targets_cm3, Range range) const
    {
        static_assert(K == 1, "K dose functions: give each its targets and range");
        return (*this)(std::array<std::vector<double>, 1>{targets_cm3},
                       std::array<Range, 1>{range})[0];
    }

    //! For each dose function k: D_V for each V in `targets_cm3[k]`, in the same order,
    //! given the least and largest of its doses (`ranges[k]`).
    std::array<std::vector<double>, K>
    operator()(std::array<std::vector<double>, K> const& targets_cm3,
               std::array<Range, K> const& ranges) const
    {
        std::array<std::vector<double>, K> result;
        std::vector<Job> jobs;
        for (std::size_t k = 0; k < K; ++k)
        {
            result[k].assign(targets_cm3[k].size(), 0.0);
            Job job{k, ranges[k], 0.0, {}};
            for (std::size_t t = 0; t < targets_cm3[k].size(); ++t)
                job.targets.push_back({targets_cm3[k][t], t});
            if (count_ > 0)
                jobs.push_back(std::move(job));
        }
        this->resolve(AllVoxels{n_, &member_}, count_, std::move(jobs), result);
        return result;
    }

  private:
    struct Target
    {
        double volume;
        std::size_t slot;
    };
    //! Targets of dose function k within a set: its doses there lie in `range` and are
    //! all below those of the voxels outside the set that rank first (`above`: their volume).
    struct Job
    {
        std::size_t k;
        Range range;
        double above;
        std::vector<Target> targets;
    };
    using Results = std::array<std::vector<double>, K>;
    static constexpr std::size_t bins = std::size_t(1) << 16;
    static constexpr std::size_t small_set = 4096;
    //! Positions per block of the bins' sums (a constant: see bin_volumes).
    static constexpr std::size_t bin_block = std::size_t(1) << 18;

    //! Bin 0: the least dose `lo`; bins 1 to `bins`: the doses above it, ordered as the
    //! doses ((d - lo) * scale is non-decreasing in d).
    struct BinOf
    {
        double lo, scale;
        std::size_t operator()(double d) const
        {
            MCDOSE_EXPECT(d >= lo);
            return d == lo ? std::size_t(0)
                           : 1 + std::min(bins - 1, static_cast<std::size_t>((d - lo) * scale));
        }
    };

    static constexpr bool skips = detail::Skips<Member>::value;

    //! The members of [0, n), visited by position: position i is voxel i.
    struct AllVoxels
    {
        std::size_t n;
        Member const* member;
        std::size_t size() const { return n; }
        //! f(i) for the members among the positions [begin, end), in index order, but those
        //! a skipping member type skips (unless `every`); returns those.
        template <class F>
        SkippedVoxels operator()(std::size_t begin, std::size_t end, F& f, bool every = false) const
        {
            if constexpr (skips)
            {
                return member->visit(begin, end, f, every);
            }
            else
            {
                for (std::size_t i = begin; i < end; ++i)
                {
                    if ((*member)(i))
                        f(i);
                }
                return {};
            }
        }
    };
    //! The voxels of a list (one type at every level: a finite recursion).
    struct SomeVoxels
    {
        std::vector<std::size_t> const* members;
        std::size_t size() const { return members->size(); }
        template <class F>
        SkippedVoxels operator()(std::size_t begin, std::size_t end, F& f, bool = false) const
        {
            for (std::size_t j = begin; j < end; ++j)
                f((*members)[j]);
            return {};
        }
    };

    //! The K doses of a skipped voxel (none are skipped without a skipping member type).
    std::array<double, K> skipped_doses() const
    {
        std::array<double, K> d{};
        if constexpr (skips)
        {
            for (std::size_t k = 0; k < K; ++k)
                d[k] = member_.skipped_dose(k);
        }
        return d;
    }

    //! The K doses of voxel i.
    std::array<double, K> doses(std::size_t i) const { return detail::as_doses(dose_(i)); }

    /*!
     * Resolve `jobs` within a set of `count` voxels (visited by `set`, in index order):
     * a job whose doses there are one value, or a small set, at once; the others
     * binned together (one pass), each target's bin found, and the voxels of those
     * bins listed (one pass) to be resolved on their own.
     */
    template <class Set>
    void resolve(Set const& set, std::size_t count, std::vector<Job> jobs, Results& result) const
    {
        std::vector<Job> binned;
        for (Job& job : jobs)
        {
            auto const [lo, hi] = job.range;
            if (!(lo < hi))
            {
                for (Target const& t : job.targets)
                    result[job.k][t.slot] = hi; // one dose: every target within the set gets it
            }
            else if (count <= small_set)
            {
                this->finish(set, count, job, result[job.k]);
            }
            else
            {
                binned.push_back(std::move(job));
            }
        }
        if (binned.empty())
            return;
        std::size_t const jn = binned.size();
        std::vector<BinOf> bin_of;
        for (Job const& job : binned)
            bin_of.push_back(
                {job.range.first, double(bins) / (job.range.second - job.range.first)});
        std::vector<double> const bin_volume = this->bin_volumes(set, binned, bin_of);
        // Per job, hottest bin first: the bin in which each target's running volume is
        // reached (the coldest non-empty bin for targets beyond the total).
        using Groups = std::map<std::size_t, std::pair<double, std::vector<Target>>>;
        std::vector<Groups> groups(jn);
        std::vector<std::vector<int>> group_of_bin(jn);
        bool any_list = false;
        for (std::size_t j = 0; j < jn; ++j)
        {
            double const* volume = bin_volume.data() + j * (bins + 1);
            std::vector<Target>& targets = binned[j].targets;
            std::sort(targets.begin(), targets.end(),
                      [](Target const& a, Target const& b) { return a.volume < b.volume; });
            std::size_t next = 0;
            double running = binned[j].above;
            std::size_t coldest = bins + 1;
            for (std::size_t b = bins + 1; b-- > 0 && next < targets.size();)
            {
                if (volume[b] == 0)
                    continue;
                coldest = b;
                double const through = running + volume[b];
                while (next < targets.size() && targets[next].volume <= through)
                {
                    auto& group = groups[j][b];
                    group.first = running;
                    group.second.push_back(targets[next++]);
                }
                running = through;
            }
            for (; next < targets.size() && coldest > bins; ++next)
                result[binned[j].k][targets[next].slot] = binned[j].range.first; // no volume
            for (; next < targets.size(); ++next)
            {
                auto& group = groups[j][coldest];
                group.first = running - volume[coldest];
                group.second.push_back(targets[next]);
            }
            // The least dose's bin holds one dose: its targets need no list.
            if (auto const least = groups[j].find(0); least != groups[j].end())
            {
                for (Target const& t : least->second.second)
                    result[binned[j].k][t.slot] = binned[j].range.first;
                groups[j].erase(least);
            }
            group_of_bin[j].assign(bins + 1, -1);
            int g = 0;
            for (auto const& entry : groups[j])
                group_of_bin[j][entry.first] = g++;
            any_list = any_list || !groups[j].empty();
        }
        if (!any_list)
            return;
        // The voxels of each job's groups' bins, in index order, with their range, in one pass.
        auto const [members, ranges] = this->split(set, binned, bin_of, group_of_bin, groups);
        for (std::size_t j = 0; j < jn; ++j)
        {
            int g = 0;
            for (auto& entry : groups[j])
            {
                std::vector<std::size_t> const& m = members[j][g];
                std::vector<Job> one;
                one.push_back({binned[j].k, ranges[j][g], entry.second.first,
                               std::move(entry.second.second)});
                this->resolve(SomeVoxels{&m}, m.size(), std::move(one), result);
                ++g;
            }
        }
    }

    //! The least and largest dose of the set's voxels (one dose function), on all cores
    //! (a minimum and a maximum do not depend on the order).
    template <class Set>
    Range dose_range(Set const& set) const
    {
        double const inf = std::numeric_limits<double>::infinity();
        double const skipped = this->skipped_doses()[0];
        auto const visit_skipped = [skipped](double& lo, double& hi)
        {
            lo = std::min(lo, skipped);
            hi = std::max(hi, skipped);
        };
        std::vector<Range> piece(parallel_pieces(set.size(), threads_), {inf, -inf});
        parallel_for_pieces(set.size(), threads_,
                            [&](std::size_t begin, std::size_t end, std::size_t t)
                            {
                                double lo = inf, hi = -inf;
                                auto visit = [&](std::size_t i)
                                {
                                    double const d = this->doses(i)[0];
                                    lo = std::min(lo, d);
                                    hi = std::max(hi, d);
                                };
                                if (set(begin, end, visit).count > 0)
                                    visit_skipped(lo, hi);
                                piece[t] = {lo, hi};
                            });
        Range r{inf, -inf};
        for (auto const& [lo, hi] : piece)
            r = {std::min(r.first, lo), std::max(r.second, hi)};
        return r;
    }

    //! The volume of the set's voxels in each bin of each job (bins + 1 values per job, job
    //! after job): summed in blocks of bin_block positions on all cores, the blocks' sums
    //! added in block order (the same for any thread count).
    template <class Set>
    std::vector<double> bin_volumes(Set const& set, std::vector<Job> const& jobs,
                                    std::vector<BinOf> const& bin_of) const
    {
        std::size_t const jn = jobs.size();
        std::array<std::size_t, K> ks{};
        for (std::size_t j = 0; j < jn; ++j)
            ks[j] = jobs[j].k;
        std::array<double, K> const skipped = this->skipped_doses();
        auto part = [&](std::size_t begin, std::size_t end, HistogramBlock& acc)
        {
            // Bin 0 of each job (its least dose, most voxels of a short run) summed apart,
            // in voxel order as any bin, and put in place after the block.
            std::array<double, K> least{};
            auto add = [&](std::size_t i)
            {
                auto const& d = this->doses(i);
                double const w = volume_(i);
                for (std::size_t j = 0; j < jn; ++j)
                {
                    std::size_t const b = bin_of[j](d[ks[j]]);
                    if (b == 0)
                        least[j] += w;
                    else
                        acc.add(j * (bins + 1) + b, w);
                }
            };
            // The skipped voxels (only at the first level) after the block's others.
            SkippedVoxels const s = set(begin, end, add);
            for (std::size_t j = 0; j < jn && s.count > 0; ++j)
            {
                std::size_t const b = bin_of[j](skipped[ks[j]]);
                if (b == 0)
                    least[j] += s.volume;
                else
                    acc.add(j * (bins + 1) + b, s.volume);
            }
            for (std::size_t j = 0; j < jn; ++j)
                acc.add(j * (bins + 1), least[j]);
        };
        return parallel_block_histogram(set.size(), threads_, jn * (bins + 1), part, bin_block,
                                        2 * size_type(host_loop_threads(threads_)));
    }

    //! Per job, the set's voxels by group_of_bin[j][bin] in [0, groups) (-1: none), each
    //! in index order, and each group's least and largest dose, on all cores: each
    //! piece's lists are joined in piece order.
    template <class Set, class Groups>
    std::pair<std::vector<std::vector<std::vector<std::size_t>>>, std::vector<std::vector<Range>>>
    split(Set const& set, std::vector<Job> const& jobs, std::vector<BinOf> const& bin_of,
          std::vector<std::vector<int>> const& group_of_bin,
          std::vector<Groups> const& groups) const
    {
        using Lists = std::vector<std::vector<std::vector<std::size_t>>>; // [job][group]
        using Ranges = std::vector<std::vector<Range>>;
        double const inf = std::numeric_limits<double>::infinity();
        std::size_t const jn = jobs.size();
        Lists shape(jn);
        Ranges empty(jn);
        for (std::size_t j = 0; j < jn; ++j)
        {
            shape[j].resize(groups[j].size());
            empty[j].assign(groups[j].size(), {inf, -inf});
        }
        std::array<std::size_t, K> ks{};
        for (std::size_t j = 0; j < jn; ++j)
        {
            ks[j] = jobs[j].k;
            MCDOSE_EXPECT(group_of_bin[j][0] < 0);
        }
        // The skipped voxels are visited too where one of their bins is to be listed (a
        // skipped dose below a job's least: there are none).
        bool every = false;
        if constexpr (skips && std::is_same_v<Set, AllVoxels>)
        {
            std::array<double, K> const skipped = this->skipped_doses();
            for (std::size_t j = 0; j < jn; ++j)
            {
                double const d = skipped[ks[j]];
                every = every || (d > bin_of[j].lo && group_of_bin[j][bin_of[j](d)] >= 0);
            }
        }
        // Pieces of bin_block positions, each taken by whichever thread is free (the voxels
        // to list are often in a few of them), their lists joined in piece order.
        std::size_t const pieces = (set.size() + bin_block - 1) / bin_block;
        std::vector<Lists> piece(pieces, shape);
        std::vector<Ranges> piece_range(pieces, empty);
        parallel_for_each(
            pieces,
            [&](std::size_t t)
            {
                std::size_t const begin = t * bin_block;
                std::size_t const end = std::min(set.size(), begin + bin_block);
                auto visit = [&](std::size_t i)
                {
                    auto const& d = this->doses(i);
                    for (std::size_t j = 0; j < jn; ++j)
                    {
                        double const dj = d[ks[j]];
                        if (dj == bin_of[j].lo)
                            continue; // bin 0: never listed
                        int const g = group_of_bin[j][bin_of[j](dj)];
                        if (g < 0)
                            continue;
                        piece[t][j][g].push_back(i);
                        auto& r = piece_range[t][j][g];
                        r = {std::min(r.first, dj), std::max(r.second, dj)};
                    }
                };
                set(begin, end, visit, every);
            },
            threads_);
        Lists members = shape;
        Ranges ranges = empty;
        for (std::size_t j = 0; j < jn; ++j)
        {
            for (std::size_t g = 0; g < members[j].size(); ++g)
            {
                std::size_t total = 0;
                for (Lists const& p : piece)
                    total += p[j][g].size();
                members[j][g].reserve(total);
                for (std::size_t t = 0; t < pieces; ++t)
                {
                    members[j][g].insert(members[j][g].end(), piece[t][j][g].begin(),
                                         piece[t][j][g].end());
                    std::vector<std::size_t>().swap(piece[t][j][g]);
                    ranges[j][g] = {std::min(ranges[j][g].first, piece_range[t][j][g].first),
                                    std::max(ranges[j][g].second, piece_range[t][j][g].second)};
                }
            }
        }
        return {std::move(members), std::move(ranges)};
    }

    //! Sort a small set hottest first (equal doses by index) and walk its volumes.
    template <class Set>
    void finish(Set const& voxels, std::size_t count, Job const& job,
                std::vector<double>& result) const
    {
        std::vector<std::pair<double, std::size_t>> set;
        set.reserve(count);
        auto collect = [&](std::size_t i) { set.push_back({this->doses(i)[job.k], i}); };
        voxels(0, voxels.size(), collect, true);
        std::sort(set.begin(), set.end(),
                  [](auto const& a, auto const& b)
                  { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        for (Target const& t : job.targets)
        {
            double running = job.above;
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
