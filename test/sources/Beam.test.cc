//! Beam sources: IEC 61217 geometry against hand-computed focal spots, axes and ray
//! crossings (gantry 0/90/180/270, collimator, couch, combined, asymmetric jaws), the field's
//! distribution over aperture pixels and within a cell (chi-square), the refusal of a field
//! that misses the phantom, monitor units, and the study reader's beam fields.
#include <cmath>
#include <filesystem>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../transport/interactors/TransportTestHelpers.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "sources/BeamGeometry.hh"
#include "sources/SourceInput.hh"
#include "sources/SourceJson.hh"
#include "sources/SourceModel.hh"
#include "sources/SourceParams.hh"

namespace mcdose::test
{
namespace
{
//! A 10 cm cube whose local frame equals the phantom frame (corner at 0).
GridGeometry cube()
{
    return make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{0.5, 0.5, 0.5}});
}

SourceInput beam_source(double gantry, double collimator, double couch, JawsInput jaws)
{
    SourceInput in;
    in.pointer = "/sources/0";
    in.kind = SourceKind::beam;
    in.energy_MeV = 6;
    BeamInput b;
    b.isocentre_cm = {{5, 5, 5}};
    b.gantry_deg = gantry;
    b.collimator_deg = collimator;
    b.couch_deg = couch;
    b.jaws = jaws;
    in.beam = b;
    return in;
}

//! Where a particle's ray crosses the plane through the isocentre perpendicular to the
//! central axis (phantom = local frame here).
Real3 crossing(Particle<double> const& p, Real3 const& iso, Real3 const& axis)
{
    Real3 const to_iso{
        {iso[0] - p.position_cm[0], iso[1] - p.position_cm[1], iso[2] - p.position_cm[2]}};
    double const t = dot(to_iso, axis) / dot(p.direction, axis);
    return axpy(t, p.direction, p.position_cm);
}

struct GeometryCase
{
    double gantry, collimator, couch;
    Real3 source; //!< focal spot
    Real3 axis;   //!< central axis
    Real3 lo, hi; //!< the field's crossings at the isocentre plane span [lo, hi]
};

void expect_near3(Real3 const& a, Real3 const& b, double tol, std::string const& what)
{
    for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(a[c], b[c], tol) << what << " component " << c;
}
} // namespace

// Jaws x1 = -1, x2 = 3, y1 = -2, y2 = 0.5 about the isocentre (5, 5, 5), SAD 100, in DICOM
// patient coordinates of a head-first-supine patient (x left, y posterior, z superior).
// Hand-computed: gantry 0 looks down (beam along +y) with X_b = +x, Y_b = +z; gantry 90
// comes from the patient's left (+x) with X_b = +y; gantry 180 from below with X_b = -x;
// gantry 270 from the right with X_b = -y; collimator 90 turns X_b to +z and Y_b to -x;
// couch 90 turns X_b to -z and Y_b to +x; gantry 90 with couch 90 comes from the feet.
TEST(BeamGeometry, HandComputedRays)
{
    JawsInput const jaws{-1, 3, -2, 0.5};
    std::vector<GeometryCase> const cases = {
        {0, 0, 0, {{5, -95, 5}}, {{0, 1, 0}}, {{4, 5, 3}}, {{8, 5, 5.5}}},
        {90, 0, 0, {{105, 5, 5}}, {{-1, 0, 0}}, {{5, 4, 3}}, {{5, 8, 5.5}}},
        {180, 0, 0, {{5, 105, 5}}, {{0, -1, 0}}, {{2, 5, 3}}, {{6, 5, 5.5}}},
        {270, 0, 0, {{-95, 5, 5}}, {{1, 0, 0}}, {{5, 2, 3}}, {{5, 6, 5.5}}},
        {-90, 0, 0, {{-95, 5, 5}}, {{1, 0, 0}}, {{5, 2, 3}}, {{5, 6, 5.5}}},
        {0, 90, 0, {{5, -95, 5}}, {{0, 1, 0}}, {{4.5, 5, 4}}, {{7, 5, 8}}},
        {0, 0, 90, {{5, -95, 5}}, {{0, 1, 0}}, {{3, 5, 2}}, {{5.5, 5, 6}}},
        {90, 0, 90, {{5, 5, -95}}, {{0, 0, 1}}, {{3, 4, 5}}, {{5.5, 8, 5}}},
        {90, 90, 90, {{5, 5, -95}}, {{0, 0, 1}}, {{4, 4.5, 5}}, {{8, 7, 5}}},
    };
    for (auto const& c : cases)
    {
        std::string const what = "gantry " + std::to_string(c.gantry) + ", collimator " +
                                 std::to_string(c.collimator) + ", couch " +
                                 std::to_string(c.couch);
        SourceInput const in = beam_source(c.gantry, c.collimator, c.couch, jaws);
        BeamAxes const axes = beam_axes(*in.beam);
        expect_near3(axes.source_cm, c.source, 1e-12, what + ": focal spot");
        expect_near3(axes.central_axis, c.axis, 1e-15, what + ": central axis");

        SourceParams<double> params(in, cube());
        TestEngine rng(3);
        Real3 lo{{1e9, 1e9, 1e9}}, hi{{-1e9, -1e9, -1e9}};
        for (int i = 0; i < 20000; ++i)
        {
            auto const p = params.host_view()(rng);
            expect_near3(p.position_cm, c.source, 1e-12, what + ": start");
            ASSERT_NEAR(dot(p.direction, p.direction), 1, 1e-12);
            Real3 const x = crossing(p, in.beam->isocentre_cm, c.axis);
            for (int k = 0; k < 3; ++k)
            {
                lo[k] = std::min(lo[k], x[k]);
                hi[k] = std::max(hi[k], x[k]);
            }
        }
        // Every crossing inside the field, and the field covered to its edges.
        for (int k = 0; k < 3; ++k)
        {
            EXPECT_GE(lo[k], c.lo[k] - 1e-9) << what << " axis " << k;
            EXPECT_LE(hi[k], c.hi[k] + 1e-9) << what << " axis " << k;
            EXPECT_LT(lo[k], c.lo[k] + 0.01) << what << " axis " << k;
            EXPECT_GT(hi[k], c.hi[k] - 0.01) << what << " axis " << k;
        }
    }
}

