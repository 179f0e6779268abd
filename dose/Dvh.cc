//! \file dose/Dvh.cc
#include "dose/Dvh.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "core/Assert.hh"
#include "core/Constants.hh"
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

//! Doses to the volumes `targets_cm3` of the voxels' `dose(i)`, volumes from `volume`.
template <class Dose>
std::vector<double> doses_to_volumes(std::size_t n, Dose dose,
                                     std::vector<double> const& volume_cm3,
                                     std::vector<double> targets_cm3)
{
    for (double& t : targets_cm3)
        t *= 1 - volume_slack;
    auto const volume = [&volume_cm3](std::size_t i) { return volume_cm3[i]; };
    return make_volume_quantiles(n, dose, volume)(targets_cm3);
}

//! Volume receiving at least `d` [cm^3].
double volume_at_least(std::vector<double> const& dose, std::vector<double> const& volume, double d)
{
    double v = 0;
    for (std::size_t i = 0; i < dose.size(); ++i)
        v += dose[i] >= d ? volume[i] : 0.0;
    return v;
}

//! The cumulative DVH at dvh_curve_bins + 1 doses from 0 to `top`, in one pass.
void set_curve(std::vector<double> const& dose, std::vector<double> const& volume, double top,
               double total, DvhFigures& f)
{
    int const n = dvh_curve_bins;
    auto const level = [top, n](int b) { return top * b / n; };
    // at_level[b]: volume of voxels whose dose is >= level(b) but < level(b + 1).
    std::vector<double> at_level(n + 1, 0.0);
    for (std::size_t i = 0; i < dose.size(); ++i)
    {
        double const d = dose[i];
        int b = top > 0 ? static_cast<int>(std::min<double>(n, std::floor(d / top * n))) : n;
        while (b < n && d >= level(b + 1))
            ++b;
        while (b > 0 && d < level(b))
            --b;
        at_level[b] += volume[i];
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
 * Replica dose fields for the uncertainty of the figures (voxels independent,
 * normal with the voxel's dose and sigma, cut at 0 and at truncation_sigmas).
 * Each figure keeps only the voxels that can fall on either side of it in some
 * replica: the others are on a known side and add a known volume.
 */
class Replicas
{
  public:
    Replicas(std::vector<double> const& dose, std::vector<double> const& sigma,
             std::vector<double> const& volume)
        : dose_(dose), sigma_(sigma), volume_(volume)
    {
        low_.resize(dose.size());
        high_.resize(dose.size());
        for (std::size_t i = 0; i < dose.size(); ++i)
        {
            low_[i] = std::max(0.0, dose[i] - truncation_sigmas * sigma[i]);
            high_[i] = dose[i] + truncation_sigmas * sigma[i];
        }
    }

    /*!
     * Standard deviation of D_V for each volume V of `targets` (nominal values
     * `nominal`): over the replicas, or, where more than max_replica_voxels can cross
     * the figure, asymptotically (delta_sigma).
     */
    std::vector<double> dose_to_volume_sigma(std::vector<double> const& targets,
                                             std::vector<double> const& nominal, unsigned seed)
    {
        std::size_t const n = dose_.size();
        // Every replica's D_V lies between D_V of the lowest and of the highest doses.
        auto const lows = doses_to_volumes(
            n, [this](std::size_t i) { return low_[i]; }, volume_, targets);
        auto const highs = doses_to_volumes(
            n, [this](std::size_t i) { return high_[i]; }, volume_, targets);
        std::vector<double> sd(targets.size(), 0.0);
        for (std::size_t k = 0; k < targets.size(); ++k)
        {
            if (!(lows[k] < highs[k]))
                continue; // the same in every replica
            double const target = targets[k] * (1 - volume_slack);
            double above = 0; // voxels ranked first in every replica
            std::vector<std::size_t> open;
            for (std::size_t i = 0; i < n; ++i)
            {
                if (low_[i] >= highs[k])
                    above += volume_[i];
                else if (high_[i] >= lows[k])
                    open.push_back(i);
            }
            if (open.size() > max_replica_voxels)
            {
                sd[k] = this->delta_sigma(open, nominal[k]);
                continue;
            }
            sd[k] =
                this->spread(seed + unsigned(k), open,
                             [&](std::vector<std::pair<double, std::size_t>>& drawn)
                             {
                                 std::sort(drawn.begin(), drawn.end(),
                                           [](auto const& a, auto const& b) {
                                               return a.first > b.first ||
                                                      (a.first == b.first && a.second < b.second);
                                           });
                                 double running = above;
                                 for (auto const& [d, i] : drawn)
                                 {
                                     running += volume_[i];
                                     if (running >= target)
                                         return d;
                                 }
                                 // Beyond the volume (or short of it by rounding):
                                 // the least dose drawn.
                                 return drawn.back().first;
                             });
        }
        return sd;
    }

    //! Standard deviation of the least dose over the replicas (NaN, not estimated, where
    //! more than max_minimum_voxels can hold it: ICRU 83 reports D98 % for that reason).
    double min_sigma(unsigned seed)
    {
        double const high_min = *std::min_element(high_.begin(), high_.end());
        double const low_min = *std::min_element(low_.begin(), low_.end());
        if (!(low_min < high_min))
            return 0;
        std::vector<std::size_t> open;
        for (std::size_t i = 0; i < dose_.size(); ++i)
        {
            if (low_[i] < high_min)
                open.push_back(i);
        }
        if (open.size() > max_minimum_voxels)
            return std::nan("");
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
     * Standard deviation of the volume receiving at least `d`: exactly, as a sum of
     * independent Bernoulli volumes, Var = sum w^2 p (1 - p) with p the chance that a
     * voxel's dose is at least d (voxels more than 8 sigma away add nothing).
     */
    double volume_at_least_sigma(double d) const
    {
        if (!(d > 0))
            return 0; // every dose is >= 0
        double var = 0;
        for (std::size_t i = 0; i < dose_.size(); ++i)
        {
            if (low_[i] >= d || high_[i] < d || !(sigma_[i] > 0))
                continue;
            double const p = normal_cdf((dose_[i] - d) / sigma_[i]);
            var += volume_[i] * volume_[i] * p * (1 - p);
        }
        return std::sqrt(var);
    }

  private:
    /*!
     * Asymptotic spread of D_V at its nominal value D (the delta method for a quantile,
     * e.g. Serfling, Approximation Theorems of Mathematical Statistics, 1980, 2.3): the
     * volume V(D) above D has variance sum w^2 p (1 - p) over the voxels that can cross D,
     * p = P(d_i' >= D), and the expected volume falls with slope sum w phi(z) / sigma at D,
     * so sigma(D_V) = sqrt(Var V(D)) / slope.
     */
    double delta_sigma(std::vector<std::size_t> const& open, double d) const
    {
        double var = 0, slope = 0;
        for (std::size_t i : open)
        {
            if (!(sigma_[i] > 0))
                continue;
            double const z = (dose_[i] - d) / sigma_[i];
            double const p = normal_cdf(z);
            var += volume_[i] * volume_[i] * p * (1 - p);
            slope += volume_[i] * normal_density(z) / sigma_[i];
        }
        return slope > 0 ? std::sqrt(var) / slope : 0.0;
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
        std::vector<std::pair<double, std::size_t>> drawn(open.size());
        double sum = 0, sum2 = 0;
        for (int r = 0; r < dvh_uncertainty_replicas; ++r)
        {
            for (std::size_t j = 0; j < open.size(); ++j)
            {
                std::size_t const i = open[j];
                double const z = std::clamp(normal(engine), -truncation_sigmas, truncation_sigmas);
                drawn[j] = {std::max(0.0, dose_[i] + sigma_[i] * z), i}; // a dose is >= 0
            }
            double const x = figure(drawn);
            sum += x;
            sum2 += x * x;
        }
        double const n = dvh_uncertainty_replicas;
        return std::sqrt(std::max(0.0, (sum2 - sum * sum / n) / (n - 1)));
    }

    std::vector<double> const& dose_;
    std::vector<double> const& sigma_;
    std::vector<double> const& volume_;
    std::vector<double> low_, high_; //!< the least and largest dose each voxel can draw
};
} // namespace

DvhFigures dvh_figures(std::vector<double> dose, std::vector<double> volume_cm3,
                       std::vector<double> const& v_at_doses)
{
    MCDOSE_EXPECT(dose.size() == volume_cm3.size());
    DvhFigures f;
    f.voxels = dose.size();
    if (dose.empty())
        return f;
    double total = 0, weighted = 0;
    for (std::size_t i = 0; i < dose.size(); ++i)
    {
        total += volume_cm3[i];
        weighted += dose[i] * volume_cm3[i];
    }
    f.volume_cm3 = total;
    f.d_mean.value = weighted / total;
    f.d_min.value = *std::min_element(dose.begin(), dose.end());
    auto const d_v = doses_to_volumes(
        dose.size(), [&dose](std::size_t i) { return dose[i]; }, volume_cm3, figure_volumes(total));
    auto const figures = fixed_figures(f);
    for (std::size_t k = 0; k < figures.size(); ++k)
        figures[k]->value = d_v[k];
    for (double d : v_at_doses)
    {
        double const v = volume_at_least(dose, volume_cm3, d);
        f.v_at.push_back({d, {v, std::nan("")}, {100 * v / total, std::nan("")}});
    }
    set_curve(dose, volume_cm3, *std::max_element(dose.begin(), dose.end()), total, f);
    return f;
}

DvhFigures structure_dvh(StructureMask const& s, DoseGridData const& data, double dose_scale,
                         std::vector<double> const& v_at_doses)
{
    validate_dose_data(data);
    double const voxel_cm3 = data.geometry.voxel_volume_cm3();
    std::vector<double> dose(s.voxels.size()), sigma(s.voxels.size()), volume(s.voxels.size());
    for (std::size_t i = 0; i < s.voxels.size(); ++i)
    {
        size_type const v = s.voxels[i];
        dose[i] = voxel_dose_gy_per_particle(data, v) * dose_scale;
        sigma[i] = dose[i] * (data.edep_MeV[v] > 0 ? data.edep_sigma_MeV[v] / data.edep_MeV[v] : 0);
        volume[i] = voxel_cm3 * s.fraction[i];
    }
    DvhFigures f = dvh_figures(dose, volume, v_at_doses);
    f.name = s.name;
    f.origin = s.origin;
    bool const have_sigma =
        std::all_of(sigma.begin(), sigma.end(), [](double x) { return std::isfinite(x); });
    if (!have_sigma || dose.empty())
        return f;
    // Dmean = sum w d / sum w: its variance is sum w^2 sigma^2 / (sum w)^2.
    double var = 0;
    for (std::size_t i = 0; i < dose.size(); ++i)
        var += volume[i] * volume[i] * sigma[i] * sigma[i];
    f.d_mean.sigma = std::sqrt(var) / f.volume_cm3;

    Replicas replicas(dose, sigma, volume);
    f.d_min.sigma = replicas.min_sigma(0);
    auto const figures = fixed_figures(f);
    std::vector<double> nominal;
    for (auto const* figure : figures)
        nominal.push_back(figure->value);
    auto const sd = replicas.dose_to_volume_sigma(figure_volumes(f.volume_cm3), nominal, 1);
    for (std::size_t k = 0; k < figures.size(); ++k)
        figures[k]->sigma = sd[k];
    for (std::size_t k = 0; k < f.v_at.size(); ++k)
    {
        double const sv = replicas.volume_at_least_sigma(f.v_at[k].dose);
        f.v_at[k].volume_cm3.sigma = sv;
        f.v_at[k].volume_percent.sigma = 100 * sv / f.volume_cm3;
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
    double const voxel_cm3 = data.geometry.voxel_volume_cm3();
    std::vector<double> dose, volume;
    std::vector<size_type> kept;
    dose.reserve(region.voxels.size());
    for (std::size_t i = 0; i < region.voxels.size(); ++i)
    {
        size_type const v = region.voxels[i];
        double const d = voxel_dose_gy_per_particle(data, v);
        if (data.density_g_cm3[v] < low_density_g_cm3)
        {
            ++r.low_density_voxels;
            r.low_density_max = std::max(r.low_density_max, d);
            continue;
        }
        dose.push_back(d);
        volume.push_back(voxel_cm3 * region.fraction[i]);
        kept.push_back(v);
    }
    // Outside the region: the largest dose, reported but never the near-maximum.
    std::size_t next = 0;
    for (size_type v = 0; v < data.geometry.num_voxels(); ++v)
    {
        while (next < region.voxels.size() && region.voxels[next] < v)
            ++next;
        if (next < region.voxels.size() && region.voxels[next] == v)
            continue;
        r.outside_max = std::max(r.outside_max, voxel_dose_gy_per_particle(data, v));
    }
    if (dose.empty())
        return r;
    r.near_max = doses_to_volumes(dose.size(), [&dose](std::size_t i) { return dose[i]; }, volume,
                                  {0.03})[0];
    if (!(r.near_max > 0))
        return r;
    // One thread, in voxel order: the mean is the same on every machine.
    double const threshold = fraction * r.near_max;
    double sum = 0;
    for (std::size_t i = 0; i < kept.size(); ++i)
    {
        if (dose[i] > threshold)
        {
            sum += voxel_relative_uncertainty(data, kept[i]);
            ++r.voxels_counted;
        }
    }
    if (r.voxels_counted > 0)
        r.mean_relative = sum / double(r.voxels_counted);
    return r;
}
} // namespace mcdose
