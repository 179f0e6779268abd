//! The study reader through the API: defaults, examples, and each kind of input error.
#include <gtest/gtest.h>

#include "StudyFixture.hh"
#include "TestMacros.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "study/OutputPlan.hh"
#include "study/StudyChecks.hh"
#include "study/StudyInput.hh"
#include "transport/engine/ElectronTables.hh"

namespace mcdose::test
{
namespace
{
//! The InputError from parsing and checking `j` as file `name` in `dir`.
InputError study_error(std::string const& path)
{
    try
    {
        StudyInput const s = load_study(path);
        check_study(s, nullptr);
    }
    catch (InputError const& e)
    {
        return e;
    }
    ADD_FAILURE() << "expected an InputError for " << path;
    return InputError("", "", "");
}

bool contains(InputError const& e, std::string const& what)
{
    return std::string(e.what()).find(what) != std::string::npos;
}
} // namespace

using StudyTest = StudyFixture;

TEST_F(StudyTest, MinimalStudyGetsDocumentedDefaults)
{
    StudyInput const s = load_study(write_json("mini.json", minimal()));
    EXPECT_EQ(PhantomKind::shapes, s.phantom.kind);
    ASSERT_EQ(1u, s.sources.size());
    EXPECT_EQ(ParticleType::electron, s.sources[0].particle);
    EXPECT_DOUBLE_EQ(20.0, *s.sources[0].energy_MeV);
    EXPECT_DOUBLE_EQ(0.2, s.physics.transport.electron.absorption_MeV);
    EXPECT_DOUBLE_EQ(0.01, s.physics.transport.photon_cutoff_MeV);
    EXPECT_EQ(PhotonTracking::woodcock, s.physics.transport.tracking);
    EXPECT_TRUE(s.physics.transport.electron.condensed_history);
    EXPECT_EQ(Precision::double_, s.physics.precision);
    EXPECT_EQ(RngKind::philox, s.rng.generator);
    EXPECT_EQ(1u, s.rng.seed);
    EXPECT_EQ(TallyMethod::wib, s.tally.method);
    EXPECT_EQ(Backend::automatic, s.backend);
    EXPECT_EQ(1000u, *s.run.histories);
    EXPECT_FALSE(s.run.time_limit_s);
    EXPECT_EQ(dir_.string(), s.outputs.directory);
    EXPECT_EQ("mini", s.outputs.name);
    EXPECT_TRUE(s.outputs.hdf5);
    EXPECT_EQ(ImageFormat::mha, s.outputs.image_format);
    EXPECT_EQ(IfExists::error, s.outputs.if_exists);
    EXPECT_FALSE(s.outputs.rtdose);
    EXPECT_NE(std::string::npos, s.study_json.find("\"histories\""));

    std::vector<std::string> warnings;
    Phantom const p = check_study(s, &warnings);
    EXPECT_TRUE(warnings.empty());
    ASSERT_EQ(2u, p.material_names.size());
    // Nominal catalogue density for water (no density_g_cm3 given).
    EXPECT_FLOAT_EQ(1.0f, p.grid.density_g_cm3().back());
    EXPECT_EQ(2, resolve_depth_axis(s, p.grid.geometry()));
}

TEST_F(StudyTest, TargetUncertaintyGetsATimeLimit)
{
    auto j = minimal();
    j["run"] = {{"target_uncertainty", 0.02}};
    StudyInput const s = load_study(write_json("t.json", j));
    EXPECT_DOUBLE_EQ(0.02, *s.run.target_uncertainty);
    EXPECT_DOUBLE_EQ(0.5, s.run.uncertainty_dose_fraction);
    EXPECT_DOUBLE_EQ(3600, *s.run.time_limit_s);
}

TEST_F(StudyTest, ExamplesAreValid)
{
    for (char const* name :
         {"water_20MeV_electrons.json", "slab_6MeV_photons.json", "synthetic_ct.json"})
    {
        SCOPED_TRACE(name);
        StudyInput const s = load_study(source_dir() + "/examples/" + name);
        std::vector<std::string> warnings;
        Phantom const p = check_study(s, &warnings);
        EXPECT_TRUE(warnings.empty());
        EXPECT_GT(p.grid.num_voxels(), 0u);
    }
    StudyInput const ct = load_study(source_dir() + "/examples/synthetic_ct.json");
    EXPECT_EQ(1, resolve_depth_axis(ct, check_study(ct, nullptr).grid.geometry()));
}

TEST_F(StudyTest, DicomCtExampleKeepsTheSeriesIdentity)
{
    // The same CT as synthetic_ct.mha, as the DICOM series of scripts/make_synthetic_ct.py.
    StudyInput const s = load_study(source_dir() + "/examples/synthetic_ct_dicom.json");
    EXPECT_TRUE(s.outputs.rtdose);
    DicomReference ref;
    Phantom const p = build_study_phantom(s, nullptr, &ref);
    EXPECT_EQ("2.25.262018574310938472616583340191848371711", ref.study_instance_uid);
    EXPECT_EQ("2.25.262018574310938472616583340191848371713", ref.frame_of_reference_uid);
    EXPECT_EQ("2.25.262018574310938472616583340191848371712", ref.series_instance_uid);
    EXPECT_EQ("MCDOSE-SYNTHETIC-CT", ref.patient_id);
    EXPECT_EQ("Synthetic^Thorax", ref.patient_name);
    EXPECT_EQ("20260101", ref.study_date);
    StudyInput const mha = load_study(source_dir() + "/examples/synthetic_ct.json");
    DicomReference none;
    Phantom const q = build_study_phantom(mha, nullptr, &none);
    EXPECT_TRUE(none.frame_of_reference_uid.empty());
    // Same voxels and grid from either file.
    ASSERT_EQ(q.grid.num_voxels(), p.grid.num_voxels());
    for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(q.grid.geometry().origin_cm[c], p.grid.geometry().origin_cm[c], 1e-9);
    EXPECT_EQ(q.grid.material(), p.grid.material());
}

TEST_F(StudyTest, RtDoseOutputIsPlannedAndItsGridChecked)
{
    auto j = minimal();
    j["outputs"] = {{"rtdose", true}, {"name", "r"}};
    StudyInput const s = load_study(write_json("r.json", j));
    EXPECT_TRUE(s.outputs.rtdose);
    int found = 0;
    for (auto const& f : planned_outputs(s.outputs))
    {
        if (f.path.size() > 4 && f.path.substr(f.path.size() - 4) == ".dcm")
        {
            EXPECT_EQ("/outputs/rtdose", f.pointer);
            ++found;
        }
    }
    EXPECT_EQ(2, found);

    j["outputs"]["rtdose"] = "yes";
    InputError const e = study_error(write_json("bad.json", j));
    EXPECT_EQ("/outputs/rtdose", e.pointer()) << e.what();

    // A CT of 70000 columns does not fit DICOM's 16-bit Columns.
    std::vector<float> const water(70000, 0.0f);
    std::string const image = (dir_ / "wide.mha").string();
    write_image(
        image,
        make_axis_aligned_geometry(Int3{{70000, 1, 1}}, Real3{{0.01, 1, 1}}, Real3{{0, 0, 0}}),
        make_span(water));
    j["outputs"]["rtdose"] = true;
    j["phantom"] = {{"type", "ct_image"}, {"image", image}};
    StudyInput const wide = load_study(write_json("wide.json", j));
    try
    {
        check_study(wide, nullptr);
        FAIL() << "a 70000-column grid was accepted for RT Dose";
    }
    catch (InputError const& err)
    {
        EXPECT_EQ("/outputs/rtdose", err.pointer()) << err.what();
        EXPECT_TRUE(contains(err, "\"rtdose\": false")) << err.what();
    }
}

TEST_F(StudyTest, MalformedJsonReportsLineAndColumn)
{
    std::string const path = write("bad.json", "{\n  \"run\": {\"histories\": 10,}\n}\n");
    InputError const e = study_error(path);
    EXPECT_EQ(path, e.file());
    EXPECT_EQ("line 2, column 27", e.pointer()) << e.what();
}

TEST_F(StudyTest, UnknownFieldsSuggestTheClosestName)
{
    auto j = minimal();
    j["sources"][0]["energy_Mev"] = j["sources"][0]["energy_MeV"];
    j["sources"][0].erase("energy_MeV");
    InputError const e = study_error(write_json("typo.json", j));
    EXPECT_EQ("/sources/0/energy_Mev", e.pointer());
    EXPECT_TRUE(contains(e, "did you mean 'energy_MeV'?")) << e.what();

    auto k = minimal();
    k["phisics"] = nlohmann::json::object();
    InputError const f = study_error(write_json("typo2.json", k));
    EXPECT_EQ("/phisics", f.pointer());
    EXPECT_TRUE(contains(f, "did you mean 'physics'?")) << f.what();

    auto m = minimal();
    m["tally"] = {{"method", "wiv"}};
    InputError const g = study_error(write_json("typo3.json", m));
    EXPECT_EQ("/tally/method", g.pointer());
    EXPECT_TRUE(contains(g, "did you mean 'wib'?")) << g.what();
}

TEST_F(StudyTest, UncertaintyIsAutoBatchOrHistory)
{
    // "auto" is the default; "batch" and "history" are accepted.
    auto ok = minimal();
    ok["tally"] = {{"uncertainty", "batch"}};
    TallyInput const batch = load_study(write_json("batch.json", ok)).tally;
    EXPECT_EQ(TallyUncertainty::batch, batch.uncertainty);
    TallyInput const automatic = load_study(write_json("mini.json", minimal())).tally;
    EXPECT_EQ(TallyUncertainty::automatic, automatic.uncertainty);
    ok["tally"] = {{"method", "fx"}, {"uncertainty", "history"}};
    TallyInput const history = load_study(write_json("history.json", ok)).tally;
    EXPECT_EQ(TallyUncertainty::history, history.uncertainty);

    // "auto": history by history where a run can (the CPU backend; not with recycled
    // phase-space particles: PhaseSpaceRun.test.cc), else batches; 10 batches history by
    // history and 100 with the batch method, unless the study gives them.
    StudyInput s = load_study(write_json("mini2.json", minimal()));
    EXPECT_TRUE(uses_history_uncertainty(s, Backend::cpu));
    EXPECT_FALSE(uses_history_uncertainty(s, Backend::gpu));
    s.tally = batch;
    EXPECT_FALSE(uses_history_uncertainty(s, Backend::cpu));
    s.tally = history;
    EXPECT_TRUE(uses_history_uncertainty(s, Backend::gpu)); // refused by the checks
    EXPECT_EQ(10, automatic.run_batches(true));
    EXPECT_EQ(100, automatic.run_batches(false));
    ok["tally"] = {{"batches", 40}};
    EXPECT_EQ(40, load_study(write_json("b40.json", ok)).tally.run_batches(true));

    // Any other value is an ordinary bad choice.
    auto j = minimal();
    j["tally"] = {{"uncertainty", "bach"}};
    InputError const f = study_error(write_json("bach.json", j));
    EXPECT_EQ("/tally/uncertainty", f.pointer());
    EXPECT_TRUE(contains(f, "did you mean 'batch'?")) << f.what();
}

// Each physics option lands in the transport's own options (the run sets only emax_MeV);
// without a "physics" section they are TransportOptions' defaults.
TEST_F(StudyTest, PhysicsOptionsAreTheTransportsOwn)
{
    TransportOptions const defaults;
    StudyInput const mini = load_study(write_json("mini.json", minimal()));
    TransportOptions const& d = mini.physics.transport;
    EXPECT_EQ(defaults.photon_cutoff_MeV, d.photon_cutoff_MeV);
    EXPECT_EQ(defaults.tracking, d.tracking);
    EXPECT_EQ(defaults.emin_MeV, d.emin_MeV);
    EXPECT_EQ(defaults.points_per_decade, d.points_per_decade);
    EXPECT_EQ(defaults.electron.absorption_MeV, d.electron.absorption_MeV);
    EXPECT_EQ(defaults.electron.delta_cut_MeV, d.electron.delta_cut_MeV);
    EXPECT_EQ(defaults.electron.brems_cut_MeV, d.electron.brems_cut_MeV);
    EXPECT_EQ(defaults.electron.max_loss_fraction, d.electron.max_loss_fraction);
    EXPECT_EQ(defaults.electron.max_mfp_fraction, d.electron.max_mfp_fraction);
    EXPECT_EQ(defaults.electron.density_effect, d.electron.density_effect);
    EXPECT_EQ(defaults.electron.discard_brems_photons, d.electron.discard_brems_photons);

    auto j = minimal();
    j["physics"] = {{"electron_cutoff_MeV", 0.5},
                    {"photon_cutoff_MeV", 0.02},
                    {"delta_ray_cut_MeV", 0.3},
                    {"brems_cut_MeV", 0.04},
                    {"max_step_energy_loss", 0.05},
                    {"max_step_transport_mfp", 0.1},
                    {"electron_transport", "local"},
                    {"density_effect", "nominal"},
                    {"bremsstrahlung_photons", "discard"},
                    {"photon_tracking", "siddon"},
                    {"precision", "single"}};
    PhysicsInput const p = load_study(write_json("physics.json", j)).physics;
    EXPECT_EQ(0.5, p.transport.electron.absorption_MeV);
    EXPECT_EQ(0.02, p.transport.photon_cutoff_MeV);
    EXPECT_EQ(0.3, p.transport.electron.delta_cut_MeV);
    EXPECT_EQ(0.04, p.transport.electron.brems_cut_MeV);
    EXPECT_EQ(0.05, p.transport.electron.max_loss_fraction);
    EXPECT_EQ(0.1, p.transport.electron.max_mfp_fraction);
    EXPECT_FALSE(p.transport.electron.condensed_history);
    EXPECT_EQ(DensityEffectModel::nominal, p.transport.electron.density_effect);
    EXPECT_TRUE(p.transport.electron.discard_brems_photons);
    EXPECT_EQ(PhotonTracking::siddon, p.transport.tracking);
    EXPECT_EQ(Precision::single_, p.precision);
}

// outputs.image_format and outputs.if_exists: each spelling read as its choice (and
// spelled back the same), anything else an ordinary bad choice.
TEST_F(StudyTest, OutputChoicesAreReadAsSpelled)
{
    for (ImageFormat f : {ImageFormat::mha, ImageFormat::nrrd, ImageFormat::nii, ImageFormat::none})
    {
        auto j = minimal();
        j["outputs"] = {{"image_format", to_cstring(f)}};
        EXPECT_EQ(f, load_study(write_json("image.json", j)).outputs.image_format);
        EXPECT_EQ(f, to_image_format(to_cstring(f)));
    }
    for (IfExists e : {IfExists::error, IfExists::overwrite, IfExists::increment})
    {
        auto j = minimal();
        j["outputs"] = {{"if_exists", to_cstring(e)}};
        EXPECT_EQ(e, load_study(write_json("exists.json", j)).outputs.if_exists);
        EXPECT_EQ(e, to_if_exists(to_cstring(e)));
    }
    for (TallyUncertainty u :
         {TallyUncertainty::automatic, TallyUncertainty::batch, TallyUncertainty::history})
        EXPECT_EQ(u, to_tally_uncertainty(to_cstring(u)));
    EXPECT_THROW(to_image_format("png"), RuntimeError);
    EXPECT_THROW(to_if_exists("Overwrite"), RuntimeError);
    EXPECT_THROW(to_tally_uncertainty("batches"), RuntimeError);

    auto j = minimal();
    j["outputs"] = {{"image_format", "nrd"}};
    InputError const f = study_error(write_json("nrd.json", j));
    EXPECT_EQ("/outputs/image_format", f.pointer());
    EXPECT_TRUE(contains(f, "did you mean 'nrrd'?")) << f.what();
    j["outputs"] = {{"if_exists", "overwite"}};
    InputError const e = study_error(write_json("overwite.json", j));
    EXPECT_EQ("/outputs/if_exists", e.pointer());
    EXPECT_TRUE(contains(e, "did you mean 'overwrite'?")) << e.what();
}

TEST_F(StudyTest, ValuesOutOfRangeNameTheRange)
{
    auto j = minimal();
    j["sources"][0]["energy_MeV"] = 100;
    InputError const e = study_error(write_json("e.json", j));
    EXPECT_EQ("/sources/0/energy_MeV", e.pointer());
    EXPECT_TRUE(contains(e, "must be in [0.001, 50]")) << e.what();

    auto k = minimal();
    k["phantom"]["grid"]["spacing_cm"][1] = -1;
    InputError const f = study_error(write_json("s.json", k));
    EXPECT_EQ("/phantom/grid/spacing_cm/1", f.pointer());

    auto m = minimal();
    m["run"] = {{"histories", 100}, {"target_uncertainty", 0.01}};
    InputError const g = study_error(write_json("r.json", m));
    EXPECT_EQ("/run", g.pointer());
    EXPECT_TRUE(contains(g, "keep one")) << g.what();

    auto n = minimal();
    n["sources"][0]["direction"] = {0, 0, 0};
    EXPECT_EQ("/sources/0/direction", study_error(write_json("d.json", n)).pointer());

    auto p = minimal();
    p["sources"][0].erase("energy_MeV");
    p["sources"][0]["spectrum"] = {{"edges_MeV", {1, 2, 3}}, {"weights", {1}}};
    InputError const h = study_error(write_json("sp.json", p));
    EXPECT_EQ("/sources/0/spectrum/weights", h.pointer());
    EXPECT_TRUE(contains(h, "expected 2 weights")) << h.what();

    auto q = minimal();
    q["outputs"] = {{"lateral_profiles", {{{"axis", "x"}, {"position_cm", {0, 0, 50}}}}}};
    InputError const i = study_error(write_json("lp.json", q));
    EXPECT_EQ("/outputs/lateral_profiles/0/position_cm", i.pointer());
}

// The electron options' limits come from ElectronOptionLimits for both the
// study parser and validate_electron_options (API users): same bounds, each
// message naming the field.
TEST_F(StudyTest, ElectronOptionLimitsAreSharedWithTheEngine)
{
    auto j = minimal();
    j["physics"] = {{"max_step_energy_loss", 0.3}};
    InputError const e = study_error(write_json("f.json", j));
    EXPECT_EQ("/physics/max_step_energy_loss", e.pointer());
    EXPECT_TRUE(contains(e, "(0, 0.25]")) << e.what();

    auto k = minimal();
    k["physics"] = {{"delta_ray_cut_MeV", 20}};
    InputError const f = study_error(write_json("d.json", k));
    EXPECT_EQ("/physics/delta_ray_cut_MeV", f.pointer());
    EXPECT_TRUE(contains(f, "[0.001, 10]")) << f.what();

    ElectronTransportOptions o;
    o.max_loss_fraction = 0.3;
    try
    {
        validate_electron_options(o);
        ADD_FAILURE() << "max_loss_fraction 0.3 was accepted";
    }
    catch (RuntimeError const& err)
    {
        EXPECT_NE(std::string::npos, std::string(err.what()).find("max_step_energy_loss"))
            << err.what();
        EXPECT_NE(std::string::npos, std::string(err.what()).find("(0, 0.25]")) << err.what();
    }
    o = ElectronTransportOptions{};
    o.delta_cut_MeV = 20;
    EXPECT_THROW(validate_electron_options(o), RuntimeError);
    EXPECT_NO_THROW(validate_electron_options(ElectronTransportOptions{}));
}

TEST_F(StudyTest, UnknownMaterialSuggestsACatalogueName)
{
    auto j = minimal();
    j["phantom"]["background"]["material"] = "watr";
    InputError const e = study_error(write_json("m.json", j));
    EXPECT_EQ("/phantom/background/material", e.pointer());
    EXPECT_TRUE(contains(e, "water")) << e.what();
}

TEST_F(StudyTest, UserMaterialsCanBeUsed)
{
    auto j = minimal();
    j["materials"] = nlohmann::json::parse(
        R"([{"name": "gel", "density_g_cm3": 1.02, "elements": {"H": 0.11, "O": 0.89}}])");
    j["phantom"]["background"]["material"] = "gel";
    StudyInput const s = load_study(write_json("u.json", j));
    Phantom const p = check_study(s, nullptr);
    EXPECT_EQ("gel", p.material_names[0]);
    EXPECT_FLOAT_EQ(1.02f, p.grid.density_g_cm3().back());
}

TEST_F(StudyTest, MissingFilesAreNamed)
{
    InputError const e = study_error((dir_ / "absent.json").string());
    EXPECT_TRUE(contains(e, "cannot open")) << e.what();

    auto j = minimal();
    j["phantom"] = {{"type", "ct_image"}, {"image", "no_such_ct.mha"}};
    InputError const f = study_error(write_json("ct.json", j));
    EXPECT_EQ("/phantom/image", f.pointer());
    EXPECT_TRUE(contains(f, (dir_ / "no_such_ct.mha").string())) << f.what();
}

TEST_F(StudyTest, UnsupportedPixelTypeIsNamed)
{
    // A 2-component MetaImage.
    {
        std::ofstream out(dir_ / "vec.mha", std::ios::binary);
        out << "ObjectType = Image\nNDims = 3\nDimSize = 2 2 2\nElementNumberOfChannels = 2\n"
               "ElementSpacing = 1 1 1\nElementType = MET_SHORT\nElementDataFile = LOCAL\n";
        std::vector<short> data(16, 0);
        out.write(reinterpret_cast<char const*>(data.data()), data.size() * sizeof(short));
    }
    auto j = minimal();
    j["phantom"] = {{"type", "ct_image"}, {"image", "vec.mha"}};
    InputError const e = study_error(write_json("vec.json", j));
    EXPECT_EQ("/phantom/image", e.pointer());
    EXPECT_TRUE(contains(e, "unsupported pixel type")) << e.what();
}

TEST_F(StudyTest, HuOutsideTheCalibrationIsNamed)
{
    GridGeometry const g =
        make_axis_aligned_geometry(Int3{{2, 2, 2}}, Real3{{1, 1, 1}}, Real3{{0, 0, 0}});
    std::vector<float> hu(8, 0.0f);
    hu[7] = 4000;
    write_image((dir_ / "ct.mha").string(), g, make_span(std::as_const(hu)));
    auto j = minimal();
    j["phantom"] = {{"type", "ct_image"}, {"image", "ct.mha"}};
    InputError const e = study_error(write_json("hu.json", j));
    EXPECT_EQ("/phantom/calibration", e.pointer());
    EXPECT_TRUE(contains(e, "outside the calibration")) << e.what();

    // The user extends the curve: now valid.
    j["phantom"]["calibration"] = nlohmann::json::parse(R"({
        "density_curve": [{"hu": -1000, "density_g_cm3": 0.0012}, {"hu": 0, "density_g_cm3": 1.0},
                          {"hu": 4000, "density_g_cm3": 3.0}],
        "material_bins": [{"hu_lo": -1000, "material": "air"}, {"hu_lo": -200, "material": "water"},
                          {"hu_lo": 300, "material": "bone_cortical_icrp"}]})");
    Phantom const p = check_study(load_study(write_json("hu2.json", j)), nullptr);
    EXPECT_EQ("bone_cortical_icrp", p.material_names[p.grid.material()[7]]);
    EXPECT_FLOAT_EQ(3.0f, p.grid.density_g_cm3()[7]);

    // A calibration whose bins go backwards is refused at the bin.
    j["phantom"]["calibration"]["material_bins"][2]["hu_lo"] = -500;
    InputError const f = study_error(write_json("hu3.json", j));
    EXPECT_EQ("/phantom/calibration/material_bins/2/hu_lo", f.pointer());
}

TEST_F(StudyTest, RegisteredChecksRun)
{
    static int calls = 0;
    static bool const registered = register_study_check(
        {"test", [](StudyInput const& s, Phantom const&)
         {
             ++calls;
             if (s.rng.seed == 666)
                 throw InputError(s.study_file, "/rng/seed", "rejected by a registered check");
         }});
    ASSERT_TRUE(registered);
    auto j = minimal();
    check_study(load_study(write_json("ok.json", j)), nullptr);
    EXPECT_EQ(1, calls);
    j["rng"] = {{"seed", 666}};
    EXPECT_EQ("/rng/seed", study_error(write_json("seed.json", j)).pointer());
}
} // namespace mcdose::test