TEST(BeamGeometry, RectangleSolidAngle)
{
    // A small square: area / d^2; a whole quadrant of an infinite plane: pi / 2... its
    // quarter, the octant's 4 pi / 8 = pi / 2 at x, y in [0, inf): here a large square.
    EXPECT_NEAR(rectangle_solid_angle(-0.05, 0.05, -0.05, 0.05, 100), 1e-6, 1e-12);
    EXPECT_NEAR(rectangle_solid_angle(0, 1e9, 0, 1e9, 1), M_PI / 2, 1e-6);
    // An off-axis 1 x 1 cm square at (10, 0): cos(theta) dA / r^2 = d / r^3.
    double const r = std::sqrt(100.0 * 100 + 10 * 10);
    EXPECT_NEAR(rectangle_solid_angle(9.995, 10.005, -0.005, 0.005, 100), 1e-4 * 100 / (r * r * r),
                1e-12);
}

// The crossings of a large field at a short SAD follow SAD / r^3 (rejection within the
// cell), and an aperture's pixels their transmission x solid angle (alias table).
TEST(BeamGeometry, FieldDistributionChiSquare)
{
    double const sad = 20;
    auto expected = [sad](double x0, double x1, double y0, double y1)
    {
        // Midpoint rule on a 100 x 100 sub-grid: independent of the closed form.
        double sum = 0;
        int const m = 100;
        for (int i = 0; i < m; ++i)
        {
            for (int j = 0; j < m; ++j)
            {
                double const x = x0 + (i + 0.5) * (x1 - x0) / m;
                double const y = y0 + (j + 0.5) * (y1 - y0) / m;
                double const r = std::sqrt(sad * sad + x * x + y * y);
                sum += sad / (r * r * r);
            }
        }
        return sum * (x1 - x0) * (y1 - y0) / (m * m);
    };
    SourceInput in = beam_source(0, 0, 0, JawsInput{-20, 20, -10, 30});
    in.beam->sad_cm = sad;
    in.beam->isocentre_cm = {{5, 5, 5}};
    // Jaws alone: 8 x 8 cells of 5 cm over the field.
    {
        SourceParams<double> params(in, cube());
        TestEngine rng(21);
        std::vector<double> counts(64, 0.0), prob(64, 0.0);
        for (int i = 0; i < 200000; ++i)
        {
            Real3 const x = crossing(params.host_view()(rng), in.beam->isocentre_cm, {{0, 1, 0}});
            int const a = std::min(7, int((x[0] - 5 + 20) / 5));
            int const b = std::min(7, int((x[2] - 5 + 10) / 5));
            counts[a + 8 * b] += 1;
        }
        double total = 0;
        for (int a = 0; a < 8; ++a)
            for (int b = 0; b < 8; ++b)
                total += prob[a + 8 * b] =
                    expected(-20 + 5 * a, -15 + 5 * a, -10 + 5 * b, -5 + 5 * b);
        for (double& p : prob)
            p /= total;
        EXPECT_LT(chi_square(counts, prob), chi_square_limit(63));
    }
    // An aperture of 4 x 3 pixels of 4 cm, clipped by the jaws x in [-6, 20], y in [-10, 30].
    ApertureInput a;
    a.nx = 4;
    a.ny = 3;
    a.x0_cm = -6;
    a.y0_cm = -2;
    a.dx_cm = a.dy_cm = 4;
    a.transmission = {1, 0.5, 0, 1, 0.25, 1, 1, 0, 1, 1, 0.75, 1};
    in.beam->aperture = a;
    in.beam->jaws = JawsInput{-6, 20, -10, 30};
    SourceParams<double> params(in, cube());
    TestEngine rng(22);
    std::vector<double> counts(12, 0.0), prob(12, 0.0);
    for (int i = 0; i < 100000; ++i)
    {
        Real3 const x = crossing(params.host_view()(rng), in.beam->isocentre_cm, {{0, 1, 0}});
        // Pixel (i, j) spans x0 + (i -+ 1/2) dx; the jaw at -6 cuts pixel 0 to [-6, -4].
        int const pi = int(std::floor((x[0] - 5 - (a.x0_cm - 2)) / 4));
        int const pj = int(std::floor((x[2] - 5 - (a.y0_cm - 2)) / 4));
        ASSERT_TRUE(pi >= 0 && pi < 4 && pj >= 0 && pj < 3) << x[0] << " " << x[2];
        counts[pi + 4 * pj] += 1;
    }
    double total = 0;
    for (int j = 0; j < 3; ++j)
    {
        for (int i = 0; i < 4; ++i)
        {
            double const xc = a.x0_cm + 4 * i, yc = a.y0_cm + 4 * j;
            double const x0 = std::max(xc - 2, -6.0);
            total += prob[i + 4 * j] =
                a.transmission[i + 4 * j] * expected(x0, xc + 2, yc - 2, yc + 2);
        }
    }
    for (double& p : prob)
        p /= total;
    EXPECT_LT(chi_square(counts, prob), chi_square_limit(12 - 1 - 2)); // 2 closed pixels
}

