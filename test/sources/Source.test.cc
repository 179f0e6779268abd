//! Sources: spatial, angular and energy distributions against their
//! definitions (KS / chi-square, fixed seeds), frames and input errors.
#include <cmath>
#include <filesystem>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "../transport/interactors/TransportTestHelpers.hh"
#include "io/ImageIO.hh"
#include "phantoms/VoxelGrid.hh"
#include "sources/SourceInput.hh"
#include "sources/SourceParams.hh"

namespace mcdose::test
{
namespace
{
//! Identity-orientation grid whose local frame equals the physical frame
//! (origin = centre of voxel 0 = half a voxel from the corner at 0).
GridGeometry identity_grid()
{
    return make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{0.5, 0.5, 0.5}});
}

SourceInput photon_source(SourceKind kind, double energy = 1.25)
{
    SourceInput in;
    in.pointer = "/sources/0";
    in.kind = kind;
    in.energy_MeV = energy;
    in.position_cm = {{5, 5, -10}};
    in.direction = {{0, 0, 2}}; // normalised by the builder
    return in;
}

FieldInput rectangle(double w, double h, double d = 0)
{
    FieldInput f;
    f.shape = FieldShape::rectangle;
    f.width_cm = w;
    f.height_cm = h;
    f.distance_cm = d;
    return f;
}
FieldInput circle(double diameter, double d = 0)
{
    FieldInput f;
    f.shape = FieldShape::circle;
    f.diameter_cm = diameter;
    f.distance_cm = d;
    return f;
}

template <class Real>
using SourceTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(SourceTest, RealTypes);

int const n = 20000;

TYPED_TEST(SourceTest, PencilAndParticleType)
{
    using Real = TypeParam;
    auto in = photon_source(SourceKind::pencil, 6.0);
    in.particle = ParticleType::electron;
    SourceParams<Real> params(in, identity_grid());
    TestEngine rng(1);
    for (int i = 0; i < 10; ++i)
    {
        auto const p = params.host_view()(rng);
        EXPECT_EQ(ParticleType::electron, p.type);
        EXPECT_EQ(Real(6.0), p.energy_MeV);
        EXPECT_EQ(Real(1), p.weight);
        EXPECT_EQ(Real(5), p.position_cm[0]);
        EXPECT_EQ(Real(-10), p.position_cm[2]);
        EXPECT_EQ(Real(1), p.direction[2]);
    }
}

TYPED_TEST(SourceTest, ParallelRectangleIsUniform)
{
    using Real = TypeParam;
    auto in = photon_source(SourceKind::parallel);
    in.field = rectangle(4, 2);
    SourceParams<Real> params(in, identity_grid());
    TestEngine rng(2);
    std::vector<double> x(n), y(n);
    for (int i = 0; i < n; ++i)
    {
        auto const p = params.host_view()(rng);
        EXPECT_EQ(Real(-10), p.position_cm[2]); // in the plane through the centre
        EXPECT_EQ(Real(1), p.direction[2]);
        x[i] = p.position_cm[0];
        y[i] = p.position_cm[1];
    }
    // Beam along +z: u = +x (width 4), v = +y (height 2).
    EXPECT_LT(ks_statistic(x, [](double v) { return std::clamp((v - 3) / 4, 0.0, 1.0); }),
              ks_limit);
    EXPECT_LT(ks_statistic(y, [](double v) { return std::clamp((v - 4) / 2, 0.0, 1.0); }),
              ks_limit);
}

TYPED_TEST(SourceTest, ParallelCircleIsUniform)
{
    using Real = TypeParam;
    auto in = photon_source(SourceKind::parallel);
    in.field = circle(3);
    SourceParams<Real> params(in, identity_grid());
    TestEngine rng(3);
    std::vector<double> r2(n), phi(n);
    for (int i = 0; i < n; ++i)
    {
        auto const p = params.host_view()(rng);
        double const dx = p.position_cm[0] - 5, dy = p.position_cm[1] - 5;
        r2[i] = dx * dx + dy * dy;
        phi[i] = std::atan2(dy, dx);
    }
    // Uniform over the disc: r^2 uniform on [0, R^2], azimuth uniform.
    EXPECT_LT(ks_statistic(r2, [](double v) { return std::clamp(v / 2.25, 0.0, 1.0); }), ks_limit);
    EXPECT_LT(ks_statistic(phi, [](double v) { return (v + M_PI) / (2 * M_PI); }), ks_limit);
}

