//! \file dose/Dvh.cc
#include "dose/Dvh.hh"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
//! Voxel doses sorted hottest first, with the running sum of their volumes.
struct SortedDoses
{
    std::vector<double> dose;       //!< descending
    std::vector<double> cumulative; //!< volume of voxels 0..i [cm^3]

    SortedDoses(std::vector<double> const& d, std::vector<double> const& v)
    {
        std::vector<std::size_t> order(d.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b)
                  { return d[a] > d[b] || (d[a] == d[b] && a < b); });
        dose.reserve(d.size());
        cumulative.reserve(d.size());
        double sum = 0;
        for (std::size_t i : order)
        {
            sum += v[i];
            dose.push_back(d[i]);
            cumulative.push_back(sum);
        }
    }

    double total() const { return cumulative.empty() ? 0.0 : cumulative.back(); }

    //! D_V: dose of the first voxel whose running volume reaches V.
    double dose_to_volume(double v_cm3) const
    {
        // Relative slack: a running sum of voxel volumes that should equal V
        // exactly (V = x % of the total) must not miss it by rounding.
        double const target = v_cm3 * (1 - 1e-12);
        auto const it = std::lower_bound(cumulative.begin(), cumulative.end(), target);
        return it == cumulative.end() ? dose.back() : dose[std::size_t(it - cumulative.begin())];
    }

    //! Volume receiving at least `d` [cm^3].
    double volume_at_least(double d) const
    {
        // dose is descending: count the voxels with dose >= d.
        auto const it =
            std::upper_bound(dose.begin(), dose.end(), d, [](double x, double y) { return x > y; });
        std::size_t const n = std::size_t(it - dose.begin());
        return n == 0 ? 0.0 : cumulative[n - 1];
    }
};

//! The figures whose uncertainty is estimated from replicas, in one array.
std::vector<double> replica_figures(DvhFigures const& f)
{
    std::vector<double> x{f.d_min.value, f.d_003cc.value, f.d98.value,
                          f.d95.value,   f.d50.value,     f.d2.value};
    for (auto const& v : f.v_at)
        x.push_back(v.volume_cm3.value);
    return x;
}

void set_replica_sigmas(DvhFigures& f, std::vector<double> const& sigma)
{
    FigureWithSigma* fixed[] = {&f.d_min, &f.d_003cc, &f.d98, &f.d95, &f.d50, &f.d2};
    for (std::size_t i = 0; i < 6; ++i)
        fixed[i]->sigma = sigma[i];
    for (std::size_t i = 0; i < f.v_at.size(); ++i)
    {
        f.v_at[i].volume_cm3.sigma = sigma[6 + i];
        f.v_at[i].volume_percent.sigma = f.volume_cm3 > 0 ? 100 * sigma[6 + i] / f.volume_cm3 : 0.0;
    }
}
} // namespace

DvhFigures dvh_figures(std::vector<double> dose, std::vector<double> volume_cm3,
                       std::vector<double> const& v_at_doses)
{
    MCDOSE_EXPECT(dose.size() == volume_cm3.size());
    DvhFigures f;
    f.voxels = dose.size();
    if (dose.empty())
        return f;
    SortedDoses const s(dose, volume_cm3);
    double const total = s.total();
    f.volume_cm3 = total;
    double weighted = 0;
    for (std::size_t i = 0; i < dose.size(); ++i)
        weighted += dose[i] * volume_cm3[i];
    f.d_mean.value = weighted / total;
    f.d_min.value = s.dose.back();
    f.d_003cc.value = s.dose_to_volume(0.03);
    f.d98.value = s.dose_to_volume(0.98 * total);
    f.d95.value = s.dose_to_volume(0.95 * total);
    f.d50.value = s.dose_to_volume(0.50 * total);
    f.d2.value = s.dose_to_volume(0.02 * total);
    for (double d : v_at_doses)
    {
        double const v = s.volume_at_least(d);
        f.v_at.push_back({d, {v, std::nan("")}, {100 * v / total, std::nan("")}});
    }
    double const top = s.dose.front();
    for (int b = 0; b <= dvh_curve_bins; ++b)
    {
        double const d = top * b / dvh_curve_bins;
        f.curve_dose.push_back(d);
        f.curve_volume_cm3.push_back(b == 0 ? total : s.volume_at_least(d));
    }
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

    std::vector<double> const nominal = replica_figures(f);
    std::vector<double> sum(nominal.size(), 0.0), sum2(nominal.size(), 0.0);
    std::mt19937_64 engine(0x5eed0d5e);
    std::normal_distribution<double> normal;
    std::vector<double> drawn(dose.size());
    for (int r = 0; r < dvh_uncertainty_replicas; ++r)
    {
        for (std::size_t i = 0; i < dose.size(); ++i)
            drawn[i] = std::max(0.0, dose[i] + sigma[i] * normal(engine)); // a dose is >= 0
        std::vector<double> const x = replica_figures(dvh_figures(drawn, volume, v_at_doses));
        for (std::size_t k = 0; k < x.size(); ++k)
        {
            sum[k] += x[k];
            sum2[k] += x[k] * x[k];
        }
    }
    std::vector<double> sd(nominal.size());
    double const n = dvh_uncertainty_replicas;
    for (std::size_t k = 0; k < sd.size(); ++k)
        sd[k] = std::sqrt(std::max(0.0, (sum2[k] - sum[k] * sum[k] / n) / (n - 1)));
    set_replica_sigmas(f, sd);
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
    r.near_max = SortedDoses(dose, volume).dose_to_volume(0.03);
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
