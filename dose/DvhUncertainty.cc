//! \file dose/DvhUncertainty.cc
//! The uncertainty of the DVH figures from replica dose fields (dose/Dvh.hh, structure_dvh).
#include "dose/detail/DvhSums.hh"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "core/Assert.hh"
#include "core/ParallelFor.hh"

namespace mcdose::detail
{
namespace
{
//! For one D_V figure: the voxels that can fall on either side of it in some replica.
struct CrossingVoxels
{
    double low{0}, high{0}; //!< D_V of the voxels' least and largest doses
    double above{0};        //!< volume of the voxels above it in every replica
    std::size_t count{0};
    std::vector<std::size_t> open; //!< their indices, while at most max_replica_voxels
    double var{0}, slope{0};       //!< the delta method's sums (Replicas::find_crossing)
};

//! Adds a block's crossing voxels (`part`, the later indices) to those of the blocks before.
void add_crossing(std::vector<CrossingVoxels>& total, std::vector<CrossingVoxels> const& part)
{
    for (std::size_t f = 0; f < total.size(); ++f)
    {
        CrossingVoxels& c = total[f];
        CrossingVoxels const& p = part[f];
        c.above += p.above;
        c.var += p.var;
        c.slope += p.slope;
        std::size_t const before = c.count;
        c.count += p.count;
        if (c.count <= max_replica_voxels)
            c.open.insert(c.open.end(), p.open.begin(), p.open.end());
        else if (before <= max_replica_voxels)
            std::vector<std::size_t>().swap(c.open); // the asymptotic spread's case
    }
}

//! Blocks of voxels whose partial lists or histograms are held at once: a few per thread.
size_type held_blocks(int threads)
{
    return 4 * size_type(host_loop_threads(threads));
}

//! Counts a voxel (index i) that can cross figure `c`, listing it while at most
//! max_replica_voxels can.
void add_open(CrossingVoxels& c, std::size_t i)
{
    if (++c.count <= max_replica_voxels)
        c.open.push_back(i);
    else if (c.count == max_replica_voxels + 1)
        std::vector<std::size_t>().swap(c.open);
}

//! Counts `count` voxels that can cross figure `c`, more than max_replica_voxels (none
//! listed: the asymptotic spread's case).
void add_open_count(CrossingVoxels& c, size_type count)
{
    MCDOSE_EXPECT(count > max_replica_voxels);
    c.count += count;
    std::vector<std::size_t>().swap(c.open);
}

//! What Replicas' one pass over a structure's voxels collects (per block, the blocks then
//! added in block order).
struct ReplicaScan
{
    std::vector<double> at_level;        //!< the curve's volume at each level (CurveLevels)
    std::vector<CrossingVoxels> figures; //!< per D_V figure that can move: its crossing voxels
    std::vector<std::size_t> lowest;     //!< the voxels that can draw the least dose
    bool too_many_lowest{false};         //!< more than max_minimum_voxels of them

    //! Adds the sums of the next block of voxels.
    void add(ReplicaScan const& b)
    {
        add_to(at_level, b.at_level);
        add_crossing(figures, b.figures);
        too_many_lowest = too_many_lowest || b.too_many_lowest ||
                          lowest.size() + b.lowest.size() > max_minimum_voxels;
        if (too_many_lowest)
            std::vector<std::size_t>().swap(lowest);
        else
            lowest.insert(lowest.end(), b.lowest.begin(), b.lowest.end());
    }
};

/*!
 * Replica dose fields for the uncertainty of the figures (voxels independent,
 * normal with the voxel's dose and sigma, cut at 0 and at truncation_sigmas).
 * Each figure keeps only the voxels that can fall on either side of it in some
 * replica: the others are on a known side and add a known volume. One pass over
 * the voxels (scan) finds them for every figure, and the structure's curve; it runs
 * on `threads` threads and gives the same for any number.
 */
class Replicas
{
  public:
    Replicas(StructureDoses const& doses, int threads) : doses_(doses), threads_(threads) {}

    /*!
     * The curve of `f` and the sigmas of its D_min and D_V figures (nominal values set),
     * given the sums of its voxels (`sums`, finite sigmas) and the D_V of their least and
     * largest draws (`draws`), from one pass over the voxels.
     */
    void add_uncertainty(DvhFigures& f, VoxelSums const& sums, DrawFigures const& draws) const
    {
        auto const fixed = fixed_figures(f);
        std::vector<double> nominal;
        for (auto const* figure : fixed)
            nominal.push_back(figure->value);
        // Every replica's D_V lies between D_V of the lowest and of the highest doses.
        ReplicaScan zero;
        zero.at_level.assign(dvh_curve_bins + 1, 0.0);
        std::vector<std::size_t> slot;
        for (std::size_t k = 0; k < nominal.size(); ++k)
        {
            if (draws.lows[k] < draws.highs[k]) // else the same in every replica
            {
                zero.figures.emplace_back();
                zero.figures.back().low = draws.lows[k];
                zero.figures.back().high = draws.highs[k];
                slot.push_back(k);
            }
        }
        // The least dose moves where a voxel's least draw is below another's largest.
        bool const lowest_moves = sums.low_min < sums.high_min;
        double const lowest_below =
            lowest_moves ? sums.high_min : -std::numeric_limits<double>::infinity();
        CurveLevels const curve{sums.largest};
        ReplicaScan const scan = this->scan(zero, curve, nominal, slot, lowest_below);
        finish_curve(curve, scan.at_level, f.volume_cm3, f);
        f.d_min.sigma = lowest_moves ? this->min_sigma(0, scan) : 0.0;
        std::vector<double> const sd =
            this->dose_to_volume_sigma(figure_volumes(f.volume_cm3), slot, scan.figures, 1);
        for (std::size_t k = 0; k < fixed.size(); ++k)
            fixed[k]->sigma = sd[k];
    }

