//! \file study/StudyChecks.cc
#include "study/StudyChecks.hh"

#include <sstream>

#include "core/Config.hh"
#include "core/Device.hh"
#include "dose/RtDose.hh"
#include "io/InputError.hh"
#include "phantoms/PhantomBuilder.hh"
#include "phantoms/StructureSet.hh"
#include "sources/BeamGeometry.hh"
#include "sources/PlanSource.hh"
#include "sources/SourceParams.hh"
#include "study/OutputPlan.hh"
#include "study/PhaseSpaceOutput.hh"
#include "study/StudyMaterials.hh"
#include "transport/engine/TransportEngines.hh"

namespace mcdose
{
namespace
{
std::vector<StudyCheck>& checks()
{
    static std::vector<StudyCheck> c;
    return c;
}

//! A charged source needs condensed history; `particles` on every source or none.
void check_sources(StudyInput const& study)
{
    MCDOSE_VALIDATE(!study.sources.empty(), << "'sources' is empty; give at least one source");
    bool const first_has_particles = study.sources.front().particles.has_value();
    for (std::size_t i = 0; i < study.sources.size(); ++i)
    {
        SourceInput const& s = study.sources[i];
        if (s.particle != ParticleType::photon &&
            !study.physics.transport.electron.condensed_history)
        {
            throw InputError(study.study_file, s.pointer + "/particle",
                             std::string("'") + to_cstring(s.particle) +
                                 "' sources need \"electron_transport\": \"condensed\" in "
                                 "'physics' (with \"local\" a source electron would deposit all "
                                 "its energy at its entry point)");
        }
        if (s.particles.has_value() != first_has_particles)
        {
            SourceInput const& with = first_has_particles ? study.sources.front() : s;
            SourceInput const& without = first_has_particles ? s : study.sources.front();
            throw InputError(study.study_file, s.pointer + "/particles",
                             "'particles' is given on " + with.pointer + " but not on " +
                                 without.pointer +
                                 "; give it for every source (the dose in Gy needs them all) "
                                 "or for none");
        }
    }
}

void check_rng(StudyInput const& study)
{
    RngKind const g = study.rng.generator;
    if (!is_transport_generator(g))
    {
        throw InputError(study.study_file, "/rng/generator",
                         std::string("'") + to_cstring(g) + "' " + transport_generator_advice());
    }
}

} // namespace

TransportChoice study_transport_choice(StudyInput const& study)
{
    check_rng(study);
    return make_transport_choice(study.physics.precision, study.rng.generator, study.tally.method);
}

namespace
{
//! A phase-space source whose particles are used more than once (or 0 without one).
std::uint32_t phase_space_recycle(StudyInput const& study)
{
    SourceInput const* ps = phase_space_source(study);
    return ps && ps->phase_space->recycle > 1 ? ps->phase_space->recycle : 0;
}

//! History by history needs one thread to own a history: the CPU backend
//! (docs/tally.md says why not on a GPU), and independent histories.
void check_uncertainty(StudyInput const& study)
{
    if (study.tally.uncertainty != TallyUncertainty::history)
        return;
    if (std::uint32_t const recycle = phase_space_recycle(study))
    {
        throw InputError(study.study_file, "/tally/uncertainty",
                         "\"history\" (history-by-history) takes each history as independent, "
                         "but the phase-space source uses each particle " +
                             std::to_string(recycle) +
                             " times (recycle), whose uses are correlated: the estimate would "
                             "be too small; use the batch method (\"uncertainty\": \"batch\" "
                             "or \"auto\", which keep a particle's uses in one batch) or "
                             "recycle 1");
    }
    Backend const backend =
        study.backend == Backend::gpu ? Backend::gpu : resolve_backend(study.backend);
    if (backend != Backend::cpu)
    {
        throw InputError(study.study_file, "/tally/uncertainty",
                         "\"history\" (history-by-history) runs on the CPU backend only, and "
                         "this run would use the GPU; set \"backend\": \"cpu\" or use the batch "
                         "method (\"uncertainty\": \"batch\", docs/tally.md)");
    }
}

void check_profile_points(StudyInput const& study, Phantom const& phantom)
{
    GridGeometry const& g = phantom.grid.geometry();
    auto const& profiles = study.outputs.lateral_profiles;
    for (std::size_t i = 0; i < profiles.size(); ++i)
    {
        Real3 const& p = profiles[i].position_cm;
        if (g.find_voxel(p) == outside_grid)
        {
            std::ostringstream os;
            os << "point (" << p[0] << ", " << p[1] << ", " << p[2]
               << ") cm is outside the phantom; choose a point inside the grid";
            throw InputError(study.study_file,
                             "/outputs/lateral_profiles/" + std::to_string(i) + "/position_cm",
                             os.str());
        }
    }
}
//! An RT Dose file holds fewer than 2^30 voxels of 32 bits (2^31 of 16 bits) and at most
//! 65535 rows and columns.
void check_rtdose_grid(StudyInput const& study, Phantom const& phantom)
{
    GridGeometry const& g = phantom.grid.geometry();
    int const bits = study.outputs.rtdose_bits;
    if (!study.outputs.rtdose || (g.num_voxels() <= max_rt_dose_voxels(bits) &&
                                  g.dims[0] <= max_rt_dose_rows && g.dims[1] <= max_rt_dose_rows))
    {
        return;
    }
    std::ostringstream os;
    os << "the phantom's grid (" << g.dims[0] << " x " << g.dims[1] << " x " << g.dims[2]
       << " voxels) does not fit one RT Dose file of " << bits << "-bit pixels (at most "
       << max_rt_dose_voxels(bits)
       << " voxels, 65535 rows and 65535 columns); set \"rtdose\": false and use the HDF5 "
       << "output, use a coarser grid" << (bits == 32 ? ", or \"rtdose_bits\": 16" : "");
    throw InputError(study.study_file, "/outputs/rtdose", os.str());
}

//! Volume sources: each emits from at least one voxel of the phantom (material, region and
//! activity image read and checked; errors name the source's field). Beams: the field
//! reaches the phantom. Plans: they fit their machine and the CT's Frame of Reference.
void check_volume_sources(StudyInput const& study, Phantom const& phantom)
{
    for (SourceInput const& s : study.sources)
    {
        if (s.kind == SourceKind::volume && s.volume)
            volume_emission_weights(*s.volume, phantom, s.pointer);
        if (s.kind == SourceKind::beam && s.beam)
            check_beam_reaches_grid(s, phantom.grid.geometry());
        if (s.kind == SourceKind::rt_plan && s.plan)
            build_plan_tables(*s.plan, phantom.grid.geometry(), s.pointer,
                              phantom.frame_of_reference_uid);
    }
}
} // namespace

bool register_study_check(StudyCheck check)
{
    checks().push_back(std::move(check));
    return true;
}

std::vector<StudyCheck> const& registered_study_checks()
{
    return checks();
}

bool uses_history_uncertainty(StudyInput const& study, Backend backend)
{
    if (study.tally.uncertainty == TallyUncertainty::automatic)
        return backend == Backend::cpu && phase_space_recycle(study) == 0;
    return study.tally.uncertainty == TallyUncertainty::history;
}

Backend resolve_backend(Backend requested)
{
    if (requested == Backend::automatic)
        return device_count() > 0 ? Backend::gpu : Backend::cpu;
    if (requested == Backend::gpu)
    {
        MCDOSE_VALIDATE(MCDOSE_USE_CUDA, << "backend 'gpu' requested but mcdose was built "
                                            "without CUDA; use 'cpu' or 'auto'");
        MCDOSE_VALIDATE(device_count() > 0, << "backend 'gpu' requested but no GPU is usable ("
                                            << no_device_reason() << "); use 'cpu' or 'auto'");
    }
    return requested;
}

Phantom build_study_phantom(StudyInput const& study, std::vector<std::string>* warnings,
                            DicomReference* ct_dicom)
{
    auto user = study_user_materials(study);
    check_phantom_materials(study, user);
    return build_phantom(study.phantom, nominal_density_lookup(std::move(user)), warnings,
                         ct_dicom);
}

void run_study_checks(StudyInput const& study, Phantom const& phantom,
                      StudyCheckOptions const& options)
{
    check_sources(study);
    check_volume_sources(study, phantom);
    check_phase_space_sources(study);
    check_phase_space_output(study, phantom.grid.geometry());
    check_rng(study);
    check_uncertainty(study);
    resolve_backend(study.backend);
    if (options.outputs)
    {
        check_profile_points(study, phantom);
        check_rtdose_grid(study, phantom);
        check_outputs(study, study.outputs);
    }
    for (auto const& c : registered_study_checks())
        c.check(study, phantom);
}

Phantom check_study(StudyInput const& study, std::vector<std::string>* warnings)
{
    Phantom phantom = build_study_phantom(study, warnings);
    run_study_checks(study, phantom);
    // The structures as run_study builds them before transport (it keeps them).
    build_structures(study.structures, phantom, study.phantom.kind != PhantomKind::shapes,
                     warnings);
    return phantom;
}
} // namespace mcdose
