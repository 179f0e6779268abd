//! DVH figures against known dose fields: a uniform dose, a linear ramp in a
//! box (the analytic cumulative DVH), their uncertainty, and the region summary
//! that a hot air voxel must not decide.
#include "dose/Dvh.hh"
#include "dose/VolumeQuantiles.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include <gtest/gtest.h>

#include "core/Constants.hh"
#include "dose/DoseData.hh"
#include "dose/DvhCsv.hh"

namespace mcdose
{
namespace
{
TEST(DvhTest, UniformDoseFiguresEqualTheDose)
{
    std::vector<double> const dose(1000, 2.5), volume(1000, 0.008);
    DvhFigures const f = dvh_figures(dose, volume, {2.0, 2.5, 3.0});
    for (FigureWithSigma const* x : {&f.d_min, &f.d_003cc, &f.d98, &f.d95, &f.d50, &f.d2})
        EXPECT_DOUBLE_EQ(2.5, x->value);
    EXPECT_NEAR(2.5, f.d_mean.value, 1e-12); // a sum over 1000 volumes
    EXPECT_NEAR(8.0, f.volume_cm3, 1e-12);
    ASSERT_EQ(3u, f.v_at.size());
    EXPECT_NEAR(100.0, f.v_at[0].volume_percent.value, 1e-9);
    EXPECT_NEAR(100.0, f.v_at[1].volume_percent.value, 1e-9); // "at least" the dose
    EXPECT_EQ(0.0, f.v_at[2].volume_cm3.value);
}

TEST(DvhTest, LinearRampMatchesTheAnalyticCurve)
{
    // A box of n voxels whose doses rise linearly from 0 to dmax, one per
    // voxel, in shuffled order: V(>= D) / V = 1 - D / dmax.
    int const n = 2000;
    double const dmax = 60.0, voxel = 0.001;
    std::vector<double> dose(n), volume(n, voxel);
    for (int i = 0; i < n; ++i)
        dose[(i * 7919) % n] = dmax * (i + 0.5) / n;
    DvhFigures const f = dvh_figures(dose, volume, {15.0, 30.0});
    double const step = dmax / n; // one voxel's dose step: the curve's resolution
    ASSERT_EQ(std::size_t(dvh_curve_bins + 1), f.curve_dose.size());
    for (std::size_t b = 0; b < f.curve_dose.size(); ++b)
    {
        double const analytic = n * voxel * (1 - f.curve_dose[b] / dmax);
        EXPECT_NEAR(analytic, f.curve_volume_cm3[b], voxel * 1.0001) << "bin " << b;
    }
    EXPECT_NEAR(0.98 * dmax, f.d2.value, step);
    EXPECT_NEAR(0.50 * dmax, f.d50.value, step);
    EXPECT_NEAR(0.05 * dmax, f.d95.value, step);
    EXPECT_NEAR(0.02 * dmax, f.d98.value, step);
    EXPECT_NEAR(dmax * (1 - 0.03 / (n * voxel)), f.d_003cc.value, step);
    EXPECT_NEAR(dmax / 2, f.d_mean.value, 1e-9);
    EXPECT_NEAR(step / 2, f.d_min.value, 1e-12);
    EXPECT_NEAR(75.0, f.v_at[0].volume_percent.value, 100.0 / n);
    EXPECT_NEAR(50.0, f.v_at[1].volume_percent.value, 100.0 / n);
}

TEST(DvhTest, PartialVoxelsCountByTheirFraction)
{
    // Two voxels: the hot one only a quarter inside.
    DvhFigures const f = dvh_figures({10.0, 2.0}, {0.25, 1.0}, {});
    EXPECT_NEAR(1.25, f.volume_cm3, 1e-12);
    EXPECT_NEAR((10 * 0.25 + 2.0) / 1.25, f.d_mean.value, 1e-12);
    EXPECT_DOUBLE_EQ(10.0, f.d2.value); // hottest 0.025 cm3 lies in the hot voxel
    EXPECT_DOUBLE_EQ(2.0, f.d50.value);
}

//! A grid of water voxels with a 2 % uncertainty and one air voxel outside the
//! body with a 10 times higher dose at 90 %.
struct PlantedHotAir
{
    GridGeometry g;
    std::vector<double> edep, sigma;
    std::vector<float> rho;
    std::vector<MaterialIndex> mat;
    StructureMask body;
    size_type air{0};