  private:
    /*!
     * Standard deviation of D_V for each volume V of `targets`, given the crossing voxels
     * of the figures that can move (`figures`, of targets[slot[f]]): over the replicas, or,
     * where more than max_replica_voxels can cross the figure, asymptotically (the delta
     * method, summed in the scan).
     */
    std::vector<double> dose_to_volume_sigma(std::vector<double> const& targets,
                                             std::vector<std::size_t> const& slot,
                                             std::vector<CrossingVoxels> const& figures,
                                             unsigned seed) const
    {
        std::vector<double> sd(targets.size(), 0.0);
        // Each figure on a thread of its own (its own seed, its own result).
        auto const one = [&](std::size_t f)
        {
            CrossingVoxels const& c = figures[f];
            std::size_t const k = slot[f];
            if (c.count > max_replica_voxels)
            {
                sd[k] = c.slope > 0 ? std::sqrt(c.var) / c.slope : 0.0;
                return;
            }
            double const target = targets[k] * (1 - volume_slack);
            sd[k] = this->spread(seed + unsigned(k), c.open,
                                 [&](std::vector<std::pair<double, std::size_t>>& drawn)
                                 { return volume_figure(drawn, c.above, target); });
        };
        parallel_for_pieces(
            figures.size(), threads_,
            [&](size_type begin, size_type end, size_type)
            {
                for (size_type f = begin; f < end; ++f)
                    one(f);
            },
            1);
        return sd;
    }

    //! Standard deviation of the least dose over the replicas, from the voxels that can
    //! draw it (`scan`; NaN, not estimated, where more than max_minimum_voxels can: ICRU 83
    //! reports D98 % for that reason).
    double min_sigma(unsigned seed, ReplicaScan const& scan) const
    {
        if (scan.too_many_lowest)
            return std::nan("");
        return this->spread(seed, scan.lowest,
                            [](std::vector<std::pair<double, std::size_t>>& drawn)
                            {
                                double m = drawn.front().first;
                                for (auto const& x : drawn)
                                    m = std::min(m, x.first);
                                return m;
                            });
    }

    //! D_V of one replica: its drawn doses sorted hottest first after the voxels `above`.
    double volume_figure(std::vector<std::pair<double, std::size_t>>& drawn, double above,
                         double target) const
    {
        std::sort(drawn.begin(), drawn.end(),
                  [](auto const& a, auto const& b)
                  { return a.first > b.first || (a.first == b.first && a.second < b.second); });
        double running = above;
        for (auto const& [d, i] : drawn)
        {
            running += doses_.volume(i);
            if (running >= target)
                return d;
        }
        // Beyond the volume (or short of it by rounding): the least dose drawn.
        return drawn.back().first;
    }

