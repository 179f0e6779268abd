//! \file dose/Dvh.cc
#include "dose/Dvh.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

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

//! P(Z <= z) for a standard normal Z.
double normal_cdf(double z)
{
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double normal_density(double z)
{
    return std::exp(-0.5 * z * z) / std::sqrt(2 * constants::pi);
}

//! Doses to the volumes `targets_cm3` of the voxels' `dose(i)` and `volume(i)`.
template <class Dose, class Volume>
std::vector<double> doses_to_volumes(std::size_t n, Dose const& dose, Volume const& volume,
                                     std::vector<double> targets_cm3)
{
    for (double& t : targets_cm3)
        t *= 1 - volume_slack;
    return make_volume_quantiles(n, std::cref(dose), std::cref(volume))(targets_cm3);
}

//! The volume receiving at least each dose of `levels` [cm^3], in one pass.
template <class Dose, class Volume>
std::vector<double> volumes_at_least(std::size_t n, Dose const& dose, Volume const& volume,
                                     std::vector<double> const& levels)
{
    std::vector<double> v(levels.size(), 0.0);
    if (levels.empty())
        return v;
    for (std::size_t i = 0; i < n; ++i)
    {
        double const d = dose(i);
        double const w = volume(i);
        for (std::size_t k = 0; k < levels.size(); ++k)
            v[k] += d >= levels[k] ? w : 0.0;
    }
    return v;
}

//! The cumulative DVH at dvh_curve_bins + 1 doses from 0 to `top`, in one pass.
template <class Dose, class Volume>
void set_curve(std::size_t count, Dose const& dose, Volume const& volume, double top, double total,
               DvhFigures& f)
{
    int const n = dvh_curve_bins;
    auto const level = [top, n](int b) { return top * b / n; };
    // at_level[b]: volume of voxels whose dose is >= level(b) but < level(b + 1).
    std::vector<double> at_level(n + 1, 0.0);
    for (std::size_t i = 0; i < count; ++i)
    {
        double const d = dose(i);
        int b = top > 0 ? static_cast<int>(std::min<double>(n, std::floor(d / top * n))) : n;
        while (b < n && d >= level(b + 1))
            ++b;
        while (b > 0 && d < level(b))
            --b;
        at_level[b] += volume(i);
    }
    std::vector<double> at_least(n + 1, 0.0);
    double sum = 0;
    for (int b = n; b >= 0; --b)
        at_least[b] = sum += at_level[b];
    for (int b = 0; b <= n; ++b)
    {
        f.curve_dose.push_back(level(b));
        f.curve_volume_cm3.push_back(b == 0 ? total : at_least[b]);
    }
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

/*!
 * The voxels of a structure on the dose grid: dose, sigma and volume of its
 * voxel i computed from the grids when asked, so that no per-voxel copy is made.
 */
class StructureDoses
{
  public:
    StructureDoses(StructureMask const& s, DoseGridData const& data, double scale)
        : s_(s), data_(data), scale_(scale), voxel_cm3_(data.geometry.voxel_volume_cm3())
    {
    }
    std::size_t size() const { return s_.size(); }
    //! Dose of voxel i, times the scale.
    double dose(std::size_t i) const
    {
        return voxel_dose_gy_per_particle(data_, s_.voxel(i)) * scale_;
    }
    //! 1 sigma of voxel i whose dose is `d` (the relative sigma of its energy; 0 without energy).
    double sigma(std::size_t i, double d) const
    {
        size_type const v = s_.voxel(i);
        double const e = data_.edep_MeV[v];
        return d * (e > 0 ? data_.edep_sigma_MeV[v] / e : 0);
    }
    double volume(std::size_t i) const { return voxel_cm3_ * s_.fraction_at(i); }

  private:
    StructureMask const& s_;
    DoseGridData const& data_;
    double scale_;
    double voxel_cm3_;
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

/*!
 * Replica dose fields for the uncertainty of the figures (voxels independent,
 * normal with the voxel's dose and sigma, cut at 0 and at truncation_sigmas).
 * Each figure keeps only the voxels that can fall on either side of it in some
 * replica: the others are on a known side and add a known volume.
 */
class Replicas
{
  public:
    explicit Replicas(StructureDoses const& doses) : doses_(doses) {}

    /*!
     * Standard deviation of D_V for each volume V of `targets` (nominal values
     * `nominal`): over the replicas, or, where more than max_replica_voxels can cross
     * the figure, asymptotically (the delta method, summed in the same pass).
     */
    std::vector<double> dose_to_volume_sigma(std::vector<double> const& targets,
                                             std::vector<double> const& nominal,
                                             unsigned seed) const
    {
        std::size_t const n = doses_.size();
        auto const volume = [this](std::size_t i) { return doses_.volume(i); };
        // Every replica's D_V lies between D_V of the lowest and of the highest doses.
        auto const low = [this](std::size_t i) { return this->range(i).low; };
        auto const high = [this](std::size_t i) { return this->range(i).high; };
        auto const lows = doses_to_volumes(n, low, volume, targets);
        auto const highs = doses_to_volumes(n, high, volume, targets);
        std::vector<CrossingVoxels> figures;
        std::vector<std::size_t> slot;
        for (std::size_t k = 0; k < targets.size(); ++k)
        {
            if (lows[k] < highs[k]) // else the same in every replica
            {
                figures.emplace_back();
                figures.back().low = lows[k];
                figures.back().high = highs[k];
                slot.push_back(k);
            }
        }
        this->find_crossing(nominal, slot, figures);
        std::vector<double> sd(targets.size(), 0.0);
        for (std::size_t f = 0; f < figures.size(); ++f)
        {
            CrossingVoxels const& c = figures[f];
            std::size_t const k = slot[f];
            if (c.count > max_replica_voxels)
            {
                sd[k] = c.slope > 0 ? std::sqrt(c.var) / c.slope : 0.0;
                continue;
            }
            double const target = targets[k] * (1 - volume_slack);
            sd[k] = this->spread(seed + unsigned(k), c.open,
                                 [&](std::vector<std::pair<double, std::size_t>>& drawn)
                                 { return volume_figure(drawn, c.above, target); });
        }
        return sd;
    }

    //! Standard deviation of the least dose over the replicas (NaN, not estimated, where
    //! more than max_minimum_voxels can hold it: ICRU 83 reports D98 % for that reason);
    //! `high_min` and `low_min` are the least of the voxels' largest and least draws.
    double min_sigma(unsigned seed, double high_min, double low_min) const
    {
        if (!(low_min < high_min))
            return 0;
        std::vector<std::size_t> open;
        for (std::size_t i = 0; i < doses_.size(); ++i)
        {
            if (this->range(i).low < high_min)
            {
                if (open.size() == max_minimum_voxels)
                    return std::nan("");
                open.push_back(i);
            }
        }
        return this->spread(seed, open,
                            [](std::vector<std::pair<double, std::size_t>>& drawn)
                            {
                                double m = drawn.front().first;
                                for (auto const& x : drawn)
                                    m = std::min(m, x.first);
                                return m;
                            });
    }

    /*!
     * Standard deviation of the volume receiving at least each dose of `levels`:
     * exactly, as a sum of independent Bernoulli volumes, Var = sum w^2 p (1 - p)
     * with p the chance that a voxel's dose is at least d (voxels more than 8 sigma
     * away add nothing); one pass for all levels.
     */
    std::vector<double> volume_at_least_sigma(std::vector<double> const& levels) const
    {
        std::vector<double> var(levels.size(), 0.0);
        bool const any = std::any_of(levels.begin(), levels.end(), [](double d) { return d > 0; });
        for (std::size_t i = 0; any && i < doses_.size(); ++i)
        {
            double const d_i = doses_.dose(i);
            double const s_i = doses_.sigma(i, d_i);
            DrawRange const r(d_i, s_i);
            for (std::size_t k = 0; k < levels.size(); ++k)
            {
                double const d = levels[k];
                if (!(d > 0) || r.low >= d || r.high < d || !(s_i > 0))
                    continue; // (every dose is >= 0)
                double const p = normal_cdf((d_i - d) / s_i);
                double const w = doses_.volume(i);
                var[k] += w * w * p * (1 - p);
            }
        }
        for (double& v : var)
            v = std::sqrt(v);
        return var;
    }

  private:
    DrawRange range(std::size_t i) const
    {
        double const d = doses_.dose(i);
        return {d, doses_.sigma(i, d)};
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
     * One pass for all figures: the volume above each and the voxels that can
     * cross it, with the asymptotic spread's sums at its nominal value D (the
     * delta method for a quantile, e.g. Serfling, Approximation Theorems of
     * Mathematical Statistics, 1980, 2.3): the volume V(D) above D has variance
     * sum w^2 p (1 - p) over those voxels, p = P(d_i' >= D), and the expected
     * volume falls with slope sum w phi(z) / sigma at D, so sigma(D_V) =
     * sqrt(Var V(D)) / slope.
     */
    void find_crossing(std::vector<double> const& nominal, std::vector<std::size_t> const& slot,
                       std::vector<CrossingVoxels>& figures) const
    {
        for (std::size_t i = 0; !figures.empty() && i < doses_.size(); ++i)
        {
            double const d_i = doses_.dose(i);
            double const s_i = doses_.sigma(i, d_i);
            DrawRange const r(d_i, s_i);
            double const w = doses_.volume(i);
            for (std::size_t f = 0; f < figures.size(); ++f)
            {
                CrossingVoxels& c = figures[f];
                if (r.low >= c.high)
                {
                    c.above += w;
                    continue;
                }
                if (!(r.high >= c.low))
                    continue;
                if (++c.count <= max_replica_voxels)
                    c.open.push_back(i);
                else if (c.count == max_replica_voxels + 1)
                    std::vector<std::size_t>().swap(c.open); // the asymptotic spread's case
                if (!(s_i > 0))
                    continue;
                double const z = (d_i - nominal[slot[f]]) / s_i;
                double const p = normal_cdf(z);
                c.var += w * w * p * (1 - p);
                c.slope += w * normal_density(z) / s_i;
            }
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
            double const d = doses_.dose(open[j]);
            moments[j] = {d, doses_.sigma(open[j], d)};
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
};

//! The figures without uncertainty of the voxels' `dose(i)` and `volume(i)`, i < n.
template <class Dose, class Volume>
DvhFigures nominal_figures(std::size_t n, Dose const& dose, Volume const& volume,
                           std::vector<double> const& v_at_doses)
{
    DvhFigures f;
    f.voxels = n;
    if (n == 0)
        return f;
    double total = 0, weighted = 0;
    double least = std::numeric_limits<double>::infinity(), largest = -least;
    for (std::size_t i = 0; i < n; ++i)
    {
        double const d = dose(i);
        double const w = volume(i);
        total += w;
        weighted += d * w;
        least = std::min(least, d);
        largest = std::max(largest, d);
    }
    f.volume_cm3 = total;
    f.d_mean.value = weighted / total;
    f.d_min.value = least;
    auto const d_v = doses_to_volumes(n, dose, volume, figure_volumes(total));
    auto const figures = fixed_figures(f);
    for (std::size_t k = 0; k < figures.size(); ++k)
        figures[k]->value = d_v[k];
    auto const v = volumes_at_least(n, dose, volume, v_at_doses);
    for (std::size_t k = 0; k < v.size(); ++k)
        f.v_at.push_back({v_at_doses[k], {v[k], std::nan("")}, {100 * v[k] / total, std::nan("")}});
    set_curve(n, dose, volume, largest, total, f);
    return f;
}

//! What the uncertainty needs from one pass over a structure's voxels.
struct SigmaPass
{
    bool finite{true};  //!< every voxel's sigma is finite
    double mean_var{0}; //!< sum w^2 sigma^2
    double high_min{std::numeric_limits<double>::infinity()};
    double low_min{std::numeric_limits<double>::infinity()};
};

SigmaPass sigma_pass(StructureDoses const& doses)
{
    SigmaPass p;
    for (std::size_t i = 0; i < doses.size(); ++i)
    {
        double const d = doses.dose(i);
        double const sd = doses.sigma(i, d);
        double const w = doses.volume(i);
        p.finite = p.finite && std::isfinite(sd);
        p.mean_var += w * w * sd * sd;
        DrawRange const r(d, sd);
        p.high_min = std::min(p.high_min, r.high);
        p.low_min = std::min(p.low_min, r.low);
    }
    return p;
}
//! What summarize_region finds in one pass over the grid.
struct RegionScan
{
    size_type low_density_voxels{0};
    double low_density_max{0};
    double outside_max{0};
};

//! The region's voxels that `kept` leaves out, and the largest dose outside the
//! region, on all cores (each piece of the grid a thread; counts and maxima
//! combine in any order).
template <class Kept>
RegionScan scan_region(StructureMask const& region, DoseGridData const& data, Kept const& kept)
{
    size_type const n = data.geometry.num_voxels();
    std::vector<RegionScan> pieces(parallel_pieces(n, 0));
    parallel_for_pieces(n, 0,
                        [&](size_type begin, size_type end, size_type t)
                        {
                            RegionScan p;
                            // The region's voxels are ascending: its first at or after `begin`.
                            size_type next =
                                region.whole_grid_voxels > 0
                                    ? begin
                                    : size_type(std::lower_bound(region.voxels.begin(),
                                                                 region.voxels.end(), begin) -
                                                region.voxels.begin());
                            for (size_type v = begin; v < end; ++v)
                            {
                                bool const inside = next < region.size() && region.voxel(next) == v;
                                if (inside && kept(next++))
                                    continue;
                                double const d = voxel_dose_gy_per_particle(data, v);
                                double& m = inside ? p.low_density_max : p.outside_max;
                                m = std::max(m, d);
                                p.low_density_voxels += inside ? 1 : 0;
                            }
                            pieces[t] = p;
                        });
    RegionScan all;
    for (RegionScan const& p : pieces)
    {
        all.low_density_voxels += p.low_density_voxels;
        all.low_density_max = std::max(all.low_density_max, p.low_density_max);
        all.outside_max = std::max(all.outside_max, p.outside_max);
    }
    return all;
}
} // namespace

DvhFigures dvh_figures(std::vector<double> const& dose, std::vector<double> const& volume_cm3,
                       std::vector<double> const& v_at_doses)
{
    MCDOSE_EXPECT(dose.size() == volume_cm3.size());
    return nominal_figures(
        dose.size(), [&dose](std::size_t i) { return dose[i]; },
        [&volume_cm3](std::size_t i) { return volume_cm3[i]; }, v_at_doses);
}

DvhFigures structure_dvh(StructureMask const& s, DoseGridData const& data, double dose_scale,
                         std::vector<double> const& v_at_doses)
{
    validate_dose_data(data);
    StructureDoses const doses(s, data, dose_scale);
    DvhFigures f = nominal_figures(
        doses.size(), [&doses](std::size_t i) { return doses.dose(i); },
        [&doses](std::size_t i) { return doses.volume(i); }, v_at_doses);
    f.name = s.name;
    f.origin = s.origin;
    if (doses.size() == 0)
        return f;
    SigmaPass const pass = sigma_pass(doses);
    if (!pass.finite)
        return f;
    // Dmean = sum w d / sum w: its variance is sum w^2 sigma^2 / (sum w)^2.
    f.d_mean.sigma = std::sqrt(pass.mean_var) / f.volume_cm3;

    Replicas const replicas(doses);
    f.d_min.sigma = replicas.min_sigma(0, pass.high_min, pass.low_min);
    auto const figures = fixed_figures(f);
    std::vector<double> nominal;
    for (auto const* figure : figures)
        nominal.push_back(figure->value);
    auto const sd = replicas.dose_to_volume_sigma(figure_volumes(f.volume_cm3), nominal, 1);
    for (std::size_t k = 0; k < figures.size(); ++k)
        figures[k]->sigma = sd[k];
    std::vector<double> levels;
    for (auto const& v : f.v_at)
        levels.push_back(v.dose);
    auto const sv = replicas.volume_at_least_sigma(levels);
    for (std::size_t k = 0; k < f.v_at.size(); ++k)
    {
        f.v_at[k].volume_cm3.sigma = sv[k];
        f.v_at[k].volume_percent.sigma = 100 * sv[k] / f.volume_cm3;
    }
    return f;
}

RegionSummary summarize_region(DoseGridData const& data, StructureMask const& region,
                               double low_density_g_cm3, double fraction)
{
    validate_dose_data(data);
    RegionSummary r;
    r.region = region.name;
    r.dose_fraction = fraction;
    r.low_density_threshold_g_cm3 = low_density_g_cm3;
    StructureDoses const doses(region, data, 1.0);
    std::size_t const n = doses.size();
    auto const kept = [&](std::size_t i)
    { return !(data.density_g_cm3[region.voxel(i)] < low_density_g_cm3); };
    // The low-density voxels (counted, their largest dose) and the largest dose outside
    // the region (reported, never the near-maximum), on all cores: counts and maxima
    // do not depend on the order.
    RegionScan const scan = scan_region(region, data, kept);
    r.low_density_voxels = scan.low_density_voxels;
    r.low_density_max = scan.low_density_max;
    r.outside_max = scan.outside_max;
    size_type const count = n - r.low_density_voxels;
    if (count == 0)
        return r;
    auto const dose = [&doses](std::size_t i) { return doses.dose(i); };
    auto const volume = [&doses](std::size_t i) { return doses.volume(i); };
    r.near_max = make_volume_quantiles(n, std::cref(dose), std::cref(volume), std::cref(kept),
                                       count)({0.03 * (1 - volume_slack)})[0];
    if (!(r.near_max > 0))
        return r;
    // One thread, in voxel order: the mean is the same on every machine.
    double const threshold = fraction * r.near_max;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (kept(i) && dose(i) > threshold)
        {
            sum += voxel_relative_uncertainty(data, region.voxel(i));
            ++r.voxels_counted;
        }
    }
    if (r.voxels_counted > 0)
        r.mean_relative = sum / double(r.voxels_counted);
    return r;
}
} // namespace mcdose