// The whole pyramid of rays is tested, not the central axis: an asymmetric field whose
// central axis misses the cube but whose rays reach it is accepted; one that misses is
// refused before transport, naming the source and what to change.
TEST(BeamGeometry, FieldThatMissesThePhantomIsRefused)
{
    // Isocentre 10 cm above the cube's top face (z = 10): Y_b = +z at gantry 0.
    SourceInput in = beam_source(0, 0, 0, JawsInput{-2, 2, -10.6, -8});
    in.beam->isocentre_cm = {{5, 5, 20}};
    EXPECT_NO_THROW(check_beam_reaches_grid(in, cube()));
    in.beam->jaws = JawsInput{-2, 2, -9, -8};
    try
    {
        SourceParams<double> params(in, cube());
        ADD_FAILURE() << "accepted a field that misses the phantom";
    }
    catch (RuntimeError const& e)
    {
        std::string const what = e.what();
        EXPECT_NE(what.find("/sources/0: the beam's field misses the phantom"), std::string::npos)
            << what;
        EXPECT_NE(what.find("check 'isocentre_cm'"), std::string::npos) << what;
    }
    // Behind the focal spot: gantry 180 aims along -y from y = -100, the cube is at y >= 0;
    // at gantry 0 the same isocentre puts the cube ahead, in the field.
    in = beam_source(180, 0, 0, JawsInput{-5, 5, -5, 5});
    in.beam->isocentre_cm = {{5, -200, 5}};
    EXPECT_THROW(check_beam_reaches_grid(in, cube()), RuntimeError);
    in.beam->gantry_deg = 0;
    EXPECT_NO_THROW(check_beam_reaches_grid(in, cube()));
    // An aperture whose open pixels all lie outside, although its bounding box does not.
    in = beam_source(0, 0, 0, JawsInput{-30, 30, -30, 30});
    ApertureInput a;
    a.nx = 3;
    a.ny = 1;
    a.x0_cm = -20;
    a.y0_cm = 0;
    a.dx_cm = 20;
    a.dy_cm = 2;
    a.transmission = {1, 0, 1}; // open at x in [-30, -10] and [10, 30]: beside the cube
    in.beam->aperture = a;
    EXPECT_THROW(check_beam_reaches_grid(in, cube()), RuntimeError);
    in.beam->aperture->transmission = {1, 1, 0};
    EXPECT_NO_THROW(check_beam_reaches_grid(in, cube()));
    in.beam->aperture->transmission = {0, 0, 0};
    EXPECT_THROW(check_beam_reaches_grid(in, cube()), RuntimeError);
}

