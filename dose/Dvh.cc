//! \file dose/Dvh.cc
#include "dose/Dvh.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/ParallelFor.hh"
#include "dose/VolumeQuantiles.hh"

namespace mcdose
{
namespace
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
//! The region summary's near-maximum is found in its scan where each piece of the grid
//! needs at most this many of its hottest voxels to hold 0.03 cm^3.
constexpr std::size_t max_hottest_voxels = std::size_t(1) << 16;

//! P(Z > |z|) (`tail`) and the density phi(z) of a standard normal Z, from one
//! exponential: erfc by Abramowitz & Stegun (1964) 7.1.26, absolute error <= 1.5e-7 (and
//! falling with erfc in the tails), ample for the spread of a figure; the variance terms
//! p (1 - p) = tail (1 - tail) need no cancelling difference.
struct NormalTail
{
    double tail, density;
};

NormalTail normal_tail(double z)
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
void add_to(std::vector<double>& total, std::vector<double> const& part)
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
void finish_curve(CurveLevels const& levels, std::vector<double> const& at_level, double total,
                  DvhFigures& f)
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
//! cores (fixed blocks of voxels added in block order; Replicas::scan makes the same sums
//! in its pass).
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
std::vector<double> figure_volumes(double total)
{
    return {0.03, 0.98 * total, 0.95 * total, 0.50 * total, 0.02 * total};
}

std::array<FigureWithSigma*, 5> fixed_figures(DvhFigures& f)
{
    return {&f.d_003cc, &f.d98, &f.d95, &f.d50, &f.d2};
}

//! visit()'s `empty` where the voxels without energy need no visit: they are then
//! skipped without reading each (by the energy mask, where the data carry one).
struct IgnoreVoxel
{
    void operator()(std::size_t) const {}
};

//! A voxel's dose and 1 sigma.
struct VoxelDose
{
    double dose, sigma;
};

/*!
 * The voxels of a structure on the dose grid: dose, sigma and volume of its
 * voxel i computed from the grids when asked, so that no per-voxel copy is made.
 * Most of a body gets no energy in a short run: a pass visits the voxels with
 * energy one by one and adds those without by their number and volume (visit).
 */
class StructureDoses
{
  public:
    StructureDoses(StructureMask const& s, DoseGridData const& data, double scale)
        : s_(s), data_(data), scale_(scale), voxel_cm3_(data.geometry.voxel_volume_cm3()),
          empty_dose_(0.0 * scale), by_mask_(s.whole_grid_voxels > 0 && !data.has_energy.empty())
    {
    }
    std::size_t size() const { return s_.size(); }
    /*!
     * dosed(i) for each voxel i in [begin, end) with energy and empty(i) for each other,
     * in index order; returns the others' count and volume [cm^3]: the voxel volume times the
     * number of them wholly inside plus the others' fractions summed in index order, the
     * same whichever of them a caller lists. The whole grid is visited by the data's energy
     * mask where they carry one (without reading the energy of each voxel, nor visiting
     * those without energy where `empty` is IgnoreVoxel).
     */
    template <class Dosed, class Empty>
    SkippedVoxels visit(std::size_t begin, std::size_t end, Dosed&& dosed, Empty&& empty) const
    {
        if (by_mask_)
            return this->visit_mask(begin, end, dosed, empty);
        double const* e = data_.edep_MeV.data();
        size_type whole = 0, count = 0;
        double partial = 0;
        if (s_.whole_grid_voxels > 0)
        {
            for (std::size_t i = begin; i < end; ++i)
            {
                if (e[i] != 0)
                {
                    dosed(i);
                    continue;
                }
                ++whole;
                empty(i);
            }
            count = whole;
        }
        else
        {
            for (std::size_t i = begin; i < end; ++i)
            {
                if (e[s_.voxels[i]] != 0)
                {
                    dosed(i);
                    continue;
                }
                float const f = s_.fraction[i];
                if (f == 1.0f)
                    ++whole;
                else
                    partial += f;
                ++count;
                empty(i);
            }
        }
        return {count, voxel_cm3_ * (double(whole) + partial)};
    }
    //! The voxels without energy in [begin, end).
    size_type empty_count(std::size_t begin, std::size_t end) const
    {
        if (by_mask_)
            return this->visit_mask(begin, end, IgnoreVoxel{}, IgnoreVoxel{}).count;
        double const* e = data_.edep_MeV.data();
        size_type count = 0;
        for (std::size_t i = begin; i < end; ++i)
            count += e[s_.voxel(i)] == 0 ? 1 : 0;
        return count;
    }
    //! Dose of voxel i, times the scale, and its 1 sigma (the relative sigma of its energy;
    //! 0 without energy), read once: a voxel without energy reads only its energy.
    VoxelDose at(std::size_t i) const
    {
        size_type const v = s_.voxel(i);
        if (EnergyVoxelTable const* table = data_.energy_table) // (no negative energy)
        {
            size_type const k = table->index(data_.has_energy.data(), v);
            if (k == EnergyVoxelTable::none)
                return this->empty_voxel();
            double const d = table->dose[k] * scale_;
            return {d, d * table->relative_sigma[k]};
        }
        double const e = data_.edep_MeV[v];
        if (e == 0)
            return this->empty_voxel();
        double const d = voxel_dose_gy_per_particle(data_, v) * scale_;
        return {d, d * (e > 0 ? data_.edep_sigma_MeV[v] / e : 0)};
    }
    //! What at(i) gives for every voxel without energy (as voxel_dose_gy_per_particle).
    VoxelDose empty_voxel() const { return {empty_dose_, empty_dose_ * 0.0}; }
    double volume(std::size_t i) const { return voxel_cm3_ * s_.fraction_at(i); }

