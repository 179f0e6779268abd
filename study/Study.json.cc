//! \file study/Study.json.cc
//! The study reader: each section's fields, ranges and defaults, as documented
//! in docs/study-reference.md. Later sections (e.g. new source types) add their
//! fields here and to the docs and schema together.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/DicomReference.hh"
#include "io/InputFile.hh"
#include "io/InputPath.hh"
#include "io/JsonInput.hh"
#include "phantoms/PhantomJson.hh"
#include "phantoms/StructuresJson.hh"
#include "rng/RngKind.hh"
#include "sources/SourceJson.hh"
#include "study/DoseToWater.hh"
#include "study/PhaseSpaceOutput.hh"
#include "study/SourceCalibration.hh"
#include "study/StudyInput.hh"
#include "tally/TallyMethod.hh"
#include "transport/engine/TransportParams.hh"

namespace mcdose
{
namespace
{

PhysicsInput parse_physics(JsonNode const& node)
{
    node.require_object("physics options");
    node.allow_only({"electron_cutoff_MeV", "photon_cutoff_MeV", "delta_ray_cut_MeV",
                     "brems_cut_MeV", "max_step_energy_loss", "max_step_transport_mfp",
                     "electron_transport", "photon_tracking", "precision", "density_effect",
                     "bremsstrahlung_photons"});
    PhysicsInput p;
    TransportOptions& t = p.transport;
    ElectronTransportOptions& e = t.electron;
    // The electron options' limits are ElectronTransportOptions' own (one table).
    using L = ElectronOptionLimits;
    auto const cut_range = NumberRange::closed(L::cut_min_MeV, L::cut_max_MeV);
    if (auto c = node.optional_child("electron_cutoff_MeV"))
        e.absorption_MeV = c->number(cut_range, "kinetic energy in MeV below which e-/e+ stop");
    if (auto g = node.optional_child("photon_cutoff_MeV"))
    {
        t.photon_cutoff_MeV = g->number(NumberRange::closed(1e-3, 10),
                                        "energy in MeV below which photons are absorbed");
    }
    if (auto d = node.optional_child("delta_ray_cut_MeV"))
    {
        e.delta_cut_MeV = d->number(cut_range, "energy transfer in MeV above which Møller/Bhabha "
                                               "delta rays are produced");
    }
    if (auto b = node.optional_child("brems_cut_MeV"))
    {
        e.brems_cut_MeV =
            b->number(cut_range, "photon energy in MeV above which bremsstrahlung photons "
                                 "are produced");
    }
    if (auto f = node.optional_child("max_step_energy_loss"))
    {
        e.max_loss_fraction = f->number(NumberRange::open_closed(0, L::max_loss_fraction),
                                        "largest fraction of the energy lost in one step");
    }
    if (auto f = node.optional_child("max_step_transport_mfp"))
    {
        e.max_mfp_fraction = f->number(NumberRange::open_closed(0, L::max_mfp_fraction),
                                       "largest step as a fraction of the transport mean "
                                       "free path");
    }
    if (auto c = node.optional_child("electron_transport"))
        e.condensed_history = c->choice({"condensed", "local"}) == "condensed";
    if (auto d = node.optional_child("density_effect"))
    {
        e.density_effect = d->choice({"voxel", "nominal"}) == "voxel" ? DensityEffectModel::voxel
                                                                      : DensityEffectModel::nominal;
    }
    if (auto b = node.optional_child("bremsstrahlung_photons"))
        e.discard_brems_photons = b->choice({"transport", "discard"}) == "discard";
    if (auto k = node.optional_child("photon_tracking"))
    {
        t.tracking = k->choice({"siddon", "woodcock"}) == "woodcock" ? PhotonTracking::woodcock
                                                                     : PhotonTracking::siddon;
    }
    if (auto pr = node.optional_child("precision"))
        p.precision =
            pr->choice({"single", "double"}) == "single" ? Precision::single_ : Precision::double_;
    return p;
}

RngInput parse_rng(JsonNode const& node)
{
    node.require_object("random-number options");
    node.allow_only({"generator", "seed"});
    RngInput r;
    if (auto g = node.optional_child("generator"))
        r.generator =
            to_rng_kind(g->choice({"philox", "hybrid-taus", "lagged-fibonacci", "lcg", "ran2"}));
    if (auto s = node.optional_child("seed"))
    {
        if (s->value().is_number_unsigned())
            r.seed = s->value().get<std::uint64_t>();
        else
            r.seed = static_cast<std::uint64_t>(
                s->integer(0, 9007199254740991LL, "a whole number >= 0"));
    }
    return r;
}

TallyInput parse_tally(JsonNode const& node)
{
    node.require_object("tally options");
    node.allow_only({"method", "uncertainty", "batches"});
    TallyInput t;
    if (auto m = node.optional_child("method"))
        t.method = to_tally_method(m->choice({"fa", "cas", "wag", "kas", "hb", "wib", "fx"}));
    if (auto u = node.optional_child("uncertainty"))
        t.uncertainty = to_tally_uncertainty(u->choice({"auto", "batch", "history"}));
    if (auto b = node.optional_child("batches"))
    {
        t.batches = static_cast<int>(
            b->integer(2, 1000,
                       "number of statistically independent batches (default: 100 with the batch "
                       "uncertainty, 10 history by history)"));
    }
    return t;
}

//! `whole_file`: a phase-space source may set the history count (no stopping rule needed).
RunInput parse_run(JsonNode const& node, bool whole_file)
{
    node.require_object("the stopping rule");
    node.allow_only({"histories", "target_uncertainty", "uncertainty_dose_fraction", "time_limit_s",
                     "max_histories", "batch_histories", "stop_on"});
    RunInput r;
    bool const by_count = node.has("histories");
    bool const by_target = node.has("target_uncertainty");
    if (by_count == by_target && !(whole_file && !by_count))
    {
        node.fail(by_count ? "both 'histories' and 'target_uncertainty' are given; keep one"
                           : "no stopping rule; give 'histories' or 'target_uncertainty' (with "
                             "'time_limit_s')");
    }
    auto const max_count = static_cast<long long>(max_study_histories);
    if (by_count)
    {
        r.histories = static_cast<std::uint64_t>(
            node.child("histories").integer(1, max_count, "number of source particles to run"));
    }
    else
    {
        r.target_uncertainty = node.child("target_uncertainty")
                                   .number(NumberRange::open_closed(0, 1),
                                           "relative 1-sigma uncertainty, e.g. 0.01 for 1%");
        if (auto f = node.optional_child("uncertainty_dose_fraction"))
        {
            r.uncertainty_dose_fraction =
                f->number(NumberRange::open_closed(0, 1),
                          "fraction of the maximum dose above which voxels count, e.g. 0.5");
        }
        r.time_limit_s = 3600;
        if (auto st = node.optional_child("stop_on"))
            r.stop_on = st->string("\"body\" or the name of a structure of 'structures'");
        if (auto m = node.optional_child("max_histories"))
            r.max_histories = static_cast<std::uint64_t>(m->integer(1, max_count));
    }
    if (!by_target)
    {
        for (char const* key : {"uncertainty_dose_fraction", "max_histories", "stop_on"})
        {
            if (node.has(key))
                node.child(key).fail("only used with 'target_uncertainty'; remove it");
        }
    }
    if (auto t = node.optional_child("time_limit_s"))
    {
        r.time_limit_s = t->number(NumberRange::open_closed(0, 1e7), "wall-clock limit in seconds");
    }
    if (auto b = node.optional_child("batch_histories"))
        r.batch_histories = static_cast<std::uint64_t>(b->integer(1, max_count));
    return r;
}

//! `run.stop_on` names the body or a structure of the study.
void check_stop_on(JsonNode const& run, RunInput const& r, StructuresInput const& structures)
{
    std::vector<std::string> names = structures.names();
    if (r.stop_on == "body" || std::find(names.begin(), names.end(), r.stop_on) != names.end())
        return;
    names.insert(names.begin(), "body");
    std::string const close = closest_spelling(r.stop_on, names);
    std::string listed;
    for (auto const& n : names)
        listed += (listed.empty() ? "'" : ", '") + n + "'";
    run.child("stop_on").fail(
        "structure '" + r.stop_on + "' is not in the study (it has " + listed + "); " +
        (close.empty() ? std::string("add it to 'structures' or stop on \"body\"")
                       : "did you mean '" + close + "'?"));
}

//! A name that becomes part of a file name: no directories, no hidden files.
void check_file_stem(JsonNode const& node, std::string const& name)
{
    bool const bad_char = name.find_first_of("/\\") != std::string::npos ||
                          std::any_of(name.begin(), name.end(),
                                      [](char c) { return static_cast<unsigned char>(c) < 32; });
    if (name.empty() || name.front() == '.' || bad_char || name.size() > 200)
    {
        node.fail("'" + name.substr(0, 200) +
                  "' cannot be part of a file name; use letters, digits, '_', '-' and '.' "
                  "(not first), without '/' (at most 200 characters)");
    }
}

OutputInput parse_outputs(JsonNode const& node, std::string const& base_dir,
                          std::string const& default_name, bool default_dvh)
{
    node.require_object("the outputs");
    node.allow_only({"directory", "name", "hdf5", "image_format", "depth_dose", "depth_axis",
                     "lateral_profiles", "summary", "if_exists", "rtdose", "rtdose_referenced_plan",
                     "rtdose_bits", "dvh", "dvh_volume_at_doses", "dose_to",
                     "dose_to_water_energy_MeV", "phase_space"});
    OutputInput o;
    o.dvh = default_dvh;
    std::string dir = node.has("directory") ? node.child("directory").string("an output directory")
                                            : std::string(".");
    if (dir.empty())
        node.child("directory")
            .fail("is empty; give a directory (\".\" for the study file's folder)");
    o.directory = resolve_input_path(dir, base_dir);
    o.name = default_name;
    if (auto n = node.optional_child("name"))
    {
        o.name = n->string("a file stem such as \"water_20MeV\"");
        check_file_stem(*n, o.name);
    }
    if (auto e = node.optional_child("if_exists"))
        o.if_exists = to_if_exists(e->choice({"error", "overwrite", "increment"}));
    if (auto h = node.optional_child("hdf5"))
        o.hdf5 = h->boolean();
    if (auto f = node.optional_child("image_format"))
        o.image_format = to_image_format(f->choice({"mha", "nrrd", "nii", "none"}));
    if (auto r = node.optional_child("rtdose"))
        o.rtdose = r->boolean();
    if (auto p = node.optional_child("rtdose_referenced_plan"))
    {
        o.rtdose_referenced_plan = p->string("the SOP Instance UID of an RT Plan");
        if (!is_dicom_uid(o.rtdose_referenced_plan))
        {
            p->fail("'" + o.rtdose_referenced_plan.substr(0, 80) +
                    "' is not a DICOM UID (digits in groups separated by '.', no leading "
                    "zero, at most 64 characters); copy the RT Plan's SOP Instance UID "
                    "(0008,0018)");
        }
    }
    if (auto b = node.optional_child("rtdose_bits"))
    {
        o.rtdose_bits = int(b->integer(16, 32, "16 or 32"));
        if (o.rtdose_bits != 16 && o.rtdose_bits != 32)
        {
            b->fail("RT Dose pixels have 16 or 32 bits, not " + std::to_string(o.rtdose_bits) +
                    "; choose 16 (read by every DICOM reader) or 32 (finer dose steps)");
        }
    }
    if (auto d = node.optional_child("depth_dose"))
        o.depth_dose = d->boolean();
    if (auto a = node.optional_child("depth_axis"))
    {
        std::string const axis = a->choice({"x", "y", "z"});
        o.depth_axis = axis[0] - 'x';
    }
    if (auto profiles = node.optional_child("lateral_profiles"))
    {
        std::size_t const n = profiles->array_size(0, "profiles {\"axis\", \"position_cm\"}");
        for (std::size_t i = 0; i < n; ++i)
        {
            JsonNode const pn = profiles->element(i);
            pn.require_object("a profile {\"axis\": \"x\", \"position_cm\": [x, y, z]}");
            pn.allow_only({"axis", "position_cm", "name"});
            LateralProfileInput lp;
            lp.axis = pn.child("axis").choice({"x", "y", "z"})[0] - 'x';
            lp.position_cm = pn.child("position_cm")
                                 .real3(NumberRange::closed(-1e5, 1e5),
                                        "a point the profile line passes through, in cm");
            lp.name = "profile" + std::to_string(i);
            if (auto name = pn.optional_child("name"))
            {
                lp.name = name->string("a file-name suffix such as \"x_at_5cm\"");
                check_file_stem(*name, lp.name);
            }
            o.lateral_profiles.push_back(lp);
        }
    }
    if (auto s = node.optional_child("summary"))
        o.summary = s->boolean();
    if (auto p = node.optional_child("phase_space"))
        o.phase_space = parse_phase_space_output(*p);
    if (auto d = node.optional_child("dvh"))
        o.dvh = d->boolean();
    if (auto d = node.optional_child("dose_to"))
        o.dose_to_water = d->choice({"medium", "water"}) == std::string("water");
    if (auto e = node.optional_child("dose_to_water_energy_MeV"))
    {
        if (!o.dose_to_water)
            e->fail("'dose_to_water_energy_MeV' is used with \"dose_to\": \"water\"");
        o.dose_to_water_energy_MeV =
            e->number(NumberRange::open_closed(2 * dose_to_water_low_MeV, 50),
                      "start energy of the electron slowing-down spectrum, e.g. 2");
    }
    if (auto v = node.optional_child("dvh_volume_at_doses"))
    {
        o.dvh_volume_at_doses =
            v->numbers(0, NumberRange::non_negative(),
                       "doses in Gy (Gy per particle without a particle count), e.g. [20, 40]");
    }
    return o;
}
} // namespace

StudyInput parse_study(std::string const& text, std::string const& source_name)
{
    nlohmann::json const doc = parse_json_text(text, source_name);
    JsonNode const root(doc, source_name);
    root.require_object("a study");
    root.allow_only({"description", "phantom", "structures", "materials", "sources", "physics",
                     "rng", "tally", "run", "backend", "cpu_threads", "outputs"});
    std::string const base = input_base_dir(source_name);

    StudyInput s;
    s.study_file = source_name;
    s.study_json = text;
    if (auto d = root.optional_child("description"))
        d->string("free text");
    s.phantom = parse_phantom(root.child("phantom"), base);
    s.structures.study_file = source_name;
    if (auto st = root.optional_child("structures"))
        s.structures = parse_structures(*st, base);

    if (auto mats = root.optional_child("materials"))
    {
        std::size_t const n = mats->array_size(0, "user materials");
        for (std::size_t i = 0; i < n; ++i)
        {
            JsonNode const m = mats->element(i);
            m.require_object("a material {\"name\", \"density_g_cm3\", \"elements\"}");
            s.user_material_names.push_back(m.child("name").string("the material's name"));
        }
        s.user_materials_json = mats->value().dump();
    }

    JsonNode const sources = root.child("sources");
    std::size_t const n_src = sources.array_size(1, "at least one source");
    for (std::size_t i = 0; i < n_src; ++i)
        s.sources.push_back(parse_source(sources.element(i)));
    s.absolute = resolve_monitor_units(source_name, s.sources, s.reader_warnings);
    if (s.absolute.description.empty() && !s.sources.empty() && s.sources.front().particles)
        s.absolute.description = "particles given by the study's sources";

    if (auto p = root.optional_child("physics"))
        s.physics = parse_physics(*p);
    if (auto r = root.optional_child("rng"))
        s.rng = parse_rng(*r);
    if (auto t = root.optional_child("tally"))
        s.tally = parse_tally(*t);
    bool const whole_file =
        std::any_of(s.sources.begin(), s.sources.end(),
                    [](SourceInput const& src) { return src.kind == SourceKind::phase_space; });
    if (whole_file && !root.has("run"))
    {
        // A phase space sets the history count: its particles x recycle.
    }
    else
    {
        s.run = parse_run(root.child("run"), whole_file);
        check_stop_on(root.child("run"), s.run, s.structures);
    }
    if (auto b = root.optional_child("backend"))
    {
        std::string const name = b->choice({"auto", "gpu", "cpu"});
        s.backend = name == "gpu"   ? Backend::gpu
                    : name == "cpu" ? Backend::cpu
                                    : Backend::automatic;
    }
    if (auto t = root.optional_child("cpu_threads"))
        s.cpu_threads = static_cast<int>(t->integer(0, 4096, "0 uses all cores"));

    std::string const stem = std::filesystem::path(source_name).stem().string();
    if (auto o = root.optional_child("outputs"))
    {
        s.outputs = parse_outputs(*o, base, stem.empty() ? "mcdose" : stem, root.has("structures"));
    }
    else
    {
        s.outputs.dvh = root.has("structures");
        s.outputs.directory = base.empty() ? "." : base;
        s.outputs.name = stem.empty() ? "mcdose" : stem;
    }
    return s;
}

StudyInput load_study(std::string const& path)
{
    return parse_study(read_input_file(path, "study file"), path);
}

int resolve_depth_axis(StudyInput const& study, GridGeometry const& geometry)
{
    if (study.outputs.depth_axis)
        return *study.outputs.depth_axis;
    if (study.sources.empty())
        return 2;
    Real3 const local = geometry.direction_to_local(study.sources.front().direction);
    int best = 2;
    for (int c = 0; c < 3; ++c)
    {
        if (std::fabs(local[c]) > std::fabs(local[best]) + 1e-12)
            best = c;
    }
    return best;
}
} // namespace mcdose