// A calibration scales a beam's particles by the solid angle its field opens at the
// focal spot: 4 asin(w h / sqrt((w^2 + 4 d^2)(h^2 + 4 d^2))) for a centred w x h field at d.
TEST(BeamGeometry, EmissionExtentIsTheFieldsSolidAngle)
{
    SourceInput in = beam_source(0, 0, 0, JawsInput{-5, 5, -5, 5});
    double const w = 10, d = 100;
    double const expected = 4 * std::asin(w * w / ((w * w + 4 * d * d)));
    EmissionExtent const e = emission_extent(in);
    EXPECT_EQ("sr", e.unit);
    EXPECT_NEAR(expected, e.value, 1e-12 * expected);
    // An asymmetric field of the same size opens a little less solid angle (further off axis).
    in.beam->jaws = JawsInput{0, 10, -5, 5};
    EXPECT_LT(emission_extent(in).value, expected);
    EXPECT_GT(emission_extent(in).value, 0.99 * expected);
}

// Monitor units are the beams' weights; with `particles`, one ratio for all beams.
TEST(BeamGeometry, MonitorUnitsAndParticles)
{
    std::vector<SourceInput> beams = {beam_source(0, 0, 0, JawsInput{-2, 2, -2, 2}),
                                      beam_source(90, 0, 0, JawsInput{-2, 2, -2, 2})};
    beams[1].pointer = "/sources/1";
    for (int k = 0; k < 2; ++k)
    {
        beams[k].monitor_units = k ? 300 : 100;
        beams[k].weight = *beams[k].monitor_units;
    }
    SourceMixParams<double> mix(beams, cube());
    EXPECT_DOUBLE_EQ(mix.probability(0), 0.25);
    EXPECT_DOUBLE_EQ(mix.probability(1), 0.75);

    beams[0].particles = 1e9;
    beams[1].particles = 3e9;
    EXPECT_NO_THROW(SourceMixParams<double>(beams, cube()));
    beams[1].particles = 2e9;
    try
    {
        SourceMixParams<double> bad(beams, cube());
        ADD_FAILURE() << "accepted two calibrations";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("/sources/1/particles"), std::string::npos)
            << e.what();
    }
}

namespace
{
std::string temp_path(std::string const& name)
{
    return (std::filesystem::temp_directory_path() /
            ("mcdose_beam_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

SourceInput parse(nlohmann::json const& j, std::string const& file = "study.json")
{
    return parse_source(JsonNode(j, file, "/sources/0"));
}

std::string parse_error(nlohmann::json const& j, std::string const& file = "study.json")
{
    try
    {
        parse(j, file);
    }
    catch (InputError const& e)
    {
        return e.pointer() + ": " + e.problem();
    }
    return "";
}
} // namespace

TEST(BeamJson, FieldsAndErrors)
{
    auto j = nlohmann::json::parse(R"({"type": "beam", "particle": "photon", "energy_MeV": 6,
        "isocentre_cm": [1, 2, 3], "gantry_deg": 90, "monitor_units": 150,
        "jaws_cm": {"x1": -5, "x2": 5, "y1": -3, "y2": 7}})");
    SourceInput const s = parse(j);
    ASSERT_TRUE(s.beam);
    EXPECT_EQ(s.kind, SourceKind::beam);
    EXPECT_EQ(s.beam->sad_cm, 100);
    EXPECT_EQ(s.weight, 150);
    expect_near3(s.position_cm, {{101, 2, 3}}, 1e-12, "focal spot");
    expect_near3(s.direction, {{-1, 0, 0}}, 1e-15, "direction");

    auto bad = j;
    bad["jaws_cm"]["x2"] = -6;
    EXPECT_NE(parse_error(bad).find("/sources/0/jaws_cm/x2: must exceed x1"), std::string::npos)
        << parse_error(bad);
    bad = j;
    bad.erase("jaws_cm");
    EXPECT_NE(parse_error(bad).find("a beam needs its field"), std::string::npos);
    bad = j;
    bad["weight"] = 2;
    EXPECT_NE(parse_error(bad).find("/sources/0/monitor_units: give 'monitor_units' or "
                                    "'weight', not both"),
              std::string::npos);
    bad = j;
    bad["direction"] = {0, 0, 1};
    EXPECT_NE(parse_error(bad).find("direction"), std::string::npos);
}

TEST(BeamJson, ApertureImage)
{
    // A 3 x 2 transmission image with 5 mm pixels (on disk in mm; cm in the source).
    std::string const path = temp_path("aperture.mha");
    GridGeometry g = make_axis_aligned_geometry({{3, 2, 1}}, {{0.5, 0.5, 0.5}}, {{-0.5, -0.25, 0}});
    std::vector<float> t = {0, 1, 1, 0.5f, 1, 0};
    write_image(path, g, make_span(std::as_const(t)));
    auto j = nlohmann::json::parse(R"({"type": "beam", "particle": "photon", "energy_MeV": 6,
        "isocentre_cm": [5, 5, 5]})");
    j["aperture"] = {{"image", path}};
    SourceInput const s = parse(j);
    ASSERT_TRUE(s.beam && s.beam->aperture);
    EXPECT_EQ(s.beam->aperture->nx, 3);
    EXPECT_EQ(s.beam->aperture->ny, 2);
    EXPECT_NEAR(s.beam->aperture->x0_cm, -0.5, 1e-9);
    EXPECT_NEAR(s.beam->aperture->dx_cm, 0.5, 1e-9);
    EXPECT_EQ(s.beam->aperture->transmission[3], 0.5);
    BeamField const f = beam_field(*s.beam, s.pointer);
    EXPECT_EQ(f.weights.size(), 4u); // the open pixels

    std::vector<float> negative = {0, 1, -1, 0.5f, 1, 0};
    write_image(path, g, make_span(std::as_const(negative)));
    EXPECT_NE(parse_error(j).find("/sources/0/aperture/image: '" + path +
                                  "' has the value -1.000000 at pixel (2, 0)"),
              std::string::npos)
        << parse_error(j);
    std::filesystem::remove(path);
}
} // namespace mcdose::test