TYPED_TEST(SourceTest, PointCircleIsIsotropicInTheCone)
{
    using Real = TypeParam;
    auto in = photon_source(SourceKind::point);
    in.field = circle(10, 100); // 10 cm diameter at 100 cm
    SourceParams<Real> params(in, identity_grid());
    double const cos_alpha = 100 / std::sqrt(100.0 * 100 + 25);
    TestEngine rng(4);
    std::vector<double> mu(n);
    for (int i = 0; i < n; ++i)
    {
        auto const p = params.host_view()(rng);
        EXPECT_EQ(Real(5), p.position_cm[0]);
        mu[i] = p.direction[2];
        EXPECT_GE(mu[i], cos_alpha - 1e-6);
    }
    EXPECT_LT(ks_statistic(mu, [&](double m)
                           { return std::clamp((m - cos_alpha) / (1 - cos_alpha), 0.0, 1.0); }),
              ks_limit);
}

TYPED_TEST(SourceTest, PointRectangleFluenceInTheFieldPlane)
{
    using Real = TypeParam;
    // A 60 x 30 cm field at 50 cm: wide enough that the inverse-square and
    // obliquity fall-off cos^3 (0.4 at the corners) is resolved.
    double const d = 50, a = 30, b = 15;
    auto in = photon_source(SourceKind::point);
    in.field = rectangle(2 * a, 2 * b, d);
    SourceParams<Real> params(in, identity_grid());
    TestEngine rng(5);
    std::vector<double> x(n), y(n);
    for (int i = 0; i < n; ++i)
    {
        auto const p = params.host_view()(rng);
        double const t = d / p.direction[2];
        x[i] = t * p.direction[0];
        y[i] = t * p.direction[1];
        EXPECT_LE(std::fabs(x[i]), a * (1 + 1e-5));
        EXPECT_LE(std::fabs(y[i]), b * (1 + 1e-5));
    }
    // Isotropic emission: fluence in the plane ~ cos^3(theta)/d^2 ~
    // (d^2 + x^2 + y^2)^(-3/2); its marginal in x integrates analytically
    // over y in [-b, b] to ~ 1 / ((d^2 + x^2) sqrt(d^2 + x^2 + b^2)).
    auto marginal = [d](double half_other)
    {
        return [d, half_other](double s)
        { return 1 / ((d * d + s * s) * std::sqrt(d * d + s * s + half_other * half_other)); };
    };
    TabulatedCdf cdf_x(marginal(b), -a, a);
    TabulatedCdf cdf_y(marginal(a), -b, b);
    EXPECT_LT(equiprobable_chi_square(x, std::cref(cdf_x)), chi_square_limit(19));
    EXPECT_LT(equiprobable_chi_square(y, std::cref(cdf_y)), chi_square_limit(19));
    // The fall-off is resolved: a uniform field fails.
    EXPECT_GT(equiprobable_chi_square(x, [a](double s) { return (s + a) / (2 * a); }),
              chi_square_limit(19));
}

TYPED_TEST(SourceTest, IsotropicPoint)
{
    using Real = TypeParam;
    SourceParams<Real> params(photon_source(SourceKind::isotropic), identity_grid());
    TestEngine rng(6);
    std::vector<double> w(n), phi(n);
    for (int i = 0; i < n; ++i)
    {
        auto const p = params.host_view()(rng);
        EXPECT_NEAR(1.0, double(dot(p.direction, p.direction)),
                    8 * std::numeric_limits<Real>::epsilon());
        w[i] = p.direction[2];
        phi[i] = std::atan2(double(p.direction[1]), double(p.direction[0]));
    }
    EXPECT_LT(ks_statistic(w, [](double v) { return (v + 1) / 2; }), ks_limit);
    EXPECT_LT(ks_statistic(phi, [](double v) { return (v + M_PI) / (2 * M_PI); }), ks_limit);
}