    PlantedHotAir()
    {
        g.dims = {{10, 10, 10}};
        g.spacing_cm = {{1, 1, 1}};
        size_type const n = g.num_voxels();
        edep.assign(n, 1.0);
        sigma.assign(n, 0.02);
        rho.assign(n, 1.0f);
        mat.assign(n, 0);
        air = g.linear_index({{0, 0, 0}});
        rho[air] = 0.0012f;
        edep[air] = 10 * 0.0012; // dose 10 x the water's
        sigma[air] = 0.9 * edep[air];
        for (size_type v = 0; v < n; ++v)
        {
            if (v != air)
            {
                body.voxels.push_back(v);
                body.fraction.push_back(1.0f);
            }
        }
        body.name = "body";
    }

    DoseGridData data() const
    {
        return dose_grid_view(g, make_span(std::as_const(edep)), make_span(std::as_const(sigma)),
                              make_span(std::as_const(rho)), make_span(std::as_const(mat)));
    }
};

TEST(RegionSummaryTest, HotAirVoxelDecidesNothing)
{
    PlantedHotAir const p;
    DoseGridData const d = p.data();
    double const water_dose = voxel_dose_gy_per_particle(d, 1);
    // (Tolerances 1e-6: the air density is a float.) The grid-wide rule is decided by the air
    // voxel: its maximum, its 90 %.
    EXPECT_NEAR(10 * water_dose, max_dose_gy_per_particle(d), 1e-6 * water_dose);
    EXPECT_NEAR(0.9, *mean_relative_uncertainty(d, 0.5), 1e-12);

    RegionSummary const r = summarize_region(d, p.body, 0.05, 0.5);
    EXPECT_NEAR(water_dose, r.near_max, 1e-12 * water_dose);
    ASSERT_TRUE(r.mean_relative);
    EXPECT_NEAR(0.02, *r.mean_relative, 1e-12);
    EXPECT_EQ(size_type(999), r.voxels_counted);
    EXPECT_NEAR(10 * water_dose, r.outside_max, 1e-6 * water_dose);

    // Air inside the body: reported as low density, still not counted.
    StructureMask whole = p.body;
    whole.voxels.insert(whole.voxels.begin(), p.air);
    whole.fraction.push_back(1.0f);
    RegionSummary const w = summarize_region(d, whole, 0.05, 0.5);
    EXPECT_NEAR(0.02, *w.mean_relative, 1e-12);
    EXPECT_EQ(size_type(1), w.low_density_voxels);
    EXPECT_NEAR(10 * water_dose, w.low_density_max, 1e-6 * water_dose);
}

TEST(StructureDvhTest, WholeGridBodyListsNoVoxelAndGivesTheListedFigures)
{
    // The body of a shape phantom is the whole grid by count (no voxel list): its figures
    // and summary are those of the same voxels listed one by one, bit for bit.
    PlantedHotAir const p;
    DoseGridData const d = p.data();
    StructureMask const whole = whole_grid(p.g);
    EXPECT_TRUE(whole.voxels.empty());
    EXPECT_EQ(p.g.num_voxels(), whole.size());
    EXPECT_TRUE(whole.contains(p.air));
    EXPECT_DOUBLE_EQ(1000.0, whole.volume_cm3(1.0));
    StructureMask listed;
    listed.name = whole.name;
    listed.origin = whole.origin;
    for (size_type v = 0; v < p.g.num_voxels(); ++v)
    {
        listed.voxels.push_back(v);
        listed.fraction.push_back(1.0f);
    }
    double const water_dose = voxel_dose_gy_per_particle(d, 1);
    std::vector<double> const at{0.5 * water_dose, 2 * water_dose};
    DvhFigures const a = structure_dvh(whole, d, 3.0, at);
    DvhFigures const b = structure_dvh(listed, d, 3.0, at);
    EXPECT_EQ(b.voxels, a.voxels);
    EXPECT_EQ(b.volume_cm3, a.volume_cm3);
    EXPECT_EQ(b.d_mean.value, a.d_mean.value);
    EXPECT_EQ(b.d_mean.sigma, a.d_mean.sigma);
    EXPECT_EQ(b.d2.value, a.d2.value);
    EXPECT_EQ(b.d2.sigma, a.d2.sigma);
    EXPECT_EQ(b.d50.sigma, a.d50.sigma);
    ASSERT_EQ(b.v_at.size(), a.v_at.size());
    EXPECT_EQ(b.v_at[0].volume_cm3.sigma, a.v_at[0].volume_cm3.sigma);
    EXPECT_EQ(b.curve_volume_cm3, a.curve_volume_cm3);
    RegionSummary const ra = summarize_region(d, whole, 0.05, 0.5);
    RegionSummary const rb = summarize_region(d, listed, 0.05, 0.5);
    EXPECT_EQ(rb.near_max, ra.near_max);
    EXPECT_EQ(*rb.mean_relative, *ra.mean_relative);
    EXPECT_EQ(size_type(1), ra.low_density_voxels);
    EXPECT_EQ(rb.low_density_max, ra.low_density_max);
}

TEST(VolumeQuantilesTest, MembersAreThoseOfTheFilteredList)
{
    // D_V over the voxels a predicate keeps equals D_V over the list of those voxels.
    std::vector<double> dose, volume;
    for (int i = 0; i < 20000; ++i)
    {
        dose.push_back(double((i * 7919) % 10007));
        volume.push_back(1.0 + (i % 3));
    }
    auto const member = [](std::size_t i) { return i % 5 != 0; };
    std::vector<double> kept_dose, kept_volume;
    for (std::size_t i = 0; i < dose.size(); ++i)
    {
        if (member(i))
        {
            kept_dose.push_back(dose[i]);
            kept_volume.push_back(volume[i]);
        }
    }
    std::vector<double> const targets{1.0, 100.0, 5000.0, 1e9};
    auto const filtered = make_volume_quantiles(
        dose.size(), [&](std::size_t i) { return dose[i]; },
        [&](std::size_t i) { return volume[i]; }, member, kept_dose.size())(targets);
    auto const listed = make_volume_quantiles(
        kept_dose.size(), [&](std::size_t i) { return kept_dose[i]; },
        [&](std::size_t i) { return kept_volume[i]; })(targets);
    EXPECT_EQ(listed, filtered);
}

TEST(VolumeQuantilesTest, LeastDoseBinAndAGivenRangeGiveTheSortedAnswer)
{
    // 60 % of the voxels at the least dose (0.5, not 0), the rest above it with ties; the
    // least dose's bin answers the targets within it without a list. Targets on both sides
    // of where it starts, and beyond the total; with the range given and found.
    std::size_t const n = 100000;
    std::vector<double> dose(n), volume(n);
    std::mt19937_64 engine(11);
    std::uniform_real_distribution<double> uniform(0, 1);
    for (std::size_t i = 0; i < n; ++i)
    {
        double const u = uniform(engine);
        dose[i] = u < 0.6 ? 0.5 : 0.5 + std::ceil(1000 * u) / 500;
        volume[i] = uniform(engine) < 0.5 ? 1.0 : 2.0;
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b)
              { return dose[a] > dose[b] || (dose[a] == dose[b] && a < b); });
    double hot_volume = 0; // of the voxels above the least dose
    for (std::size_t i = 0; i < n; ++i)
        hot_volume += dose[i] > 0.5 ? volume[i] : 0.0;
    double const total = std::accumulate(volume.begin(), volume.end(), 0.0);
    std::vector<double> const targets{
        1,           1000,  hot_volume - 1, hot_volume, hot_volume + 0.5, hot_volume + 1,
        0.9 * total, total, 2 * total};
    std::vector<double> expected;
    for (double t : targets)
    {
        double running = 0, found = dose[order.back()];
        for (std::size_t i : order)
        {
            running += volume[i];
            if (running >= t)
            {
                found = dose[i];
                break;
            }
        }
        expected.push_back(found);
    }
    auto const quantiles = make_volume_quantiles(
        n, [&](std::size_t i) { return dose[i]; }, [&](std::size_t i) { return volume[i]; });
    EXPECT_EQ(expected, quantiles(targets));
    double const top = *std::max_element(dose.begin(), dose.end());
    EXPECT_EQ(expected, quantiles(targets, {0.5, top}));
}

TEST(VolumeQuantilesTest, SeveralDoseFunctionsResolvedTogetherAsApart)
{
    // Three doses per voxel (a dose, and a lower and a higher one as a DVH's draws) with
    // their own targets and ranges, resolved in the same passes: each is what it is alone.
    std::size_t const n = 50000;
    std::vector<double> dose(n), volume(n);
    std::mt19937_64 engine(3);
    std::uniform_real_distribution<double> uniform(0, 1);
    for (std::size_t i = 0; i < n; ++i)
    {
        double const u = uniform(engine);
        dose[i] = u < 0.4 ? 0.0 : std::ceil(2000 * u) / 1000;
        volume[i] = uniform(engine) < 0.5 ? 1.0 : 0.5;
    }
    auto const three = [&](std::size_t i) {
        return std::array<double, 3>{dose[i], 0.5 * dose[i], dose[i] + 1};
    };
    using Range = std::pair<double, double>;
    std::array<std::vector<double>, 3> const targets = {std::vector<double>{1, 500, 20000},
                                                        std::vector<double>{7, 30000, 1e9},
                                                        std::vector<double>{100, 2, 35000, 0.5}};
    std::array<Range, 3> ranges;
    for (std::size_t k = 0; k < 3; ++k)
        ranges[k] = {three(0)[k], three(0)[k]};
    for (std::size_t i = 0; i < n; ++i)
    {
        for (std::size_t k = 0; k < 3; ++k)
            ranges[k] = {std::min(ranges[k].first, three(i)[k]),
                         std::max(ranges[k].second, three(i)[k])};
    }
    auto const together = make_volume_quantiles(
        n, three, [&](std::size_t i) { return volume[i]; }, 2)(targets, ranges);
    for (std::size_t k = 0; k < 3; ++k)
    {
        SCOPED_TRACE("dose function " + std::to_string(k));
        auto const alone = make_volume_quantiles(
            n, [&](std::size_t i) { return three(i)[k]; },
            [&](std::size_t i) { return volume[i]; })(targets[k]);
        EXPECT_EQ(alone, together[k]);
    }
}

TEST(StructureDvhTest, UncertaintyOfTheFigures)
{
    PlantedHotAir const p;
    DoseGridData const d = p.data();
    double const water_dose = voxel_dose_gy_per_particle(d, 1);
    DvhFigures const f = structure_dvh(p.body, d, 1.0, {0.5 * water_dose});
    EXPECT_NEAR(water_dose, f.d50.value, 1e-12 * water_dose);
    // Dmean of 999 independent voxels at 2 %: 2 % / sqrt(999).
    EXPECT_NEAR(0.02 * water_dose / std::sqrt(999.0), f.d_mean.sigma, 1e-6 * water_dose);
    // D50 of 999 voxels drawn at 2 %: the spread of a sample median, about
    // 1.25 sigma / sqrt(n) (sampling of 32 replicas: within a factor 2).
    double const median_sigma = 1.2533 * 0.02 * water_dose / std::sqrt(999.0);
    EXPECT_GT(f.d50.sigma, 0.5 * median_sigma);
    EXPECT_LT(f.d50.sigma, 2.0 * median_sigma);
    // D2 lies in the upper tail: larger than the uniform dose by about 2 sigma.
    EXPECT_GT(f.d2.sigma, 0.0);
    EXPECT_EQ(0.0, f.v_at[0].volume_cm3.sigma); // every voxel far above half the dose

    DoseReport report;
    report.dose_unit = "Gy";
    report.dvhs.push_back(f);
    std::string const figures = dvh_figures_csv(report);
    EXPECT_NE(figures.find("structure,figure,value,sigma,unit\nbody,volume,999,,cm3\n"),
              std::string::npos)
        << figures;
    EXPECT_NE(figures.find("body,D50%,"), std::string::npos) << figures;
    std::string const curves = dvh_curves_csv(report);
    EXPECT_EQ(0u, curves.find("structure,dose_Gy,volume_cm3,volume_percent\nbody,0,999,100\n"))
        << curves.substr(0, 200);
}
} // namespace