  private:
    //! visit() of the whole grid by its energy mask, word by word: dosed(i) for the set bits,
    //! empty(i) for the others unless it is IgnoreVoxel, in index order.
    template <class Dosed, class Empty>
    SkippedVoxels visit_mask(std::size_t begin, std::size_t end, Dosed&& dosed, Empty&& empty) const
    {
        std::uint64_t const* mask = data_.has_energy.data();
        size_type with_energy = 0;
        for (std::size_t w = begin / 64; 64 * w < end; ++w)
        {
            std::size_t const first = std::max(begin, 64 * w);
            std::size_t const last = std::min(end, 64 * w + 64);
            std::uint64_t bits = word_bits_in(mask, w, begin, end); // bit 0: voxel first
            with_energy += size_type(__builtin_popcountll(bits));
            if constexpr (std::is_same_v<std::decay_t<Empty>, IgnoreVoxel>)
            {
                for_each_set_bit(bits, first, dosed);
            }
            else
            {
                for (std::size_t i = first; i < last; ++i, bits >>= 1)
                {
                    if ((bits & 1) != 0)
                        dosed(i);
                    else
                        empty(i);
                }
            }
        }
        size_type const whole = (end - begin) - with_energy;
        return {whole, voxel_cm3_ * double(whole)};
    }

    StructureMask const& s_;
    DoseGridData const& data_;
    double scale_;
    double voxel_cm3_;
    double empty_dose_;
    bool by_mask_; //!< the whole grid, and the data carry the energy mask
};

//! Voxels given by their doses and volumes (dvh_figures), all with a dose: StructureDoses'
//! interface, without uncertainty.
struct ListedDoses
{
    std::vector<double> const& dose;
    std::vector<double> const& volume_cm3;

