//! \file test/sources/Plan.test.cc
//! rt_plan sources: the MLC's ray geometry (rounded ends, transmission, tongue and groove),
//! and the fluence at the isocentre plane of plans written through io/DicomDataSet.hh
//! against the beam source (a jaw-only plan; a static MLC field given as an aperture image),
//! the same delivery with its control points reversed, a picket fence, the tongue-and-groove
//! underdose, arcs, and the refusals of plans that do not fit the machine or the CT.
#include <cmath>
#include <filesystem>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "../transport/interactors/TransportTestHelpers.hh"
#include "core/Assert.hh"
#include "io/TestRtPlan.hh"
#include "sources/BeamGeometry.hh"
#include "sources/PlanSource.hh"
#include "sources/SourceInput.hh"
#include "sources/SourceModel.hh"
#include "sources/SourceParams.hh"

namespace mcdose::test
{
namespace
{
//! A 10 cm cube whose local frame equals the phantom frame; the isocentre at its centre.
GridGeometry cube()
{
    return make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{0.5, 0.5, 0.5}});
}

MachineModel millennium120()
{
    return read_machine_model(std::string(MCDOSE_TEST_SOURCE_DIR) +
                              "/examples/machines/varian_millennium120.json");
}

//! A Millennium 120 whose leaves are thin and opaque: its field edges are the nominal leaf
//! positions, as an aperture image's are.
MachineModel ideal_mlc()
{
    MachineModel m = millennium120();
    m.mlc.leaf_height_cm = 0.01;
    m.mlc.end_radius_cm = 0.005;
    m.mlc.tongue_groove_cm = 0;
    m.mlc.leaf_transmission = 1e-9;
    m.mlc.interleaf_transmission = 1e-9;
    return m;
}

std::string temp_path(std::string const& tag)
{
    return (std::filesystem::temp_directory_path() /
            ("mcdose_plan_" + tag + "_" + std::to_string(::getpid()) + ".dcm"))
        .string();
}

//! An rt_plan source of `plan` (written and read back) on `machine`; isocentres at (50, 50,
//! 50) mm, the cube's centre.
SourceInput plan_source(TestPlan plan, MachineModel const& machine, std::vector<int> beams = {})
{
    for (auto& b : plan.beams)
        for (auto& cp : b.control_points)
            if (cp.isocentre_mm || &cp == &b.control_points[0])
                cp.isocentre_mm = std::vector<double>{50, 50, 50};
    std::string const path = temp_path("src");
    write_test_plan(plan, path);
    SourceInput in;
    in.pointer = "/sources/0";
    in.kind = SourceKind::rt_plan;
    in.energy_MeV = 6;
    PlanInput p;
    p.plan = read_rt_plan(path);
    std::filesystem::remove(path);
    p.machine = machine;
    p.beams = std::move(beams);
    in.plan = std::move(p);
    return in;
}

TestPlan one_beam(TestBeam const& b)
{
    TestPlan p;
    p.beams = {b};
    return p;
}

//! Weighted fluence at the isocentre plane of a gantry-0 beam (focal spot above, X_b = +x,
//! Y_b = +z of the phantom), in bins of dx x dy over [x0, x1] x [y0, y1].
struct Fluence
{
    double x0, x1, y0, y1, dx, dy;
    int nx() const { return int(std::lround((x1 - x0) / dx)); }
    int ny() const { return int(std::lround((y1 - y0) / dy)); }
    std::vector<double> sum, sum2;
    long histories{0};

    void score(SourceView<double> const& view, long n, unsigned seed)
    {
        sum.assign(std::size_t(nx() * ny()), 0);
        sum2 = sum;
        histories = n;
        TestEngine rng(seed);
        for (long h = 0; h < n; ++h)
        {
            auto const p = view(rng);
            double const t = (5 - p.position_cm[1]) / p.direction[1];
            double const x = p.position_cm[0] + t * p.direction[0] - 5;
            double const y = p.position_cm[2] + t * p.direction[2] - 5;
            int const i = int(std::floor((x - x0) / dx)), j = int(std::floor((y - y0) / dy));
            if (i < 0 || j < 0 || i >= nx() || j >= ny())
                continue;
            sum[std::size_t(i + nx() * j)] += p.weight;
            sum2[std::size_t(i + nx() * j)] += p.weight * p.weight;
        }
    }
    double mean(int i, int j) const { return sum[std::size_t(i + nx() * j)] / histories; }
    double sigma(int i, int j) const
    {
        return std::sqrt(sum2[std::size_t(i + nx() * j)]) / histories;
    }
};