TYPED_TEST(SourceTest, HistogramSpectrum)
{
    using Real = TypeParam;
    auto in = photon_source(SourceKind::pencil);
    in.energy_MeV.reset();
    in.spectrum = SpectrumInput::histogram({0.1, 0.5, 1.0, 2.0, 6.0, 10.0}, {1, 3, 2, 0, 0.5});
    SourceParams<Real> params(in, identity_grid());
    TestEngine rng(7);
    auto const& edges = in.spectrum->edges_MeV;
    std::vector<double> counts(5, 0.0), within;
    for (int i = 0; i < n; ++i)
    {
        double const e = params.host_view()(rng).energy_MeV;
        ASSERT_GE(e, 0.1 * (1 - 1e-6));
        ASSERT_LE(e, 10.0 * (1 + 1e-6));
        int bin = 0;
        while (bin < 4 && e >= edges[bin + 1])
            ++bin;
        counts[bin] += 1;
        within.push_back((e - edges[bin]) / (edges[bin + 1] - edges[bin]));
    }
    // Bin frequencies follow the weights (the empty bin stays empty: 3 dof).
    EXPECT_LT(chi_square(counts, {1 / 6.5, 3 / 6.5, 2 / 6.5, 0, 0.5 / 6.5}), chi_square_limit(3));
    // Uniform within each bin.
    EXPECT_LT(ks_statistic(within, [](double u) { return std::clamp(u, 0.0, 1.0); }), ks_limit);
}

TYPED_TEST(SourceTest, LineSpectrum)
{
    using Real = TypeParam;
    auto in = photon_source(SourceKind::pencil);
    in.energy_MeV.reset();
    in.spectrum = SpectrumInput::lines({1.1732, 1.3325, 0.6617}, {0.9985, 0.9998, 0});
    SourceParams<Real> params(in, identity_grid());
    TestEngine rng(11);
    std::vector<double> counts(3, 0.0);
    for (int i = 0; i < n; ++i)
    {
        double const e = params.host_view()(rng).energy_MeV;
        int const k = e == Real(1.1732) ? 0 : e == Real(1.3325) ? 1 : e == Real(0.6617) ? 2 : -1;
        ASSERT_GE(k, 0) << "not a line energy: " << e;
        counts[k] += 1;
    }
    double const total = 0.9985 + 0.9998;
    EXPECT_EQ(counts[2], 0);
    EXPECT_LT(chi_square(counts, {0.9985 / total, 0.9998 / total, 0}), chi_square_limit(1));
}

//! A phantom of 4 x 3 x 2 voxels: materials 0 and 1 in alternating k-planes, densities
//! rising with the voxel index.
Phantom small_phantom()
{
    GridGeometry const g = make_axis_aligned_geometry({{4, 3, 2}}, {{1, 2, 3}}, {{0.5, 1, 1.5}});
    std::vector<MaterialIndex> mat(g.num_voxels());
    std::vector<float> rho(g.num_voxels());
    for (size_type v = 0; v < g.num_voxels(); ++v)
    {
        mat[v] = static_cast<MaterialIndex>(g.ijk(v)[2] % 2);
        rho[v] = 0.1f * float(v + 1);
    }
    return Phantom{{"water", "lung_icrp"}, VoxelGridParams(g, mat, rho, 2)};
}

SourceInput volume_source(EmissionDensity emission)
{
    SourceInput in = photon_source(SourceKind::volume);
    in.particle = ParticleType::electron;
    in.volume = VolumeInput{};
    in.volume->emission = emission;
    return in;
}