    std::size_t size() const { return dose.size(); }
    VoxelDose at(std::size_t i) const { return {dose[i], 0.0}; }
    VoxelDose empty_voxel() const { return {0.0, 0.0}; }
    double volume(std::size_t i) const { return volume_cm3[i]; }
    template <class Dosed, class Empty>
    SkippedVoxels visit(std::size_t begin, std::size_t end, Dosed&& dosed, Empty&&) const
    {
        for (std::size_t i = begin; i < end; ++i)
            dosed(i);
        return {};
    }
};

//! The least and largest dose a voxel of dose `d` and sigma `sd` can draw.
struct DrawRange
{
    double low, high;
    DrawRange(double d, double sd)
        : low(std::max(0.0, d - truncation_sigmas * sd)), high(d + truncation_sigmas * sd)
    {
    }
};

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

//! Adds a voxel of dose `d`, sigma `sd` and volume `w` (but not its volume to the total)
//! to the sums `p` of VoxelSums (see voxel_sums).
void add_voxel(VoxelSums& p, double d, double sd, double w, std::vector<double> const& levels)
{
    p.weighted += d * w;
    p.least = std::min(p.least, d);
    p.largest = std::max(p.largest, d);
    p.finite = p.finite && std::isfinite(sd);
    p.mean_var += w * w * sd * sd;
    DrawRange const r(d, sd);
    p.high_min = std::min(p.high_min, r.high);
    p.high_max = std::max(p.high_max, r.high);
    p.low_min = std::min(p.low_min, r.low);
    p.low_max = std::max(p.low_max, r.low);
    for (std::size_t k = 0; k < levels.size(); ++k)
    {
        double const level = levels[k];
        p.v_at[k] += d >= level ? w : 0.0;
        if (!(level > 0) || r.low >= level || r.high < level || !(sd > 0))
            continue; // (every dose is >= 0)
        double const q = normal_tail((d - level) / sd).tail;
        p.v_at_var[k] += w * w * q * (1 - q);
    }
}

/*!
 * VoxelSums of the voxels of `doses` (StructureDoses or ListedDoses), in one pass on all
 * cores. V at a level is a sum of independent Bernoulli volumes, Var = sum w^2 p (1 - p),
 * p the chance that a voxel's dose is at least the level (voxels more than 8 sigma away
 * add nothing). The voxels without energy (the dose and sigma of doses.empty_voxel(),
 * sigma 0) add their volume to the total and to V at the levels their dose reaches, after
 * the other voxels of their block, and nothing else but to the extrema.
 */
template <class Doses>
VoxelSums voxel_sums(Doses const& doses, std::vector<double> const& levels, int threads)
{
    VoxelSums zero;
    zero.v_at.assign(levels.size(), 0.0);
    zero.v_at_var.assign(levels.size(), 0.0);
    VoxelDose const empty = doses.empty_voxel();
    std::vector<std::size_t> reached; // the levels an empty voxel's dose reaches
    for (std::size_t k = 0; k < levels.size(); ++k)
    {
        if (empty.dose >= levels[k])
            reached.push_back(k);
    }
    auto const part = [&](std::size_t begin, std::size_t end, VoxelSums& p)
    {
        auto const dosed = [&](std::size_t i)
        {
            VoxelDose const v = doses.at(i);
            double const w = doses.volume(i);
            p.total += w;
            add_voxel(p, v.dose, v.sigma, w, levels);
        };
        SkippedVoxels const e = doses.visit(begin, end, dosed, IgnoreVoxel{});
        if (e.count == 0)
            return;
        p.total += e.volume;
        for (std::size_t k : reached)
            p.v_at[k] += e.volume;
        VoxelSums x = zero; // its sums' terms are zeros: only the extrema see it
        add_voxel(x, empty.dose, empty.sigma, 0.0, {});
        p.add(x);
    };
    return parallel_block_sum(doses.size(), threads, zero, part,
                              [](VoxelSums& total, VoxelSums const& b) { total.add(b); });
}

/*!
 * VolumeQuantiles' members when they are the voxels of `Doses`: it visits them itself,
 * the voxels without energy skipped (their K doses `empty_doses`: the dose of
 * doses.empty_voxel(), and with K = 3 its least and largest draws).
 */
template <class Doses, std::size_t K>
struct DosedVoxels
{
    static constexpr bool skips = true;
    Doses const* doses;
    std::array<double, K> empty_doses;

