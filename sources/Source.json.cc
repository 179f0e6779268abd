//! \file sources/Source.json.cc
//! The reader of one study source: its fields, ranges and defaults, as
//! documented in docs/study-reference.md.
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/Constants.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "io/InputPath.hh"
#include "io/SpectrumFile.hh"
#include "phantoms/PhantomJson.hh"
#include "sources/BeamGeometry.hh"
#include "sources/BeamView.hh"
#include "sources/PlanSource.hh"
#include "sources/SourceJson.hh"

namespace mcdose
{
namespace
{
//! Narrowest field side (or jaw opening) a source accepts [cm]: 10 um, below any
//! collimator's (microbeams are 25-50 um wide).
constexpr double min_field_cm = 1e-3;

/*!
 * A point source's rectangular field is sampled by rejection from the cone around it: the
 * expected draws per particle are the cone's solid angle over the field's (rectangle: Eq.
 * of the solid angle of a rectangle seen from a point on its axis, 4 asin(a b / sqrt((a^2 +
 * d^2)(b^2 + d^2))), a, b the half sides). Refuses a field that needs more than
 * max_expected_source_draws (a thin field in a wide cone).
 */
void check_point_rectangle(JsonNode const& node, FieldInput const& f)
{
    double const a = f.width_cm / 2, b = f.height_cm / 2, d = f.distance_cm;
    double const field_sr = 4 * std::asin(a * b / std::sqrt((a * a + d * d) * (b * b + d * d)));
    double const cone_sr = 2 * constants::pi * (1 - d / std::sqrt(d * d + a * a + b * b));
    double const draws = cone_sr / field_sr;
    if (!(draws <= max_expected_source_draws))
    {
        std::ostringstream os;
        os << "a " << f.width_cm << " x " << f.height_cm << " cm field at " << d
           << " cm is too narrow for its width: a direction drawn in the cone around it "
              "falls in it once in "
           << draws << " draws (limit " << max_expected_source_draws
           << "); make the field's sides closer in size (at most about 1:600), or use "
              "a beam source with jaws";
        node.child("size_cm").fail(os.str());
    }
}

FieldInput parse_field(JsonNode const& node, SourceKind kind)
{
    node.require_object("the collimated field");
    FieldInput f;
    std::string const shape = node.child("shape").choice({"rectangle", "circle"});
    NumberRange const size = NumberRange::closed(min_field_cm, 1000);
    if (shape == "rectangle")
    {
        node.allow_only({"shape", "size_cm", "distance_cm"});
        f.shape = FieldShape::rectangle;
        auto const wh = node.child("size_cm").numbers(2, size, "field width and height in cm");
        if (wh.size() != 2)
            node.child("size_cm").fail("expected [width, height] in cm");
        f.width_cm = wh[0];
        f.height_cm = wh[1];
    }
    else
    {
        node.allow_only({"shape", "diameter_cm", "distance_cm"});
        f.shape = FieldShape::circle;
        f.diameter_cm = node.child("diameter_cm").number(size, "field diameter in cm");
    }
    if (kind == SourceKind::point)
    {
        f.distance_cm = node.child("distance_cm")
                            .number(NumberRange::closed(1, 1e4),
                                    "distance from the source at which the field size is "
                                    "defined, e.g. 100 (cm)");
        if (shape == "rectangle")
            check_point_rectangle(node, f);
    }
    else if (node.has("distance_cm"))
    {
        node.child("distance_cm").fail("only point sources have a field distance; remove it");
    }
    return f;
}

//! A spectrum from a file (io/SpectrumFile.hh), path relative to the study: a path, or
//! {"path", "format", "per_MeV"}. Every energy is checked against the physics tables, the
//! error naming the file and its row.
SpectrumInput parse_spectrum_file(JsonNode const& node)
{
    SpectrumFileFormat format = SpectrumFileFormat::automatic;
    bool per_MeV = false;
    JsonNode path_node = node;
    if (!node.value().is_string())
    {
        node.require_object("a path, or {\"path\", \"format\", \"per_MeV\"}");
        node.allow_only({"path", "format", "per_MeV"});
        path_node = node.child("path");
        if (auto f = node.optional_child("format"))
        {
            std::string const name = f->choice({"auto", "columns", "egsnrc"});
            format = name == "columns"  ? SpectrumFileFormat::columns
                     : name == "egsnrc" ? SpectrumFileFormat::egsnrc
                                        : SpectrumFileFormat::automatic;
        }
        if (auto p = node.optional_child("per_MeV"))
            per_MeV = p->boolean();
    }
    std::string const path = resolve_input_path(
        path_node.string("path of a spectrum file (EGSnrc .spectrum, or columns of text)"),
        input_base_dir(node.file()));
    SpectrumFileData const d = read_spectrum_file(path, format, per_MeV);
    auto const refuse = [&](int row, double e, char const* what)
    {
        std::ostringstream os;
        os << "the " << what << " " << e << " MeV is outside the physics tables ("
           << SourceEnergyLimits::min_MeV << " to " << SourceEnergyLimits::max_MeV
           << " MeV); remove or correct that row";
        throw InputError(path, "line " + std::to_string(row), os.str());
    };
    for (std::size_t i = 0; i < d.lines_MeV.size(); ++i)
    {
        double const e = d.lines_MeV[i];
        if (e < SourceEnergyLimits::min_MeV || e > SourceEnergyLimits::max_MeV)
            refuse(d.line_rows[i], e, "line energy");
    }
    for (std::size_t i = 0; i < d.edges_MeV.size(); ++i)
    {
        if (d.edges_MeV[i] > SourceEnergyLimits::max_MeV)
            refuse(d.edge_rows[i], d.edges_MeV[i], "bin edge");
    }
    SpectrumInput s;
    s.edges_MeV = d.edges_MeV;
    s.weights = d.bin_weights;
    s.density = d.edge_density;
    s.lines_MeV = d.lines_MeV;
    s.line_weights = d.line_weights;
    s.file = path;
    return s;
}

//! Histogram bins given inline (edges within [0, 50] MeV, increasing strictly).
void parse_bins(JsonNode const& node, SpectrumInput& s)
{
    JsonNode const edges = node.child("edges_MeV");
    s.edges_MeV = edges.numbers(2, NumberRange::closed(0, SourceEnergyLimits::max_MeV),
                                "histogram bin edges in MeV (at most 50 MeV)");
    for (std::size_t i = 1; i < s.edges_MeV.size(); ++i)
    {
        if (!(s.edges_MeV[i] > s.edges_MeV[i - 1]))
            edges.element(i).fail("bin edges must increase strictly; sort them and remove "
                                  "duplicates");
    }
    JsonNode const weights = node.child("weights");
    s.weights = weights.numbers(1, NumberRange::non_negative(), "relative weight of each bin");
    if (s.weights.size() + 1 != s.edges_MeV.size())
    {
        weights.fail("expected " + std::to_string(s.edges_MeV.size() - 1) +
                     " weights (one per bin between " + std::to_string(s.edges_MeV.size()) +
                     " edges), got " + std::to_string(s.weights.size()));
    }
    if (auto p = node.optional_child("per_MeV"); p && p->boolean())
    {
        for (std::size_t b = 0; b < s.weights.size(); ++b)
            s.weights[b] *= s.edges_MeV[b + 1] - s.edges_MeV[b];
    }
}

//! An inline spectrum: bins {"edges_MeV", "weights"}, lines {"lines_MeV", "weights"}, or both
//! {"edges_MeV", "weights", "lines_MeV", "line_weights"} (one alias table over all entries).
SpectrumInput parse_spectrum(JsonNode const& node)
{
    node.require_object("an energy histogram {\"edges_MeV\", \"weights\"}, lines "
                        "{\"lines_MeV\", \"weights\"} or both");
    node.allow_only({"edges_MeV", "weights", "per_MeV", "lines_MeV", "line_weights"});
    bool const bins = node.has("edges_MeV");
    bool const lines = node.has("lines_MeV");
    if (!bins && !lines)
        node.fail("give bins (\"edges_MeV\", \"weights\"), lines (\"lines_MeV\", "
                  "\"weights\") or both (then the lines' weights are \"line_weights\")");
    SpectrumInput s;
    if (bins)
        parse_bins(node, s);
    else if (node.has("per_MeV"))
        node.child("per_MeV").fail("'per_MeV' applies to histogram bins; remove it");
    if (lines)
    {
        char const* key = bins ? "line_weights" : "weights";
        if (!bins && node.has("line_weights"))
            node.child("line_weights")
                .fail("without bins the lines' weights are 'weights'; rename the field");
        if (bins && !node.has("line_weights"))
            node.fail("a spectrum of bins and lines needs \"line_weights\" (one per line, "
                      "relative numbers of particles on the scale of the bins' \"weights\")");
        s.lines_MeV =
            node.child("lines_MeV")
                .numbers(
                    1,
                    NumberRange::closed(SourceEnergyLimits::min_MeV, SourceEnergyLimits::max_MeV),
                    "line energies in MeV (the physics tables span 1 keV to 50 MeV)");
        JsonNode const weights = node.child(key);
        s.line_weights =
            weights.numbers(1, NumberRange::non_negative(), "relative weight of each line");
        if (s.line_weights.size() != s.lines_MeV.size())
        {
            weights.fail("expected " + std::to_string(s.lines_MeV.size()) +
                         " weights (one per line), got " + std::to_string(s.line_weights.size()));
        }
    }
    else if (node.has("line_weights"))
    {
        node.child("line_weights")
            .fail("'line_weights' needs 'lines_MeV'; add the lines or "
                  "remove it");
    }
    double total = 0;
    for (double w : s.weights)
        total += w;
    for (double w : s.line_weights)
        total += w;
    if (!(total > 0))
        node.child("weights").fail("all weights are zero; give at least one positive weight");
    return s;
}

//! The jaws {"x1", "x2", "y1", "y2"} [cm] at the isocentre plane.
JawsInput parse_jaws(JsonNode const& node)
{
    node.require_object("the jaw positions {\"x1\", \"x2\", \"y1\", \"y2\"} in cm");
    node.allow_only({"x1", "x2", "y1", "y2"});
    NumberRange const range = NumberRange::closed(-100, 100);
    char const* hint = "a jaw position in cm at the isocentre plane, IEC 61217 coordinates "
                       "(x1 = -5, x2 = 5 for a symmetric 10 cm field)";
    JawsInput j;
    j.x1_cm = node.child("x1").number(range, hint);
    j.x2_cm = node.child("x2").number(range, hint);
    j.y1_cm = node.child("y1").number(range, hint);
    j.y2_cm = node.child("y2").number(range, hint);
    if (!(j.x2_cm >= j.x1_cm + min_field_cm))
        node.child("x2").fail("must exceed x1 (" + std::to_string(j.x1_cm) + ") by at least " +
                              std::to_string(min_field_cm) + " cm (10 um" +
                              "): jaw positions are coordinates along X_b, x1 < x2 (a "
                              "symmetric 10 cm field is x1 = -5, x2 = 5)");
    if (!(j.y2_cm >= j.y1_cm + min_field_cm))
        node.child("y2").fail("must exceed y1 (" + std::to_string(j.y1_cm) + ") by at least " +
                              std::to_string(min_field_cm) + " cm (10 um" +
                              "): jaw positions are coordinates along Y_b, y1 < y2 (a "
                              "symmetric 10 cm field is y1 = -5, y2 = 5)");
    return j;
}

//! An aperture image {"image"}: a 2D image of transmission at the isocentre plane.
ApertureInput parse_aperture(JsonNode const& node)
{
    node.require_object("an aperture {\"image\": path}");
    node.allow_only({"image"});
    JsonNode const image = node.child("image");
    ApertureInput a;
    a.path = resolve_input_path(
        image.string("path of a 2D image (.mha, .nrrd, .nii) of transmission at the isocentre "
                     "plane"),
        input_base_dir(node.file()));
    ScalarImage im;
    try
    {
        im = read_scalar_image(a.path);
    }
    catch (RuntimeError const& e)
    {
        image.fail(e.what());
    }
    GridGeometry const& g = im.geometry;
    if (g.dims[2] != 1)
        image.fail("'" + a.path + "' has " + std::to_string(g.dims[2]) +
                   " slices; an aperture is one 2D image (x along X_b, y along Y_b)");
    double const* d = g.direction;
    if (std::fabs(d[0] - 1) > 1e-6 || std::fabs(d[4] - 1) > 1e-6)
        image.fail("'" + a.path +
                   "' has rotated axes (direction cosines); write it with "
                   "identity axes: x along X_b, y along Y_b (rotate the beam with "
                   "'collimator_deg')");
    a.nx = g.dims[0];
    a.ny = g.dims[1];
    a.x0_cm = g.origin_cm[0];
    a.y0_cm = g.origin_cm[1];
    a.dx_cm = g.spacing_cm[0];
    a.dy_cm = g.spacing_cm[1];
    double const left = a.x0_cm - a.dx_cm / 2, right = left + a.nx * a.dx_cm;
    double const bottom = a.y0_cm - a.dy_cm / 2, top = bottom + a.ny * a.dy_cm;
    if (!(std::fabs(left) <= 100 && std::fabs(right) <= 100 && std::fabs(bottom) <= 100 &&
          std::fabs(top) <= 100))
        image.fail("'" + a.path +
                   "' reaches beyond 100 cm of the central axis at the "
                   "isocentre plane (the jaws' limit); crop it, or check its origin and spacing "
                   "(cm)");
    a.transmission = im.values;
    for (std::size_t p = 0; p < a.transmission.size(); ++p)
    {
        double const t = a.transmission[p];
        if (!(t >= 0) || !std::isfinite(t))
            image.fail("'" + a.path + "' has the value " + std::to_string(t) + " at pixel (" +
                       std::to_string(p % a.nx) + ", " + std::to_string(p / a.nx) +
                       "); transmissions must be finite and >= 0 (1 open, 0 closed)");
    }
    return a;
}

//! The beam fields; sets the source's focal spot, central axis and weight.
void parse_beam(JsonNode const& node, SourceInput& s)
{
    BeamInput b;
    b.isocentre_cm = node.child("isocentre_cm")
                         .real3(NumberRange::closed(-1e5, 1e5),
                                "the isocentre in cm, phantom (DICOM patient) coordinates");
    if (auto n = node.optional_child("sad_cm"))
        b.sad_cm = n->number(NumberRange::closed(30, 1000),
                             "source-axis distance in cm, e.g. 100 (a treatment machine's: the "
                             "field sampling assumes the focal spot well away from the field)");
    NumberRange const angle = NumberRange::closed(-360, 360);
    if (auto n = node.optional_child("gantry_deg"))
        b.gantry_deg = n->number(angle, "IEC 61217 gantry angle in degrees");
    if (auto n = node.optional_child("collimator_deg"))
        b.collimator_deg = n->number(angle, "IEC 61217 collimator angle in degrees");
    if (auto n = node.optional_child("couch_deg"))
        b.couch_deg = n->number(angle, "IEC 61217 couch (patient support) angle in degrees");
    if (auto n = node.optional_child("jaws_cm"))
        b.jaws = parse_jaws(*n);
    if (auto n = node.optional_child("aperture"))
        b.aperture = parse_aperture(*n);
    if (!b.jaws && !b.aperture)
        node.fail("a beam needs its field: \"jaws_cm\" {\"x1\", \"x2\", \"y1\", \"y2\"}, "
                  "an \"aperture\" image, or both");
    BeamAxes const axes = beam_axes(b);
    s.position_cm = axes.source_cm;
    s.direction = axes.central_axis;
    s.beam = std::move(b);
}

VolumeInput parse_volume(JsonNode const& node)
{
    VolumeInput v;
    if (auto e = node.optional_child("emission"))
    {
        std::string const name = e->choice({"per_mass", "per_volume", "activity"});
        v.emission = name == "per_mass"     ? EmissionDensity::per_mass
                     : name == "per_volume" ? EmissionDensity::per_volume
                                            : EmissionDensity::activity;
    }
    if (v.emission == EmissionDensity::activity)
    {
        v.activity_image = resolve_input_path(
            node.child("activity_image")
                .string("path of an image of activity concentration (.mha, .nrrd, .nii)"),
            input_base_dir(node.file()));
    }
    else if (node.has("activity_image"))
    {
        node.child("activity_image")
            .fail("an activity image needs \"emission\": \"activity\"; set it or remove the "
                  "image");
    }
    if (auto m = node.optional_child("material"))
        v.material = m->string("the name of one of the phantom's materials");
    if (auto r = node.optional_child("region"))
        v.region = parse_shape(*r, false);
    return v;
}

//! The energy: exactly one of energy_MeV, spectrum and spectrum_file.
void parse_energy(JsonNode const& node, SourceInput& s)
{
    int const given =
        int(node.has("energy_MeV")) + int(node.has("spectrum")) + int(node.has("spectrum_file"));
    if (given != 1)
    {
        node.fail(given ? "more than one of 'energy_MeV', 'spectrum' and 'spectrum_file' is "
                          "given; keep one"
                        : "missing the energy; give 'energy_MeV' (mono-energetic), 'spectrum' "
                          "or 'spectrum_file'");
    }
    if (node.has("energy_MeV"))
    {
        s.energy_MeV =
            node.child("energy_MeV")
                .number(
                    NumberRange::closed(SourceEnergyLimits::min_MeV, SourceEnergyLimits::max_MeV),
                    "kinetic energy in MeV (the physics tables span 1 keV to 50 MeV)");
    }
    else if (node.has("spectrum"))
    {
        s.spectrum = parse_spectrum(node.child("spectrum"));
    }
    else
    {
        s.spectrum = parse_spectrum_file(node.child("spectrum_file"));
    }
}
//! `monitor_units` with its `calibration` file (and the backscatter correction); the
//! study turns them into particles (study/SourceCalibration.hh).
void parse_monitor_units(JsonNode const& node, SourceInput& s)
{
    if (auto mu = node.optional_child("monitor_units"))
    {
        s.monitor_units = mu->number(NumberRange::open_closed(0, 1e9), "monitor units, e.g. 100");
        // A beam's monitor units are its weight; with a calibration they also give its
        // particles. Other sources take monitor units only through a calibration.
        bool const beam = s.kind == SourceKind::beam;
        if (beam && node.has("weight"))
        {
            mu->fail("give 'monitor_units' or 'weight', not both (monitor units are the beam's "
                     "weight)");
        }
        if (beam)
            s.weight = *s.monitor_units;
        if (s.particles && (!beam || node.has("calibration")))
        {
            mu->fail("give either 'particles' or 'monitor_units' with 'calibration' (which the "
                     "calibration turns into particles), not both");
        }
        if (!beam && !node.has("calibration"))
        {
            mu->fail("'monitor_units' needs 'calibration': the calibration file of this source "
                     "model, written by 'mcdose calibrate' (or give 'particles')");
        }
    }
    if (auto c = node.optional_child("calibration"))
    {
        if (!s.monitor_units)
            c->fail("'calibration' is used with 'monitor_units'; give both or neither");
        s.calibration = resolve_input_path(
            c->string("path of a calibration file written by 'mcdose calibrate'"),
            input_base_dir(node.file()));
    }
    if (auto b = node.optional_child("monitor_backscatter_factor"))
    {
        if (!s.monitor_units)
            b->fail("'monitor_backscatter_factor' is used with 'monitor_units'");
        s.monitor_backscatter_factor = b->number(
            NumberRange::closed(0.8, 1.25),
            "(monitor-chamber signal per particle in the reference field) / (in this field); "
            "1 neglects backscatter into the monitor chamber");
    }
}
//! `weight` and `particles`.
void parse_weight(JsonNode const& node, SourceInput& s)
{
    if (auto w = node.optional_child("weight"))
        s.weight =
            w->number(NumberRange::open_closed(0, 1e12), "relative intensity of this source");
    if (auto n = node.optional_child("particles"))
    {
        s.particles = n->number(NumberRange::open_closed(0, 1e30),
                                "number of source particles the run represents (for dose in Gy)");
    }
}

//! An rt_plan source: photons from the plan's beams, with their energy.
SourceInput parse_plan_source(JsonNode const& node, SourceInput s)
{
    node.allow_only({"type", "file", "machine", "beams", "energy_MeV", "spectrum", "spectrum_file",
                     "weight", "particles", "calibration", "monitor_backscatter_factor"});
    s.kind = SourceKind::rt_plan;
    s.particle = ParticleType::photon;
    parse_energy(node, s);
    s.plan = parse_plan(node);
    parse_weight(node, s);
    if (auto c = node.optional_child("calibration"))
    {
        // The plan's monitor units per fraction, turned into particles by the calibration.
        if (s.particles)
            c->fail("give either 'particles' or 'calibration' (which turns the plan's monitor "
                    "units into particles), not both");
        s.monitor_units = plan_monitor_units(*s.plan, s.pointer);
        s.calibration = resolve_input_path(
            c->string("path of a calibration file written by 'mcdose calibrate' for a beam "
                      "source of this machine and energy"),
            input_base_dir(node.file()));
        if (auto b = node.optional_child("monitor_backscatter_factor"))
            s.monitor_backscatter_factor =
                b->number(NumberRange::closed(0.8, 1.25),
                          "(monitor-chamber signal per particle in the reference field) / (in "
                          "this plan); 1 neglects backscatter into the monitor chamber");
    }
    else if (node.has("monitor_backscatter_factor"))
    {
        node.child("monitor_backscatter_factor").fail("used with 'calibration'");
    }
    return s;
}
} // namespace

SourceInput parse_source(JsonNode const& node)
{
    node.require_object("a source");
    SourceInput s;
    s.pointer = node.where();
    std::string const type = node.child("type").choice(
        {"pencil", "parallel", "point", "isotropic", "volume", "beam", "phase_space", "rt_plan"});
    if (type == "phase_space")
    {
        node.allow_only({"type", "file", "translation_cm", "rotation_deg", "recycle", "read_ahead",
                         "read_threads", "recover"});
        s.kind = SourceKind::phase_space;
        s.phase_space = parse_phase_space(node);
        return s;
    }
    if (type == "rt_plan")
        return parse_plan_source(node, std::move(s));
    s.kind = type == "pencil"      ? SourceKind::pencil
             : type == "parallel"  ? SourceKind::parallel
             : type == "point"     ? SourceKind::point
             : type == "isotropic" ? SourceKind::isotropic
             : type == "beam"      ? SourceKind::beam
                                   : SourceKind::volume;
    if (s.kind == SourceKind::parallel || s.kind == SourceKind::point)
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file",
                         "position_cm", "direction", "field", "weight", "particles",
                         "monitor_units", "calibration", "monitor_backscatter_factor"});
    }
    else if (s.kind == SourceKind::pencil)
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file",
                         "position_cm", "direction", "weight", "particles", "monitor_units",
                         "calibration", "monitor_backscatter_factor"});
    }
    else if (s.kind == SourceKind::isotropic)
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file",
                         "position_cm", "weight", "particles"});
    }
    else if (s.kind == SourceKind::beam)
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file",
                         "isocentre_cm", "sad_cm", "gantry_deg", "collimator_deg", "couch_deg",
                         "jaws_cm", "aperture", "weight", "monitor_units", "particles",
                         "calibration", "monitor_backscatter_factor"});
    }
    else
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file", "emission",
                         "activity_image", "material", "region", "weight", "particles"});
    }
    s.particle =
        to_particle_type(node.child("particle").choice({"photon", "electron", "positron"}));
    parse_energy(node, s);
    if (s.kind == SourceKind::volume)
    {
        s.volume = parse_volume(node);
    }
    else if (s.kind == SourceKind::beam)
    {
        parse_beam(node, s);
    }
    else
    {
        s.position_cm =
            node.child("position_cm")
                .real3(NumberRange::closed(-1e5, 1e5), "position in cm, phantom coordinates");
    }
    if (s.kind != SourceKind::isotropic && s.kind != SourceKind::volume &&
        s.kind != SourceKind::beam)
    {
        JsonNode const dir = node.child("direction");
        s.direction = dir.real3(NumberRange::closed(-1e6, 1e6), "a direction vector [u, v, w]");
        double const norm =
            std::sqrt(s.direction[0] * s.direction[0] + s.direction[1] * s.direction[1] +
                      s.direction[2] * s.direction[2]);
        if (!(norm > 1e-12))
            dir.fail("the direction is the zero vector; give e.g. [0, 0, 1]");
        for (int c = 0; c < 3; ++c)
            s.direction[c] /= norm;
    }
    if (s.kind == SourceKind::parallel || s.kind == SourceKind::point)
        s.field = parse_field(node.child("field"), s.kind);
    parse_weight(node, s);
    parse_monitor_units(node, s);
    return s;
}
} // namespace mcdose