//! Every bin of `a` and `b` agrees within 5 sigma, and chi^2 per bin stays below 1.5 (its
//! mean is 1, its standard deviation sqrt(2 / bins) < 0.1 here). A fluence below 1e-6 of the
//! largest (an ideal MLC's 1e-9 transmission) counts as none.
void expect_same_fluence(Fluence const& a, Fluence const& b, std::string const& what)
{
    double chi2 = 0;
    int bins = 0;
    double peak = 0;
    for (int j = 0; j < a.ny(); ++j)
        for (int i = 0; i < a.nx(); ++i)
            peak = std::max(peak, a.mean(i, j));
    for (int j = 0; j < a.ny(); ++j)
    {
        for (int i = 0; i < a.nx(); ++i)
        {
            if (std::max(a.mean(i, j), b.mean(i, j)) < 1e-6 * peak)
                continue;
            double const s = std::hypot(a.sigma(i, j), b.sigma(i, j));
            double const z = (a.mean(i, j) - b.mean(i, j)) / s;
            EXPECT_LT(std::fabs(z), 5) << what << ": bin (" << i << ", " << j << ") "
                                       << a.mean(i, j) << " against " << b.mean(i, j);
            chi2 += z * z;
            ++bins;
        }
    }
    ASSERT_GT(bins, 10) << what;
    EXPECT_LT(chi2 / bins, 1.5) << what << ": chi^2 / bins over " << bins << " bins";
}
} // namespace

TEST(MlcView, RoundedEndAndTransmission)
{
    MachineModel const m = millennium120();
    SourceInput const in = plan_source(one_beam(static_beam(-50, 50, -50, 50)), m);
    SourceParams<double> params(in, cube());
    MlcView<double> const& mlc = params.host_view().plan.mlc;
    double const h = m.mlc.leaf_height_cm;
    // A bank-2 leaf at 2 cm: rays well inside the opening cross nothing, rays well behind the
    // tip the full height, the ray through the nominal position grazes the arc.
    EXPECT_DOUBLE_EQ(mlc.leaf_height_crossed(0.0, 2.0), 0);
    EXPECT_NEAR(mlc.leaf_height_crossed(5.0 / 100, 2.0), h, 1e-12);
    EXPECT_LT(mlc.leaf_height_crossed(2.0 / 100, 2.0), 1e-4);
    double const partial = mlc.leaf_height_crossed(2.2 / 100, 2.0);
    EXPECT_GT(partial, 0.5);
    EXPECT_LT(partial, h - 0.5);
    // Through the middle of a closed leaf pair (bank 1 and 2 at 0): the leaf transmission;
    // on the boundary between two closed pairs: the interleaf transmission; there with one
    // pair open, its square root.
    std::vector<double> closed(120, 0.0), one_open(120, 0.0);
    one_open[30] = -5;
    one_open[90] = 5; // pair 31 spans [0, 0.5] cm
    EXPECT_NEAR(mlc.transmission(2, 0.25, closed.data(), closed.data(), 0),
                std::pow(m.mlc.leaf_transmission, std::sqrt(1 + 4.0 / 1e4 + 0.0625 / 1e4)), 1e-6);
    EXPECT_NEAR(mlc.transmission(2, 0, closed.data(), closed.data(), 0),
                std::pow(m.mlc.interleaf_transmission, std::sqrt(1 + 4.0 / 1e4)), 1e-6);
    EXPECT_NEAR(mlc.transmission(2, 0, closed.data(), one_open.data(), 1),
                std::pow(m.mlc.interleaf_transmission, std::sqrt(1 + 4.0 / 1e4) / 2), 1e-6);
    EXPECT_NEAR(mlc.transmission(2, 0.25, closed.data(), one_open.data(), 1), 1, 1e-12);
}

