//! Host and device run the same traversal, source and Compton functors on the
//! same Philox streams and must agree (skipped without a GPU).
#include "TransportDevice.test.hh"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "TransportTestHelpers.hh"
#include "sources/SourceParams.hh"
#include "study/StudyInput.hh"

namespace mcdose::test
{
namespace
{
template <class Real>
using TransportDeviceTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(TransportDeviceTest, RealTypes);

// Host and device use different libm implementations and nvcc contracts
// a*b+c into FMAs, so results agree to a few ulps, not bit for bit; a
// rejection loop can then rarely take the other branch. Items must agree to
// `rel_tol` (relative to the energy or length scale), and at least 99.9% of
// them must.
template <class Real>
constexpr double rel_tol = sizeof(Real) == 4 ? 1e-4 : 1e-10;
constexpr double min_agreeing = 0.999;

TYPED_TEST(TransportDeviceTest, Traversal)
{
    MCDOSE_SKIP_IF_NO_GPU();
    using Real = TypeParam;
    auto const grid =
        make_voxel_geometry<Real>({{100, 100, 100}}, {{0.4, 0.4, 0.4}}, {{-20, -20, -20}});
    TestEngine rng(99);
    std::vector<Ray<Real>> rays(20000);
    for (auto& ray : rays)
    {
        auto const d = sample_isotropic<Real>(rng);
        ray.direction = {{d.u, d.v, d.w}};
        for (int a = 0; a < 3; ++a)
            ray.position_cm[a] = Real(-30 + 60 * generate_canonical<double>(rng));
    }
    auto const device = device_traverse(grid, rays);
    ASSERT_EQ(rays.size(), device.size());
    std::size_t agree = 0;
    for (std::size_t i = 0; i < rays.size(); ++i)
    {
        auto const host = traverse_ray(grid, rays[i]);
        agree += host.steps == device[i].steps &&
                 std::fabs(double(host.path_cm) - double(device[i].path_cm)) <=
                     rel_tol<Real> * 70; // 70 cm: the grid's diagonal
    }
    EXPECT_GE(agree, min_agreeing * rays.size());
}

TYPED_TEST(TransportDeviceTest, PointSourceWithSpectrum)
{
    MCDOSE_SKIP_IF_NO_GPU();
    using Real = TypeParam;
    SourceInput in;
    in.pointer = "/sources/0";
    in.kind = SourceKind::point;
    in.spectrum = SpectrumInput::histogram({0.2, 1.0, 2.0, 6.0}, {1, 2, 0.5});
    in.position_cm = {{0, 0, -100}};
    FieldInput field;
    field.width_cm = 10;
    field.height_cm = 20;
    field.distance_cm = 100;
    in.field = field;
    SourceParams<Real> params(in,
                              make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{0, 0, 0}}));
    PhiloxRngParams const rng_params{20261121, 3, 0};
    size_type const n = 50000;
    auto const device = device_sample_source(params.device_view(), rng_params, n);
    ASSERT_EQ(n, device.size());
    std::vector<PhiloxState> states(1);
    auto const view = make_view(rng_params, make_span(states));
    std::size_t agree = 0;
    for (size_type i = 0; i < n; ++i)
    {
        auto const host = sample_source(params.host_view(), view, 0, i);
        bool same =
            std::fabs(double(host.energy_MeV) - double(device[i].energy_MeV)) <= rel_tol<Real> * 6;
        for (int a = 0; a < 3; ++a)
            same = same && std::fabs(double(host.direction[a]) - double(device[i].direction[a])) <=
                               rel_tol<Real>;
        agree += same;
    }
    EXPECT_GE(agree, min_agreeing * n);
}

// A beam (gantry 90, collimator 30, couch 10) through an aperture clipped by the jaws, with
// a line + continuum spectrum: the device draws what the host draws.
TYPED_TEST(TransportDeviceTest, BeamWithApertureAndMixedSpectrum)
{
    MCDOSE_SKIP_IF_NO_GPU();
    using Real = TypeParam;
    SourceInput in;
    in.pointer = "/sources/0";
    in.kind = SourceKind::beam;
    in.spectrum = SpectrumInput::histogram({0.0, 1.0, 6.0}, {2, 1});
    in.spectrum->lines_MeV = {0.511, 1.25};
    in.spectrum->line_weights = {1, 0.5};
    BeamInput b;
    b.isocentre_cm = {{5, 5, 5}};
    b.gantry_deg = 90;
    b.collimator_deg = 30;
    b.couch_deg = 10;
    b.jaws = JawsInput{-4, 3, -2, 5};
    ApertureInput a;
    a.nx = 4;
    a.ny = 4;
    a.x0_cm = -3;
    a.y0_cm = -3;
    a.dx_cm = a.dy_cm = 2;
    a.transmission = {1, 0, 1, 0.5, 1, 1, 0, 1, 0.25, 1, 1, 1, 0, 1, 1, 0};
    b.aperture = a;
    in.beam = b;
    SourceParams<Real> params(in,
                              make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{0, 0, 0}}));
    PhiloxRngParams const rng_params{20261125, 5, 0};
    size_type const n = 50000;
    auto const device = device_sample_source(params.device_view(), rng_params, n);
    ASSERT_EQ(n, device.size());
    std::vector<PhiloxState> states(1);
    auto const view = make_view(rng_params, make_span(states));
    std::size_t agree = 0;
    for (size_type i = 0; i < n; ++i)
    {
        auto const host = sample_source(params.host_view(), view, 0, i);
        bool same =
            std::fabs(double(host.energy_MeV) - double(device[i].energy_MeV)) <= rel_tol<Real> * 6;
        for (int a = 0; a < 3; ++a)
        {
            same = same &&
                   std::fabs(double(host.direction[a]) - double(device[i].direction[a])) <=
                       rel_tol<Real> &&
                   std::fabs(double(host.position_cm[a]) - double(device[i].position_cm[a])) <=
                       rel_tol<Real> * 110;
        }
        agree += same;
    }
    EXPECT_GE(agree, min_agreeing * n);
}

TYPED_TEST(TransportDeviceTest, Compton)
{
    MCDOSE_SKIP_IF_NO_GPU();
    using Real = TypeParam;
    PhiloxRngParams const rng_params{7, 1, 0};
    size_type const n = 50000;
    Real const energy = Real(1.25);
    auto const device = device_compton(energy, rng_params, n);
    ASSERT_EQ(n, device.size());
    std::vector<PhiloxState> states(1);
    auto const view = make_view(rng_params, make_span(states));
    std::size_t agree = 0;
    for (size_type i = 0; i < n; ++i)
    {
        auto const host = sample_compton(energy, view, 0, i);
        EXPECT_EQ(energy, energy_out(device[i])); // exact on the device too
        bool same = std::fabs(double(host.energy_MeV) - double(device[i].energy_MeV)) <=
                    rel_tol<Real> * energy;
        for (int a = 0; a < 3; ++a)
        {
            same = same &&
                   std::fabs(double(host.direction[a]) - double(device[i].direction[a])) <=
                       rel_tol<Real> &&
                   std::fabs(double(host.secondaries[0].direction[a]) -
                             double(device[i].secondaries[0].direction[a])) <= 10 * rel_tol<Real>;
        }
        agree += same;
    }
    EXPECT_GE(agree, min_agreeing * n);
}
} // namespace
} // namespace mcdose::test