// Emission points: voxel frequencies follow mass (per_mass) or volume, restricted to a
// material or a region; points uniform within their voxel; directions isotropic.
TYPED_TEST(SourceTest, VolumeEmissionFollowsMassVolumeMaterialRegion)
{
    using Real = TypeParam;
    Phantom const phantom = small_phantom();
    GridGeometry const& g = phantom.grid.geometry();
    auto check = [&](SourceInput const& in, std::vector<double> const& expected_weight)
    {
        SourceParams<Real> params(in, g, &phantom);
        double total = 0;
        for (double w : expected_weight)
            total += w;
        std::vector<double> prob, counts(g.num_voxels(), 0.0), u;
        for (double w : expected_weight)
            prob.push_back(w / total);
        TestEngine rng(3);
        double mean_w = 0;
        for (int i = 0; i < n; ++i)
        {
            auto const p = params.host_view()(rng);
            Int3 ijk;
            ASSERT_TRUE(
                g.find_local({{p.position_cm[0], p.position_cm[1], p.position_cm[2]}}, &ijk));
            counts[g.linear_index(ijk)] += 1;
            u.push_back(p.position_cm[0] / g.spacing_cm[0] - ijk[0]);
            mean_w += p.direction[2] / n;
            ASSERT_NEAR(dot(p.direction, p.direction), 1, 1e-5);
        }
        int dof = -1;
        for (double q : prob)
            dof += q > 0;
        EXPECT_LT(chi_square(counts, prob), chi_square_limit(dof));
        EXPECT_LT(ks_statistic(u, [](double x) { return std::clamp(x, 0.0, 1.0); }), ks_limit);
        EXPECT_LT(std::fabs(mean_w), 4 / std::sqrt(3.0 * n)); // isotropic: <w> = 0, var 1/3
    };
    auto const& rho = phantom.grid.density_g_cm3();
    std::vector<double> mass(rho.begin(), rho.end()), volume(rho.size(), 1.0);
    check(volume_source(EmissionDensity::per_mass), mass);
    check(volume_source(EmissionDensity::per_volume), volume);
    auto in = volume_source(EmissionDensity::per_mass);
    in.volume->material = "lung_icrp";
    std::vector<double> lung = mass;
    for (size_type v = 0; v < lung.size(); ++v)
        lung[v] *= g.ijk(v)[2] == 1;
    check(in, lung);
    in = volume_source(EmissionDensity::per_volume);
    ShapeInput box;
    box.kind = ShapeKind::box;
    box.lower_cm = {{0, 0, 0}};
    box.upper_cm = {{2, 10, 10}}; // voxel centres at x = 0.5, 1.5 are inside
    in.volume->region = box;
    std::vector<double> region = volume;
    for (size_type v = 0; v < region.size(); ++v)
        region[v] *= g.ijk(v)[0] < 2;
    check(in, region);
}

// An activity image on its own (coarser) grid: each phantom voxel takes the value of the
// image voxel holding its centre.
TEST(SourceVolumeTest, ActivityImageIsReadAtVoxelCentres)
{
    Phantom const phantom = small_phantom();
    GridGeometry const& g = phantom.grid.geometry();
    GridGeometry const image = make_axis_aligned_geometry({{2, 1, 1}}, {{2, 6, 6}}, {{1, 3, 3}});
    std::vector<float> const activity{1.0f, 3.0f};
    auto const path = std::filesystem::temp_directory_path() /
                      ("mcdose_activity_" + std::to_string(::getpid()) + ".mha");
    write_image(path.string(), image, make_span(activity));
    auto in = volume_source(EmissionDensity::activity);
    in.volume->activity_image = path.string();
    auto const w = volume_emission_weights(*in.volume, phantom, in.pointer);
    for (size_type v = 0; v < g.num_voxels(); ++v)
        EXPECT_EQ(w[v], g.ijk(v)[0] < 2 ? 1.0 : 3.0) << v;
    SourceParams<double> params(in, g, &phantom);
    TestEngine rng(5);
    std::vector<double> counts(2, 0.0);
    for (int i = 0; i < n; ++i)
        counts[params.host_view()(rng).position_cm[0] < 2 ? 0 : 1] += 1;
    EXPECT_LT(chi_square(counts, {0.25, 0.75}), chi_square_limit(1));
    std::filesystem::remove(path);
}