TEST(PlanSource, JawOnlyPlanEqualsBeamSource)
{
    // Gantry 0, collimator 0: no MLC in the plan, asymmetric jaws.
    TestBeam b = static_beam(-30, 50, -20, 40);
    b.devices.pop_back();
    for (auto& cp : b.control_points)
        cp.positions.resize(cp.positions.empty() ? 0 : 2);
    SourceParams<double> plan(plan_source(one_beam(b), millennium120()), cube());
    SourceInput beam;
    beam.pointer = "/sources/1";
    beam.kind = SourceKind::beam;
    beam.energy_MeV = 6;
    beam.beam = BeamInput{};
    beam.beam->isocentre_cm = {{5, 5, 5}};
    beam.beam->jaws = JawsInput{-3, 5, -2, 4};
    SourceParams<double> reference(beam, cube());
    Fluence a{-4, 6, -3, 5, 0.5, 0.5, {}, {}, 0}, r = a;
    a.score(plan.host_view(), 400000, 1);
    r.score(reference.host_view(), 400000, 2);
    expect_same_fluence(a, r, "jaw-only plan against the beam source");
    TestEngine rng(5);
    for (int i = 0; i < 100; ++i)
    {
        auto const p = plan.host_view()(rng);
        EXPECT_NEAR(p.position_cm[1], -95, 1e-12);
        EXPECT_NEAR(p.weight, 1, 1e-12); // one segment, fixed jaws, no leaves in the field
    }
}

TEST(PlanSource, StaticMlcFieldEqualsApertureImage)
{
    // Inner leaf pairs 21..40 span y in [-5, 5] cm in 0.5 cm steps; leaf tips on 0.25 cm.
    std::vector<double> leaves(60, -10), right(60, 10);
    auto tip1 = [](int i) { return -30.0 + 5 * (i % 4); }; // mm
    auto tip2 = [](int i) { return 10 + 7.5 * (i % 3); };  // mm
    for (int i = 20; i < 40; ++i)
    {
        leaves[std::size_t(i)] = tip1(i);
        right[std::size_t(i)] = tip2(i);
    }
    leaves.insert(leaves.end(), right.begin(), right.end());
    SourceParams<double> plan(
        plan_source(one_beam(static_beam(-40, 40, -30, 30, leaves)), ideal_mlc()), cube());
    SourceInput beam;
    beam.pointer = "/sources/1";
    beam.kind = SourceKind::beam;
    beam.energy_MeV = 6;
    beam.beam = BeamInput{};
    beam.beam->isocentre_cm = {{5, 5, 5}};
    ApertureInput ap;
    ap.nx = 32;
    ap.ny = 12;
    ap.dx_cm = 0.25;
    ap.dy_cm = 0.5;
    ap.x0_cm = -4 + 0.125;
    ap.y0_cm = -3 + 0.25;
    for (int j = 0; j < ap.ny; ++j)
    {
        int const pair = 20 + 4 + j; // y = -3 + 0.5 j lies in pair 25 + j (1-based)
        for (int i = 0; i < ap.nx; ++i)
        {
            double const x = ap.x0_cm + i * ap.dx_cm;
            ap.transmission.push_back(x > tip1(pair) / 10 && x < tip2(pair) / 10 ? 1 : 0);
        }
    }
    beam.beam->aperture = ap;
    SourceParams<double> reference(beam, cube());
    Fluence a{-4, 4, -3, 3, 0.25, 0.5, {}, {}, 0}, r = a;
    a.score(plan.host_view(), 400000, 1);
    r.score(reference.host_view(), 400000, 2);
    // The plan's histories cover the jaws, the image's its open pixels: per history, the
    // plan's fluence is the image's times (open solid angle) / (jaw solid angle).
    BeamField const open = beam_field(*beam.beam, beam.pointer);
    double omega = 0;
    for (double w : open.weights)
        omega += w;
    double const f = omega / rectangle_solid_angle(-4.0, 4.0, -3.0, 3.0, 100.0);
    for (std::size_t k = 0; k < r.sum.size(); ++k)
    {
        r.sum[k] *= f;
        r.sum2[k] *= f * f;
    }
    expect_same_fluence(a, r, "static MLC field against its aperture image");
}