    template <class F>
    SkippedVoxels visit(std::size_t begin, std::size_t end, F& f, bool every) const
    {
        if (every)
        {
            doses->visit(begin, end, f, f);
            return {};
        }
        return doses->visit(begin, end, f, IgnoreVoxel{});
    }
    double skipped_dose(std::size_t k) const { return empty_doses[k]; }
};

//! A voxel's dose and the least and largest dose it can draw (VolumeQuantiles' K = 3).
std::array<double, 3> dose_and_draws(VoxelDose const& v)
{
    DrawRange const r(v.dose, v.sigma);
    return {v.dose, r.low, r.high};
}

/*!
 * The figures without uncertainty of the voxels of `doses` (StructureDoses or
 * ListedDoses), all but the curve (the caller's later pass: set_curve or
 * Replicas::scan), and the sums (`sums`) the uncertainty needs; with `draws` (and
 * finite sigmas), also the D_V of their least and largest draws, from the same passes.
 */
template <class Doses>
DvhFigures nominal_figures(Doses const& doses, std::vector<double> const& v_at_doses, int threads,
                           VoxelSums& sums, DrawFigures* draws = nullptr)
{
    std::size_t const n = doses.size();
    DvhFigures f;
    f.voxels = n;
    if (n == 0)
        return f;
    sums = voxel_sums(doses, v_at_doses, threads);
    double const total = sums.total;
    f.volume_cm3 = total;
    f.d_mean.value = sums.weighted / total;
    f.d_min.value = sums.least;
    std::vector<double> targets = figure_volumes(total);
    for (double& t : targets)
        t *= 1 - volume_slack;
    auto const volume = [&](std::size_t i) { return doses.volume(i); };
    std::vector<double> d_v;
    if (draws && sums.finite)
    {
        // With the D_V of the least and largest draws, from the same two passes.
        auto const three = [&](std::size_t i) { return dose_and_draws(doses.at(i)); };
        DosedVoxels<Doses, 3> const members{&doses, dose_and_draws(doses.empty_voxel())};
        auto const all =
            make_volume_quantiles(n, std::cref(three), std::cref(volume), members, n, threads)(
                {targets, targets, targets}, {{{sums.least, sums.largest},
                                               {sums.low_min, sums.low_max},
                                               {sums.high_min, sums.high_max}}});
        d_v = all[0];
        draws->lows = all[1];
        draws->highs = all[2];
    }
    else
    {
        auto const dose = [&](std::size_t i) { return doses.at(i).dose; };
        DosedVoxels<Doses, 1> const members{&doses, {doses.empty_voxel().dose}};
        d_v = make_volume_quantiles(n, std::cref(dose), std::cref(volume), members, n,
                                    threads)(targets, {sums.least, sums.largest});
    }
    auto const figures = fixed_figures(f);
    for (std::size_t k = 0; k < figures.size(); ++k)
        figures[k]->value = d_v[k];
    auto const& v = sums.v_at;
    for (std::size_t k = 0; k < v.size(); ++k)
        f.v_at.push_back({v_at_doses[k], {v[k], std::nan("")}, {100 * v[k] / total, std::nan("")}});
    return f;
}

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

DvhFigures dvh_figures(std::vector<double> const& dose, std::vector<double> const& volume_cm3,
                       std::vector<double> const& v_at_doses, int threads)
{
    MCDOSE_EXPECT(dose.size() == volume_cm3.size());
    VoxelSums sums;
    ListedDoses const doses{dose, volume_cm3};
    DvhFigures f = nominal_figures(doses, v_at_doses, threads, sums);
    if (!dose.empty())
        set_curve(
            dose.size(), [&dose](std::size_t i) { return dose[i]; },
            [&volume_cm3](std::size_t i) { return volume_cm3[i]; }, sums.largest, sums.total,
            threads, f);
    return f;
}

DvhFigures structure_dvh(StructureMask const& s, DoseGridData const& data, double dose_scale,
                         std::vector<double> const& v_at_doses, int threads)
{
    validate_dose_data(data);
    StructureDoses const doses(s, data, dose_scale);
    VoxelSums sums;
    DrawFigures draws;
    auto const volume = [&doses](std::size_t i) { return doses.volume(i); };
    DvhFigures f = nominal_figures(doses, v_at_doses, threads, sums, &draws);
    f.name = s.name;
    f.origin = s.origin;
    if (doses.size() == 0)
        return f;
    if (!sums.finite)
    {
        set_curve(
            doses.size(), [&doses](std::size_t i) { return doses.at(i).dose; }, volume,
            sums.largest, sums.total, threads, f);
        return f;
    }
    // Dmean = sum w d / sum w: its variance is sum w^2 sigma^2 / (sum w)^2.
    f.d_mean.sigma = std::sqrt(sums.mean_var) / f.volume_cm3;
    // The curve and the sigmas of D_min and the D_V figures, in one pass.
    Replicas(doses, threads).add_uncertainty(f, sums, draws);
    for (std::size_t k = 0; k < f.v_at.size(); ++k)
    {
        double const sv = std::sqrt(sums.v_at_var[k]);
        f.v_at[k].volume_cm3.sigma = sv;
        f.v_at[k].volume_percent.sigma = 100 * sv / f.volume_cm3;
    }
    return f;
}

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