TEST(SourceInputTest, VolumeErrorsNameTheField)
{
    Phantom const phantom = small_phantom();
    GridGeometry const& g = phantom.grid.geometry();
    auto expect_error = [&](SourceInput const& in, char const* text)
    {
        try
        {
            SourceParams<double> p(in, g, &phantom);
            ADD_FAILURE() << "accepted a volume source that should fail with '" << text << "'";
        }
        catch (RuntimeError const& e)
        {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
        }
    };
    auto in = volume_source(EmissionDensity::per_mass);
    in.volume->material = "bone";
    expect_error(in, "/sources/0/material: the phantom has no material 'bone'; its materials are "
                     "water, lung_icrp");
    in = volume_source(EmissionDensity::per_mass);
    ShapeInput far;
    far.kind = ShapeKind::sphere;
    far.centre_cm = {{100, 100, 100}};
    far.radius_cm = 1;
    in.volume->region = far;
    expect_error(in, "emits from no voxel");
    in = volume_source(EmissionDensity::activity);
    in.volume->activity_image = "/nonexistent/activity.mha";
    expect_error(in, "/sources/0/activity_image");
    in = volume_source(EmissionDensity::per_mass);
    try
    {
        SourceParams<double> p(in, g); // no phantom
        ADD_FAILURE() << "a volume source without the phantom";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("needs the phantom"), std::string::npos) << e.what();
    }
}

TEST(SourceFrameTest, RotatedGridLocalFrame)
{
    // Grid rotated 90 degrees about z: index axis 0 points along physical +y,
    // index axis 1 along physical -x.
    GridGeometry g = make_axis_aligned_geometry({{4, 4, 4}}, {{1, 1, 1}}, {{0, 0, 0}});
    double const rot[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
    std::copy(rot, rot + 9, g.direction);
    auto in = photon_source(SourceKind::pencil);
    in.position_cm = {{0, 0, 0}}; // centre of voxel (0,0,0): local (0.5, 0.5, 0.5)
    in.direction = {{0, 1, 0}};   // physical +y = local +x
    SourceParams<double> params(in, g);
    auto const& v = params.host_view();
    EXPECT_NEAR(0.5, v.position_cm[0], 1e-12);
    EXPECT_NEAR(0.5, v.position_cm[1], 1e-12);
    EXPECT_NEAR(1.0, v.direction[0], 1e-12);
    EXPECT_NEAR(0.0, v.direction[1], 1e-12);
    // Field axes stay orthonormal and perpendicular to the beam.
    EXPECT_NEAR(0.0, dot(v.axis_u, v.direction), 1e-12);
    EXPECT_NEAR(0.0, dot(v.axis_v, v.direction), 1e-12);
    EXPECT_NEAR(0.0, dot(v.axis_u, v.axis_v), 1e-12);
}

TEST(SourceInputTest, ErrorsNameTheField)
{
    auto const grid = identity_grid();
    auto expect_error = [&](SourceInput const& in, char const* field)
    {
        try
        {
            SourceParams<double> p(in, grid);
            ADD_FAILURE() << "accepted a source with a bad '" << field << "'";
        }
        catch (RuntimeError const& e)
        {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    };
    auto in = photon_source(SourceKind::pencil, -1);
    expect_error(in, "energy_MeV");
    in = photon_source(SourceKind::pencil);
    in.direction = {{0, 0, 0}};
    expect_error(in, "direction");
    in = photon_source(SourceKind::parallel);
    expect_error(in, "field");
    in.field = circle(-2);
    expect_error(in, "diameter_cm");
    in = photon_source(SourceKind::point);
    in.field = rectangle(10, 10, 0);
    expect_error(in, "distance_cm");
    in = photon_source(SourceKind::pencil);
    in.energy_MeV.reset();
    in.spectrum = SpectrumInput::histogram({1.0, 0.5}, {1});
    expect_error(in, "edges_MeV");
    in.spectrum = SpectrumInput::histogram({0.5, 1.0}, {-1});
    expect_error(in, "weights");
}

TEST(AliasTableTest, ReproducesWeightsExactly)
{
    std::vector<double> const w{0.1, 5, 0, 2.5, 1, 1.4};
    auto const t = make_alias_table(w);
    // Probability of bin j = (keep[j] + sum over columns aliased to j of (1 - keep)) / n.
    std::vector<double> p(w.size(), 0.0);
    for (std::size_t i = 0; i < w.size(); ++i)
    {
        p[i] += t.keep[i];
        p[t.alias[i]] += 1 - t.keep[i];
    }
    for (std::size_t j = 0; j < w.size(); ++j)
        EXPECT_NEAR(w[j] / 10.0, p[j] / w.size(), 1e-15) << j;
}
} // namespace
} // namespace mcdose::test
