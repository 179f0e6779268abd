//! \file sources/Source.json.cc
//! The reader of one study source: its fields, ranges and defaults, as
//! documented in docs/study-format.md.
#include <cmath>
#include <sstream>

#include "io/InputError.hh"
#include "io/InputPath.hh"
#include "io/SpectrumFile.hh"
#include "phantoms/PhantomJson.hh"
#include "sources/SourceJson.hh"

namespace mcdose
{
namespace
{
FieldInput parse_field(JsonNode const& node, SourceKind kind)
{
    node.require_object("the collimated field");
    FieldInput f;
    std::string const shape = node.child("shape").choice({"rectangle", "circle"});
    NumberRange const size = NumberRange::open_closed(0, 1000);
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
                            .number(NumberRange::open_closed(0, 1e4),
                                    "distance from the source at which the field size is "
                                    "defined, e.g. 100 (cm)");
    }
    else if (node.has("distance_cm"))
    {
        node.child("distance_cm").fail("only point sources have a field distance; remove it");
    }
    return f;
}

//! Discrete lines given inline: energies within the physics tables, one weight each.
SpectrumInput parse_lines(JsonNode const& node)
{
    SpectrumInput s;
    s.lines_MeV =
        node.child("lines_MeV")
            .numbers(1,
                     NumberRange::closed(SourceEnergyLimits::min_MeV, SourceEnergyLimits::max_MeV),
                     "line energies in MeV (the physics tables span 1 keV to 50 MeV)");
    JsonNode const weights = node.child("weights");
    s.weights = weights.numbers(1, NumberRange::non_negative(), "relative weight of each line");
    if (s.weights.size() != s.lines_MeV.size())
    {
        weights.fail("expected " + std::to_string(s.lines_MeV.size()) +
                     " weights (one per line), got " + std::to_string(s.weights.size()));
    }
    return s;
}

//! Discrete lines from a two-column file (io/SpectrumFile.hh), path relative to the study.
SpectrumInput parse_spectrum_file(JsonNode const& node)
{
    std::string const path =
        resolve_input_path(node.string("path of a two-column text file of energy_MeV and weight"),
                           input_base_dir(node.file()));
    SpectrumLines const lines = read_spectrum_lines(path);
    for (std::size_t i = 0; i < lines.energies_MeV.size(); ++i)
    {
        double const e = lines.energies_MeV[i];
        if (e < SourceEnergyLimits::min_MeV || e > SourceEnergyLimits::max_MeV)
        {
            std::ostringstream os;
            os << "the energy " << e << " MeV is outside the physics tables ("
               << SourceEnergyLimits::min_MeV << " to " << SourceEnergyLimits::max_MeV
               << " MeV); remove or correct that line";
            throw InputError(path, "line " + std::to_string(lines.line_numbers[i]), os.str());
        }
    }
    SpectrumInput s;
    s.lines_MeV = lines.energies_MeV;
    s.weights = lines.weights;
    s.file = path;
    return s;
}

SpectrumInput parse_spectrum(JsonNode const& node)
{
    node.require_object("an energy histogram {\"edges_MeV\", \"weights\"} or lines "
                        "{\"lines_MeV\", \"weights\"}");
    if (node.has("lines_MeV"))
    {
        node.allow_only({"lines_MeV", "weights"});
        SpectrumInput s = parse_lines(node);
        double total = 0;
        for (double w : s.weights)
            total += w;
        if (!(total > 0))
            node.child("weights").fail("all weights are zero; give at least one positive weight");
        return s;
    }
    node.allow_only({"edges_MeV", "weights"});
    SpectrumInput s;
    JsonNode const edges = node.child("edges_MeV");
    s.edges_MeV = edges.numbers(2, NumberRange::closed(0, SourceEnergyLimits::max_MeV),
                                "histogram bin edges in MeV (at most 50 MeV)");
    for (std::size_t i = 1; i < s.edges_MeV.size(); ++i)
    {
        if (!(s.edges_MeV[i] > s.edges_MeV[i - 1]))
            edges.element(i).fail("bin edges must increase strictly");
    }
    JsonNode const weights = node.child("weights");
    s.weights = weights.numbers(1, NumberRange::non_negative(), "relative weight of each bin");
    if (s.weights.size() + 1 != s.edges_MeV.size())
    {
        weights.fail("expected " + std::to_string(s.edges_MeV.size() - 1) +
                     " weights (one per bin "
                     "between " +
                     std::to_string(s.edges_MeV.size()) + " edges), got " +
                     std::to_string(s.weights.size()));
    }
    double total = 0;
    for (double w : s.weights)
        total += w;
    if (!(total > 0))
        weights.fail("all weights are zero; give at least one positive weight");
    return s;
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
} // namespace

SourceInput parse_source(JsonNode const& node)
{
    node.require_object("a source");
    SourceInput s;
    s.pointer = node.where();
    std::string const type = node.child("type").choice(
        {"pencil", "parallel", "point", "isotropic", "volume", "phase_space"});
    if (type == "phase_space")
    {
        node.allow_only({"type", "file", "translation_cm", "rotation_deg", "recycle"});
        s.kind = SourceKind::phase_space;
        s.phase_space = parse_phase_space(node);
        return s;
    }
    s.kind = type == "pencil"      ? SourceKind::pencil
             : type == "parallel"  ? SourceKind::parallel
             : type == "point"     ? SourceKind::point
             : type == "isotropic" ? SourceKind::isotropic
                                   : SourceKind::volume;
    if (s.kind == SourceKind::parallel || s.kind == SourceKind::point)
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file",
                         "position_cm", "direction", "field", "weight", "particles"});
    }
    else if (s.kind == SourceKind::pencil)
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file",
                         "position_cm", "direction", "weight", "particles"});
    }
    else if (s.kind == SourceKind::isotropic)
    {
        node.allow_only({"type", "particle", "energy_MeV", "spectrum", "spectrum_file",
                         "position_cm", "weight", "particles"});
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
    else
    {
        s.position_cm =
            node.child("position_cm")
                .real3(NumberRange::closed(-1e5, 1e5), "position in cm, phantom coordinates");
    }
    if (s.kind != SourceKind::isotropic && s.kind != SourceKind::volume)
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
    if (auto w = node.optional_child("weight"))
        s.weight =
            w->number(NumberRange::open_closed(0, 1e12), "relative intensity of this source");
    if (auto n = node.optional_child("particles"))
    {
        s.particles = n->number(NumberRange::open_closed(0, 1e30),
                                "number of source particles the run represents (for dose in Gy)");
    }
    return s;
}
} // namespace mcdose