namespace
{
//! D_V by a full sort, hottest first (equal doses by index): the definition.
double sorted_dose_to_volume(std::vector<double> const& dose, std::vector<double> const& volume,
                             double v)
{
    std::vector<std::size_t> order(dose.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b)
              { return dose[a] > dose[b] || (dose[a] == dose[b] && a < b); });
    double running = 0;
    for (std::size_t i : order)
    {
        running += volume[i];
        if (running >= v * (1 - 1e-12))
            return dose[i];
    }
    return dose[order.back()];
}
} // namespace

// Large structures are not sorted whole (dose/VolumeQuantiles.hh): the figures
// must still be those of the sort, with ties, zeros and partial voxels.
TEST(DvhTest, LargeStructureFiguresEqualThoseOfAFullSort)
{
    std::mt19937_64 engine(7);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::size_t const n = 300000;
    std::vector<double> dose(n), volume(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        double const u = uniform(engine);
        // A third exactly 0, a band of equal doses, a smooth falloff, a few hot voxels.
        dose[i] = u < 0.33 ? 0.0 : u < 0.5 ? 1.25 : u < 0.9999 ? 3 * std::pow(u, 4) : 50 + u;
        volume[i] = uniform(engine) < 0.1 ? 0.001 * (1 + uniform(engine)) : 0.001;
    }
    DvhFigures const f = dvh_figures(dose, volume, {1.25, 2.0});
    double const total = std::accumulate(volume.begin(), volume.end(), 0.0);
    EXPECT_NEAR(total, f.volume_cm3, 1e-9 * total);
    EXPECT_EQ(0.0, f.d_min.value);
    EXPECT_EQ(sorted_dose_to_volume(dose, volume, 0.03), f.d_003cc.value);
    EXPECT_EQ(sorted_dose_to_volume(dose, volume, 0.98 * total), f.d98.value);
    EXPECT_EQ(sorted_dose_to_volume(dose, volume, 0.95 * total), f.d95.value);
    EXPECT_EQ(sorted_dose_to_volume(dose, volume, 0.50 * total), f.d50.value);
    EXPECT_EQ(sorted_dose_to_volume(dose, volume, 0.02 * total), f.d2.value);
    EXPECT_EQ(0.0, f.d98.value); // more than 2 % of the volume has no dose
    ASSERT_EQ(2u, f.v_at.size());
    double v125 = 0;
    for (std::size_t i = 0; i < n; ++i)
        v125 += dose[i] >= 1.25 ? volume[i] : 0.0;
    EXPECT_NEAR(v125, f.v_at[0].volume_cm3.value, 1e-9 * total);
    // The curve: V(>= d) at 201 doses from 0 to the largest, falling.
    ASSERT_EQ(std::size_t(dvh_curve_bins + 1), f.curve_volume_cm3.size());
    EXPECT_NEAR(total, f.curve_volume_cm3.front(), 1e-9 * total);
    for (int b = 1; b <= dvh_curve_bins; ++b)
    {
        double const d = f.curve_dose[b];
        double expected = 0;
        for (std::size_t i = 0; i < n; ++i)
            expected += dose[i] >= d ? volume[i] : 0.0;
        ASSERT_NEAR(expected, f.curve_volume_cm3[b], 1e-9 * total) << "at " << d;
    }
}