TEST(PlanSource, ReversedControlPointsDeliverTheSame)
{
    // A sliding window: a 2 cm gap sweeps from x = -4 to x = 4 cm, with a gantry arc.
    std::vector<double> start(60, -40), end(60, 20);
    start.insert(start.end(), 60, -20);
    end.insert(end.end(), 60, 40);
    TestBeam b = static_beam(-50, 50, -30, 30, start);
    b.control_points[0].gantry_deg = 350;
    b.control_points[0].gantry_direction = "CW";
    b.control_points[1].gantry_deg = 10;
    b.control_points[1].positions = {{"MLCX", end}};
    TestBeam r = b;
    std::swap(r.control_points[0].positions[2].positions_mm,
              r.control_points[1].positions[0].positions_mm);
    r.control_points[0].gantry_deg = 10;
    r.control_points[0].gantry_direction = "CC";
    r.control_points[1].gantry_deg = 350;
    MachineModel const m = millennium120();
    SourceParams<double> forward(plan_source(one_beam(b), m), cube());
    SourceParams<double> reversed(plan_source(one_beam(r), m), cube());
    // Beside the isocentre plane's centre the arc tilts the rays: score the plane anyway.
    Fluence f{-5, 5, -3, 3, 0.5, 1, {}, {}, 0}, g = f;
    f.score(forward.host_view(), 400000, 1);
    g.score(reversed.host_view(), 400000, 2);
    expect_same_fluence(f, g, "sliding window forward and reversed");
    // The arc passes through gantry 0 the short way: every focal spot lies within 10 deg.
    TestEngine rng(9);
    for (int i = 0; i < 1000; ++i)
    {
        auto const p = reversed.host_view()(rng);
        EXPECT_LT(p.position_cm[1], 5 - 100 * std::cos(10.01 * M_PI / 180));
    }
}

TEST(PlanSource, PicketFenceShowsPicketsAtTheLeafGaps)
{
    // Five 2 mm gaps at x = -6, -3, 0, 3, 6 cm, step and shoot (no MU while the leaves move).
    TestBeam b = static_beam(-100, 100, -50, 50);
    b.control_points.clear();
    double const pickets[] = {-60, -30, 0, 30, 60};
    for (int k = 0; k < 5; ++k)
    {
        std::vector<double> leaves(60, pickets[k] - 1);
        leaves.insert(leaves.end(), 60, pickets[k] + 1);
        for (double w : {0.2 * k, 0.2 * (k + 1)})
        {
            TestControlPoint cp;
            cp.weight = w;
            cp.positions = {{"ASYMX", {-100, 100}}, {"ASYMY", {-50, 50}}, {"MLCX", leaves}};
            b.control_points.push_back(cp);
        }
    }
    MachineModel const m = millennium120();
    SourceParams<double> params(plan_source(one_beam(b), m), cube());
    Fluence f{-10, 10, -1, 1, 0.05, 2, {}, {}, 0};
    f.score(params.host_view(), 1000000, 4);
    for (double x : pickets)
    {
        int const at = int(std::floor((x / 10 + 10) / 0.05));
        double peak = 0;
        for (int i = at - 20; i <= at + 20; ++i)
            peak = std::max(peak, f.mean(i, 0));
        double sum = 0, moment = 0; // centroid of the bins above half the peak
        for (int i = at - 20; i <= at + 20; ++i)
        {
            if (f.mean(i, 0) > peak / 2)
            {
                sum += f.mean(i, 0);
                moment += f.mean(i, 0) * (f.x0 + (i + 0.5) * f.dx);
            }
        }
        EXPECT_NEAR(moment / sum, x / 10, 0.03) << "picket at " << x << " mm";
        EXPECT_GT(f.mean(at, 0), 0.8 * peak) << "picket at " << x << " mm";
        // Half way between pickets only leaf transmission: 5 segments x 1.5 % of the open
        // fluence per segment, against the picket's peak (about 1/5 of it open).
        int const between = at + 30;
        if (between < f.nx())
        {
            double const ratio = f.mean(between, 0) / peak;
            EXPECT_GT(ratio, m.mlc.leaf_transmission * 3) << "between pickets at " << x;
            EXPECT_LT(ratio, m.mlc.leaf_transmission * 8) << "between pickets at " << x;
        }
    }
}

