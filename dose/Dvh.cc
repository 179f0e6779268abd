//! \file dose/Dvh.cc
//! The DVH figures of a structure and their passes over its voxels; the replica dose fields
//! of their uncertainty are in DvhUncertainty.cc, the region summary in RegionSummary.cc.
#include "dose/Dvh.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "core/Assert.hh"
#include "core/ParallelFor.hh"
#include "dose/VolumeQuantiles.hh"
#include "dose/detail/DvhSums.hh"
#include "dose/detail/StructureDoses.hh"

namespace mcdose
{
using namespace detail;

namespace
{

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
    add_replica_uncertainty(f, doses, sums, draws, threads);
    for (std::size_t k = 0; k < f.v_at.size(); ++k)
    {
        double const sv = std::sqrt(sums.v_at_var[k]);
        f.v_at[k].volume_cm3.sigma = sv;
        f.v_at[k].volume_percent.sigma = 100 * sv / f.volume_cm3;
    }
    return f;
}
} // namespace mcdose