// The replicas draw only the voxels near each figure: a figure that no voxel
// can cross has no spread, and the spread of D50 matches that of a sample
// median of many voxels whatever their number.
TEST(StructureDvhTest, ReplicasDrawOnlyTheVoxelsNearAFigure)
{
    GridGeometry g;
    g.dims = {{100, 100, 20}};
    g.spacing_cm = {{0.1, 0.1, 0.1}};
    size_type const n = g.num_voxels();
    std::vector<double> edep(n), sigma(n);
    std::vector<float> rho(n, 1.0f);
    std::vector<MaterialIndex> mat(n, 0);
    StructureMask body;
    body.name = "body";
    for (size_type v = 0; v < n; ++v)
    {
        // Half the voxels at dose 0 with no uncertainty, half at 1 +- 5 %.
        bool const hot = v % 2 == 0;
        edep[v] = hot ? 1.0 : 0.0;
        sigma[v] = hot ? 0.05 : 0.0;
        body.voxels.push_back(v);
        body.fraction.push_back(1.0f);
    }
    DoseGridData const d =
        dose_grid_view(g, make_span(std::as_const(edep)), make_span(std::as_const(sigma)),
                       make_span(std::as_const(rho)), make_span(std::as_const(mat)));
    double const dose1 = voxel_dose_gy_per_particle(d, 0);
    DvhFigures const f = structure_dvh(body, d, 1.0, {0.5 * dose1});
    EXPECT_EQ(0.0, f.d_min.value);
    EXPECT_EQ(0.0, f.d_min.sigma);              // the cold voxels hold it in every replica
    EXPECT_EQ(0.0, f.d98.sigma);                // likewise D98 (half the volume is cold)
    EXPECT_EQ(0.0, f.v_at[0].volume_cm3.sigma); // no hot voxel can fall 10 sigma
    // D2 %: the 4 % quantile of the 100,000 hot voxels; its spread, that of a
    // sample quantile, sqrt(p (1 - p) / m) / phi(z_p) sigma, p = 0.04, m = 1e5.
    double const z = 1.7507; // the 96 % point of the standard normal
    double const phi = std::exp(-0.5 * z * z) / std::sqrt(2 * constants::pi);
    double const expected = std::sqrt(0.04 * 0.96 / 1e5) / phi * 0.05 * dose1;
    EXPECT_GT(f.d2.sigma, 0.5 * expected);
    EXPECT_LT(f.d2.sigma, 2.0 * expected);
    EXPECT_DOUBLE_EQ(dose1, f.d2.value); // the nominal doses are all equal
}
} // namespace mcdose