TEST(PlanSource, TongueAndGrooveUnderdoseWhereLeavesStep)
{
    // Two segments of equal MU: pairs 30 (y in [-0.5, 0]) open then pair 31 (y in [0, 0.5])
    // open: each point is exposed once, except the boundary, shadowed by a tongue or a groove.
    TestBeam b = static_beam(-50, 50, -50, 50);
    b.control_points.clear();
    for (int k = 0; k < 2; ++k)
    {
        std::vector<double> leaves(120, 0.0);
        leaves[std::size_t(29 + k)] = -30;
        leaves[std::size_t(89 + k)] = 30;
        for (double w : {0.5 * k, 0.5 * (k + 1)})
        {
            TestControlPoint cp;
            cp.weight = w;
            cp.positions = {{"ASYMX", {-50, 50}}, {"ASYMY", {-50, 50}}, {"MLCX", leaves}};
            b.control_points.push_back(cp);
        }
    }
    SourceParams<double> params(plan_source(one_beam(b), millennium120()), cube());
    Fluence f{-2, 2, -0.5, 0.5, 4, 0.025, {}, {}, 0};
    f.score(params.host_view(), 1000000, 6);
    double const centre = (f.mean(0, 10) + f.mean(0, 30)) / 2; // y = -0.24, 0.26: one leaf
    double const edge = (f.mean(0, 19) + f.mean(0, 20)) / 2;   // y within 0.025 of 0
    EXPECT_LT(edge, 0.7 * centre) << "no tongue-and-groove underdose at the step";
    EXPECT_GT(edge, 0.05 * centre);
}

TEST(PlanSource, RefusesPlansThatDoNotFit)
{
    auto refused = [](SourceInput const& in, std::string const& ct_frame,
                      std::vector<std::string> const& parts)
    {
        try
        {
            build_plan_tables(*in.plan, cube(), in.pointer, ct_frame);
            ADD_FAILURE() << "not refused";
        }
        catch (RuntimeError const& e)
        {
            for (auto const& p : parts)
                EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
                    << "'" << p << "' not in: " << e.what();
        }
    };
    MachineModel const m = millennium120();
    TestPlan p = one_beam(static_beam(-50, 50, -50, 50));
    refused(plan_source(p, m), "1.2.3", {"Frame of Reference", "1.2.3"});
    refused(plan_source(p, m, {7}), "", {"/beams", "no beam 7", "1"});
    p.beams[0].machine = "Linac9";
    refused(plan_source(p, m), "", {"beam 1 ('B1')", "'Linac9'", "machine_names"});
    p = one_beam(static_beam(-50, 50, -50, 50));
    MachineModel hd = m;
    hd.mlc.widths_cm.assign(60, 0.5);
    refused(plan_source(p, hd), "", {"beam 1", "leaf pair 1", "10 mm", "5 mm"});
    std::vector<double> far(60, -210);
    far.insert(far.end(), 60, 50);
    refused(plan_source(one_beam(static_beam(-50, 50, -50, 50, far)), m), "",
            {"beam 1", "control point 0", "bank 1 pair 1", "-210 mm"});
    p = one_beam(static_beam(-50, 50, -50, 50));
    p.beams[0].control_points[1].couch_deg = 10;
    refused(plan_source(p, m), "", {"beam 1", "control point 1", "Patient Support Angle"});
}
// Monitor units to particles: a plan's emission extent is its jaw openings' solid angle,
// averaged over its monitor units, and its source model is a beam's.
TEST(PlanSource, EmissionExtentIsTheMeanJawSolidAngle)
{
    MachineModel const m = millennium120();
    SourceInput const fixed = plan_source(one_beam(static_beam(-50, 50, -50, 50)), m);
    double const omega10 = rectangle_solid_angle(-5.0, 5.0, -5.0, 5.0, 100.0);
    EmissionExtent const e = emission_extent(fixed);
    EXPECT_EQ(e.unit, "sr");
    EXPECT_NEAR(e.value, omega10, 1e-12 * omega10);
    EXPECT_DOUBLE_EQ(plan_monitor_units(*fixed.plan, fixed.pointer), 100);
    // The jaws open from 10 x 10 to 20 x 20 cm^2 over the beam's monitor units: the mean of
    // the solid angle along the way (a fine midpoint sum).
    TestBeam b = static_beam(-50, 50, -50, 50);
    b.control_points[1].positions = {{"ASYMX", {-100, 100}}, {"ASYMY", {-100, 100}}};
    SourceInput const opening = plan_source(one_beam(b), m);
    double mean = 0;
    int const n = 20000;
    for (int i = 0; i < n; ++i)
    {
        double const h = 5 + 5 * (i + 0.5) / n;
        mean += rectangle_solid_angle(-h, h, -h, h, 100.0) / n;
    }
    EXPECT_NEAR(emission_extent(opening).value, mean, 1e-6 * mean);
    SourceInput beam;
    beam.kind = SourceKind::beam;
    beam.energy_MeV = 6;
    EXPECT_EQ(source_model_key(beam), source_model_key(fixed));
}
} // namespace mcdose::test