    /*!
     * One pass: the curve's volume at each level (`curve`; the blocks' sums as set_curve's);
     * the voxels whose least draw is below `lowest_below`; and for each figure of `zero`,
     * the volume above it and the voxels that can cross it, with the asymptotic spread's
     * sums at its nominal value D (nominal[slot[f]]; the delta method for a quantile, e.g.
     * Serfling, Approximation Theorems of Mathematical Statistics, 1980, 2.3): the volume
     * V(D) above D has variance sum w^2 p (1 - p) over those voxels, p = P(d_i' >= D), and
     * the expected volume falls with slope sum w phi(z) / sigma at D, so sigma(D_V) =
     * sqrt(Var V(D)) / slope. In fixed blocks of voxels, added in block order. A voxel
     * without energy does what is known of every such voxel, without the per-voxel work.
     */
    ReplicaScan scan(ReplicaScan const& zero, CurveLevels const& curve,
                     std::vector<double> const& nominal, std::vector<std::size_t> const& slot,
                     double lowest_below) const
    {
        VoxelDose const empty = doses_.empty_voxel();
        DrawRange const empty_range(empty.dose, empty.sigma);
        int const empty_bin = curve.bin(empty.dose);
        bool const empty_lowest = empty_range.low < lowest_below;
        std::vector<std::pair<std::size_t, bool>> empty_figures; // (figure, above it)
        for (std::size_t f = 0; f < zero.figures.size(); ++f)
        {
            CrossingVoxels const& c = zero.figures[f];
            if (empty_range.low >= c.high || empty_range.high >= c.low)
                empty_figures.push_back({f, empty_range.low >= c.high});
        }
        bool const empty_open = std::any_of(empty_figures.begin(), empty_figures.end(),
                                            [](auto const& figure) { return !figure.second; });
        auto const part = [&](std::size_t begin, std::size_t end, ReplicaScan& p)
        {
            double empty_bin_volume = 0; // at_level[empty_bin], added to in voxel order
            auto const dosed = [&](std::size_t i)
            {
                VoxelDose const v = doses_.at(i);
                double const w = doses_.volume(i);
                int const b = curve.bin(v.dose);
                (b == empty_bin ? empty_bin_volume : p.at_level[b]) += w;
                DrawRange const r(v.dose, v.sigma);
                if (r.low < lowest_below)
                    p.lowest.push_back(i);
                cross(p.figures, nominal, slot, v, r, w, i);
            };
            // The voxels without energy are listed, in order among the others, where the
            // lists can hold the block's (sigma 0: no delta-method terms); else counted.
            size_type const empties =
                empty_lowest || empty_open ? doses_.empty_count(begin, end) : 0;
            bool const list_lowest = empty_lowest && empties <= max_minimum_voxels;
            bool const list_open = empty_open && empties <= max_replica_voxels;
            auto const list = [&](std::size_t i)
            {
                if (list_lowest)
                    p.lowest.push_back(i);
                for (auto const& [f, above] : empty_figures)
                {
                    if (list_open && !above)
                        add_open(p.figures[f], i);
                }
            };
            SkippedVoxels const e = list_lowest || list_open
                                        ? doses_.visit(begin, end, dosed, list)
                                        : doses_.visit(begin, end, dosed, IgnoreVoxel{});
            empty_bin_volume += e.volume;
            p.at_level[empty_bin] += empty_bin_volume;
            if (e.count == 0)
                return;
            for (auto const& [f, above] : empty_figures)
            {
                if (above)
                    p.figures[f].above += e.volume;
                else if (!list_open)
                    add_open_count(p.figures[f], e.count); // more than the lists hold
            }
            if (empty_lowest && !list_lowest)
            {
                p.too_many_lowest = true;
                std::vector<std::size_t>().swap(p.lowest);
            }
        };
        return parallel_block_sum(
            doses_.size(), threads_, zero, part,
            [](ReplicaScan& total, ReplicaScan const& b) { total.add(b); }, sum_block_size,
            held_blocks(threads_));
    }

    //! Adds voxel i (`v`, its draws `r`, volume `w`) to each figure's crossing voxels (scan).
    static void cross(std::vector<CrossingVoxels>& cs, std::vector<double> const& nominal,
                      std::vector<std::size_t> const& slot, VoxelDose const& v, DrawRange const& r,
                      double w, std::size_t i)
    {
        for (std::size_t f = 0; f < cs.size(); ++f)
        {
            CrossingVoxels& c = cs[f];
            if (r.low >= c.high)
            {
                c.above += w;
                continue;
            }
            if (!(r.high >= c.low))
                continue;
            add_open(c, i);
            if (!(v.sigma > 0))
                continue;
            double const z = (v.dose - nominal[slot[f]]) / v.sigma;
            NormalTail const n = normal_tail(z);
            c.var += w * w * n.tail * (1 - n.tail);
            c.slope += w * n.density / v.sigma;
        }
    }

    //! Sample standard deviation of `figure(drawn)` over the replicas, each
    //! drawing the doses of the voxels `open` (fixed seed per figure).
    template <class Figure>
    double spread(unsigned seed, std::vector<std::size_t> const& open, Figure&& figure) const
    {
        if (open.empty())
            return 0;
        std::mt19937_64 engine(0x5eed0d5e + seed);
        std::normal_distribution<double> normal;
        std::vector<std::pair<double, double>> moments(open.size()); // dose, sigma
        for (std::size_t j = 0; j < open.size(); ++j)
        {
            VoxelDose const v = doses_.at(open[j]);
            moments[j] = {v.dose, v.sigma};
        }
        std::vector<std::pair<double, std::size_t>> drawn(open.size());
        double sum = 0, sum2 = 0;
        for (int r = 0; r < dvh_uncertainty_replicas; ++r)
        {
            for (std::size_t j = 0; j < open.size(); ++j)
            {
                double const z = std::clamp(normal(engine), -truncation_sigmas, truncation_sigmas);
                auto const [d, sd] = moments[j];
                drawn[j] = {std::max(0.0, d + sd * z), open[j]}; // a dose is >= 0
            }
            double const x = figure(drawn);
            sum += x;
            sum2 += x * x;
        }
        double const n = dvh_uncertainty_replicas;
        return std::sqrt(std::max(0.0, (sum2 - sum * sum / n) / (n - 1)));
    }

    StructureDoses const& doses_;
    int threads_;
};
} // namespace

void add_replica_uncertainty(DvhFigures& f, StructureDoses const& doses, VoxelSums const& sums,
                             DrawFigures const& draws, int threads)
{
    Replicas(doses, threads).add_uncertainty(f, sums, draws);
}
} // namespace mcdose::detail
