//! Gamma index and dose difference on synthetic cases with known answers:
//! uniform doses scaled by a known factor (gamma = |s - 1| / dD exactly), a
//! Gaussian profile shifted or scaled (gamma along the axis is a
//! one-dimensional minimisation of the analytic function, done here by a fine
//! scan), grids that differ (resampling), and the refusals.
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "dose/DoseComparison.hh"

namespace mcdose::test
{
namespace
{
DoseGrid make_grid(Int3 dims, double spacing_mm, double x0_mm, std::function<double(double)> f)
{
    DoseGrid d;
    d.geometry = make_axis_aligned_geometry(
        dims, Real3{{spacing_mm / 10, spacing_mm / 10, spacing_mm / 10}},
        Real3{{x0_mm / 10, -(dims[1] - 1) * spacing_mm / 20, -(dims[2] - 1) * spacing_mm / 20}});
    d.values.resize(d.geometry.num_voxels());
    for (size_type v = 0; v < d.values.size(); ++v)
        d.values[v] = f(x0_mm + spacing_mm * d.geometry.ijk(v)[0]);
    d.units = "Gy";
    d.source = "synthetic";
    return d;
}

constexpr double sigma_mm = 10;
//! Largest |f''| of the (shifted, scaled by at most 1.05) Gaussians below [1/mm^2].
constexpr double max_second_derivative = 1.05 / (sigma_mm * sigma_mm);

double gaussian(double x_mm)
{
    return std::exp(-0.5 * x_mm * x_mm / (sigma_mm * sigma_mm));
}

//! Gamma at reference point x for an evaluated dose varying along x only:
//! min over r of r^2/dta^2 + (f_e(x + r) - f_r(x))^2 / dD^2, scanned every 1e-4 mm.
double gamma_1d(double x, std::function<double(double)> const& ref,
                std::function<double(double)> const& eval, double dD, double dta, double radius)
{
    double best = radius * radius / (dta * dta);
    for (double r = -radius; r <= radius; r += 1e-4)
    {
        double const dd = eval(x + r) - ref(x);
        best = std::min(best, r * r / (dta * dta) + dd * dd / (dD * dD));
    }
    return std::sqrt(best);
}

//! Engine gamma along the central row against gamma_1d (voxels above the
//! threshold). The engine sees the evaluated dose through trilinear
//! interpolation, off by at most h^2/8 max|f''| (h: the evaluated grid's
//! spacing); the tolerance is that bound over dD plus `tolerance` (the search).
void expect_gamma_along_axis(DoseGrid const& ref, DoseGrid const& eval,
                             std::function<double(double)> const& f_ref,
                             std::function<double(double)> const& f_eval, GammaCriterion const& c,
                             double tolerance)
{
    double const h_mm = 10 * eval.geometry.spacing_cm[0];
    double const interpolation_bound = h_mm * h_mm / 8 * max_second_derivative;
    // The analytic figures are relative to the Gaussians' peak, 1: given as the
    // normalisation (the default, the grid's D0.03cc, spans most of this 0.05 cm3 grid).
    ComparisonOptions options;
    options.normalisation_dose = 1.0;
    GammaResult const g = gamma_index(ref, eval, c, options);
    GridGeometry const& geo = ref.geometry;
    int checked = 0;
    double worst = 0;
    for (int i = 0; i < geo.dims[0]; ++i)
    {
        size_type const v = geo.linear_index(Int3{{i, geo.dims[1] / 2, geo.dims[2] / 2}});
        double const x = 10 * geo.voxel_centre_cm(geo.ijk(v))[0];
        if (f_ref(x) < options.threshold_fraction)
        {
            EXPECT_EQ(-1.0f, g.map[v]) << "below the threshold at x = " << x;
            continue;
        }
        double const dD = c.dose_fraction * (c.local ? f_ref(x) : 1.0);
        double const expected = gamma_1d(x, f_ref, f_eval, dD, c.dta_mm, 3 * c.dta_mm);
        EXPECT_NEAR(expected, g.map[v], tolerance + interpolation_bound / dD)
            << "x = " << x << " mm, " << c.label();
        worst = std::max(worst, std::abs(expected - g.map[v]));
        ++checked;
    }
    EXPECT_GT(checked, 100);
    std::cout << c.label() << ": " << checked << " points, largest |gamma - analytic| " << worst
              << '\n';
}

// 0.25 mm voxels along x (trilinear interpolation error of the Gaussian below
// 1e-4 of its maximum), three rows and slices so the search is 3D.
constexpr Int3 line_dims{{321, 3, 3}};
constexpr double line_spacing_mm = 0.25;
constexpr double line_x0_mm = -40;
} // namespace

TEST(GammaTest, IdenticalDosesGiveZeroGamma)
{
    DoseGrid const a = make_grid(line_dims, line_spacing_mm, line_x0_mm, gaussian);
    GammaResult const g = gamma_index(a, a, GammaCriterion{}, ComparisonOptions{});
    EXPECT_GT(g.evaluated, 0u);
    EXPECT_EQ(g.evaluated, g.passed);
    // Voxel centres map to whole indices up to rounding of the geometry (1e-14).
    EXPECT_LT(g.max_gamma, 1e-9);
    EXPECT_DOUBLE_EQ(1.0, g.pass_rate);
}

TEST(GammaTest, UniformDoseScaledByKnownFactor)
{
    // Uniform dose C against s C: no displacement helps, gamma = |s - 1| C / dD.
    auto const uniform = [](double) { return 2.0; };
    DoseGrid const a = make_grid(Int3{{12, 10, 8}}, 2.0, -11, uniform);
    for (double s : {1.02, 0.96, 1.05})
    {
        DoseGrid b = a;
        for (double& x : b.values)
            x *= s;
        for (bool local : {false, true})
        {
            GammaCriterion c;
            c.local = local;
            GammaResult const g = gamma_index(a, b, c, ComparisonOptions{});
            double const expected = std::abs(s - 1) / 0.03;
            EXPECT_EQ(a.values.size(), g.evaluated);
            EXPECT_NEAR(expected, g.max_gamma, 1e-6) << "s = " << s;
            EXPECT_NEAR(expected, g.mean_gamma, 1e-6) << "s = " << s;
            EXPECT_DOUBLE_EQ(expected <= 1 ? 1.0 : 0.0, g.pass_rate) << "s = " << s;
        }
    }
}

TEST(GammaTest, ShiftedGaussianAlongTheAxis)
{
    // Evaluated = reference shifted by 1 mm: gamma <= 1/3 at 3%/3mm everywhere
    // (the shifted point matches), lower where the dose gradient helps.
    double const shift = 1.0;
    auto const shifted = [&](double x) { return gaussian(x - shift); };
    DoseGrid const a = make_grid(line_dims, line_spacing_mm, line_x0_mm, gaussian);
    DoseGrid const b = make_grid(line_dims, line_spacing_mm, line_x0_mm, shifted);
    GammaCriterion c;
    expect_gamma_along_axis(a, b, gaussian, shifted, c, 2e-3);
    c.dose_fraction = 0.02;
    c.dta_mm = 2;
    expect_gamma_along_axis(a, b, gaussian, shifted, c, 2e-3);
    c.local = true;
    expect_gamma_along_axis(a, b, gaussian, shifted, c, 2e-3);
}

TEST(GammaTest, ShiftedGaussianFailsWhereTheShiftExceedsTheDistance)
{
    // A 4 mm shift at 2%/2mm: the steep flanks fail, the flat peak passes.
    double const shift = 4.0;
    auto const shifted = [&](double x) { return gaussian(x - shift); };
    DoseGrid const a = make_grid(line_dims, line_spacing_mm, line_x0_mm, gaussian);
    DoseGrid const b = make_grid(line_dims, line_spacing_mm, line_x0_mm, shifted);
    GammaCriterion c;
    c.dose_fraction = 0.02;
    c.dta_mm = 2;
    expect_gamma_along_axis(a, b, gaussian, shifted, c, 2e-3);
    GammaResult const g = gamma_index(a, b, c, ComparisonOptions{});
    EXPECT_GT(g.pass_rate, 0.0);
    EXPECT_LT(g.pass_rate, 1.0);
}

TEST(GammaTest, ScaledGaussianGlobalAndLocal)
{
    auto const scaled = [](double x) { return 1.03 * gaussian(x); };
    DoseGrid const a = make_grid(line_dims, line_spacing_mm, line_x0_mm, gaussian);
    DoseGrid const b = make_grid(line_dims, line_spacing_mm, line_x0_mm, scaled);
    for (bool local : {false, true})
    {
        GammaCriterion c;
        c.dose_fraction = 0.02;
        c.dta_mm = 2;
        c.local = local;
        expect_gamma_along_axis(a, b, gaussian, scaled, c, 2e-3);
    }
}

TEST(GammaTest, EvaluatedOnAnotherGridIsInterpolated)
{
    // The evaluated Gaussian on 0.2 mm voxels starting elsewhere, shifted 1.5 mm.
    double const shift = 1.5;
    auto const shifted = [&](double x) { return gaussian(x - shift); };
    DoseGrid const a = make_grid(line_dims, line_spacing_mm, line_x0_mm, gaussian);
    DoseGrid const b = make_grid(Int3{{451, 5, 5}}, 0.2, -44.9, shifted);
    GammaCriterion c;
    expect_gamma_along_axis(a, b, gaussian, shifted, c, 2e-3);
    DoseDifferenceStats const s = dose_difference(a, b, ComparisonOptions{});
    EXPECT_EQ(0u, s.outside);
    EXPECT_GT(s.voxels, 0u);
}

TEST(DoseDifferenceTest, ConstantOffsetAndRatio)
{
    DoseGrid const a = make_grid(Int3{{10, 4, 4}}, 1.0, 0, [](double x) { return 1 + 0.1 * x; });
    DoseGrid b = a;
    for (double& x : b.values)
        x += 0.05;
    ComparisonOptions options;
    options.threshold_fraction = 0;
    DoseDifferenceStats const s = dose_difference(a, b, options);
    EXPECT_EQ(a.values.size(), s.voxels);
    EXPECT_NEAR(0.05, s.mean_difference, 1e-12);
    EXPECT_NEAR(0.05, s.mean_abs_difference, 1e-12);
    EXPECT_NEAR(0.05, s.rms_difference, 1e-12);
    EXPECT_NEAR(0.05, s.max_abs_difference, 1e-12);
    EXPECT_DOUBLE_EQ(1.9, s.reference_max);
    double ratio = 0;
    for (int i = 0; i < 10; ++i)
        ratio += (1.05 + 0.1 * i) / (1 + 0.1 * i);
    EXPECT_NEAR(ratio / 10, s.mean_ratio, 1e-12);
}

TEST(DoseComparisonTest, GridsThatDoNotOverlapAreRefused)
{
    DoseGrid const a = make_grid(Int3{{10, 4, 4}}, 1.0, 0, [](double) { return 1.0; });
    DoseGrid const b = make_grid(Int3{{10, 4, 4}}, 1.0, 500, [](double) { return 1.0; });
    try
    {
        check_comparable(a, b);
        FAIL() << "grids 50 cm apart were accepted";
    }
    catch (RuntimeError const& e)
    {
        std::string const what = e.what();
        EXPECT_NE(what.find("do not overlap"), std::string::npos) << what;
        EXPECT_NE(what.find("x [49.95, 50.95]"), std::string::npos) << what;
        EXPECT_NE(what.find("same phantom or CT"), std::string::npos) << what;
    }
}

TEST(DoseComparisonTest, DifferentUnitsAreRefused)
{
    DoseGrid const a = make_grid(Int3{{4, 4, 4}}, 1.0, 0, [](double) { return 1.0; });
    DoseGrid b = a;
    b.units = "Gy per source particle";
    try
    {
        check_comparable(a, b);
        FAIL() << "Gy against Gy per source particle was accepted";
    }
    catch (RuntimeError const& e)
    {
        std::string const what = e.what();
        EXPECT_NE(what.find("different units"), std::string::npos) << what;
        EXPECT_NE(what.find("Gy per source particle"), std::string::npos) << what;
        EXPECT_NE(what.find("\"particles\""), std::string::npos) << what;
    }
    b.units.clear(); // an image: no unit recorded
    EXPECT_NO_THROW(check_comparable(a, b));
}

TEST(DoseComparisonTest, CriteriaAreParsed)
{
    GammaCriterion const c = parse_gamma_criterion("2.5 % / 2mm", true);
    EXPECT_DOUBLE_EQ(0.025, c.dose_fraction);
    EXPECT_DOUBLE_EQ(2.0, c.dta_mm);
    EXPECT_TRUE(c.local);
    EXPECT_EQ("2.5%/2mm local", c.label());
    for (char const* bad : {"3/3", "3%", "3%/3cm", "0%/3mm", "-1%/3mm", "3%/0mm"})
        EXPECT_THROW(parse_gamma_criterion(bad, false), RuntimeError) << bad;
}
} // namespace mcdose::test