namespace mcdose::test
{
// Geometry that would make a source's sampling spin (a focal spot on the field, a field
// thinner than any collimator, a thin field in a wide cone) is refused where it is read,
// naming the field, the limit and the fix.
TEST(BeamJson, GeometryOutsidePhysicalRangesIsRefused)
{
    auto const beam = nlohmann::json::parse(R"({"type": "beam", "particle": "photon",
        "energy_MeV": 6, "isocentre_cm": [0, 0, 0],
        "jaws_cm": {"x1": -5, "x2": 5, "y1": -5, "y2": 5}})");
    auto bad = beam;
    bad["sad_cm"] = 1e-9;
    EXPECT_NE(parse_error(bad).find("/sources/0/sad_cm"), std::string::npos) << parse_error(bad);
    bad = beam;
    bad["jaws_cm"]["x2"] = -5 + 1e-9;
    EXPECT_NE(parse_error(bad).find("/sources/0/jaws_cm/x2: must exceed x1"), std::string::npos)
        << parse_error(bad);
    EXPECT_NE(parse_error(bad).find("at least 0.001"), std::string::npos) << parse_error(bad);

    auto const point = nlohmann::json::parse(R"({"type": "point", "particle": "photon",
        "energy_MeV": 1, "position_cm": [0, 0, -100], "direction": [0, 0, 1],
        "field": {"shape": "rectangle", "size_cm": [10, 10], "distance_cm": 100}})");
    EXPECT_EQ("", parse_error(point));
    bad = point;
    bad["field"]["size_cm"] = {1e-9, 10};
    EXPECT_NE(parse_error(bad).find("/sources/0/field/size_cm"), std::string::npos)
        << parse_error(bad);
    bad = point;
    bad["field"]["size_cm"] = {0.01, 100}; // ~ 2,500 cone draws per particle
    EXPECT_NE(parse_error(bad).find("too narrow for its width"), std::string::npos)
        << parse_error(bad);
    bad = point;
    bad["field"]["distance_cm"] = 1e-9;
    EXPECT_NE(parse_error(bad).find("/sources/0/field/distance_cm"), std::string::npos)
        << parse_error(bad);
}

// The rejection loop of a field ends even where (by a view the set-up would refuse) almost
// no draw is accepted: after max_source_draws it takes its last point of the field.
TEST(BeamGeometry, RejectionLoopIsBounded)
{
    ApertureView<double> view;
    view.one_cell = true;
    double const cell[4] = {500, 1000, 500, 1000}; // far off a focal spot 1e-9 cm away
    std::copy(cell, cell + 4, view.cell_cm);
    TestEngine rng(3);
    for (int i = 0; i < 4; ++i)
    {
        Array3<double> const p = view(rng, 1e-9);
        EXPECT_GE(p[0], 500);
        EXPECT_LE(p[0], 1000);
        EXPECT_GE(p[1], 500);
        EXPECT_LE(p[1], 1000);
    }
}
} // namespace mcdose::test
