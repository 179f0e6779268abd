//! \file study/RunSetup.cc
#include "study/RunSetup.hh"

#include <algorithm>
#include <future>
#include <iomanip>
#include <limits>
#include <sstream>

#include "core/Comm.hh"
#include "core/Config.hh"
#include "core/Constants.hh"
#include "core/Device.hh"
#include "core/Hash.hh"
#include "core/KernelImage.hh"
#include "core/StopRequest.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "study/MemoryPlan.hh"
#include "study/PhaseSpaceOutput.hh"
#include "study/StudyChecks.hh"
#include "study/StudyMaterials.hh"
#include "study/TableCache.hh"

namespace mcdose
{
namespace
{
/*!
 * The phantom, the GPUs and the physics tables of this process, started together (the
 * phantom on the heap: the tables' thread reads it; the tables waited for before the
 * phantom is freed).
 */
struct StartedRun
{
    std::unique_ptr<StudyPhantom const> phantom;
    std::vector<int> gpus;
    std::future<TableCacheResult> tables;
};

//! What the sources imply (run_study_checks has checked them).
SourceBounds source_bounds(StudyInput const& study)
{
    SourceBounds bounds;
    for (SourceInput const& s : study.sources)
    {
        double const e = max_energy_MeV(s);
        bounds.max_kinetic_MeV = std::max(bounds.max_kinetic_MeV, e);
        bounds.max_primary_MeV =
            std::max(bounds.max_primary_MeV,
                     s.phase_space ? s.phase_space->scan.max_history_energy_MeV // weights included
                                   : e + (s.particle == ParticleType::positron
                                              ? 2 * constants::electron_mass_MeV
                                              : 0.0));
    }
    if (!study.sources.empty() && study.sources.front().particles)
    {
        double sum = 0;
        for (SourceInput const& s : study.sources)
            sum += s.particles.value_or(0);
        bounds.source_particles = sum;
    }
    return bounds;
}

//! Histories of a fixed-count run (the command line's, else the study's);
//! 0 means open-ended (a target uncertainty).
std::uint64_t resolve_histories(StudyInput const& study, StudyRunOptions const& options)
{
    std::uint64_t const histories =
        options.histories ? *options.histories : study.run.histories.value_or(0);
    if (phase_space_source(study) && (histories > 0 || !study.run.target_uncertainty))
        return phase_space_histories(study, histories); // default: the whole file
    MCDOSE_VALIDATE(histories > 0 || study.run.target_uncertainty,
                    << "'run': give 'histories' or a 'target_uncertainty'");
    return histories;
}

StudyPhantom build_phantom_and_materials(StudyInput const& study,
                                         std::vector<std::string>* warnings)
{
    DicomReference ct_dicom;
    Phantom phantom = build_study_phantom(study, warnings, &ct_dicom);
    StudyPhantom result{std::move(phantom), {}, std::move(ct_dicom)};
    auto const user = study_user_materials(study);
    for (auto const& name : result.phantom.material_names)
        result.materials.push_back(find_material(name, user));
    return result;
}

//! The GPUs this process drives: --gpus if given; one per rank when several
//! ranks share a node (rank-local index modulo the visible devices); else all.
std::vector<int> resolve_gpus(std::string const& spec, Comm const& comm)
{
    resolve_backend(Backend::gpu); // a usable GPU, or the error that says what to do
    int const visible = device_count();
    std::vector<int> const gpus = !spec.empty() || comm.local_size() == 1
                                      ? select_gpus(spec, visible)
                                      : std::vector<int>{comm.local_rank() % visible};
    // A GPU this build has no code for gets the rebuild option, before any upload.
    for (int g : gpus)
        require_device_code(g);
    return gpus;
}

//! The study's physics options, with tables up to just above the largest source energy.
TransportOptions make_transport_options(PhysicsInput const& physics, double max_kinetic_MeV)
{
    TransportOptions transport_options = physics.transport;
    transport_options.emax_MeV = std::max(0.01, 1.001 * max_kinetic_MeV);
    // Tables start at 1 keV (the default emin), the lowest cut-off the study accepts.
    return transport_options;
}

/*!
 * The phantom and the GPUs of this process, the memory each needs checked before it is
 * allocated (`memory` gets the voxels and the GPUs), and the physics tables started.
 * CUDA's start (the driver, each GPU's context and code: 0.33-0.46 s on H200 hosts) runs
 * on a thread of its own while the phantom is built, so the phantom's host memory is
 * planned with one GPU's share; the GPUs found are checked after it (and the host again
 * for the replicas of several). The tables need only the phantom and the study: they are
 * built (or read from the cache) on a thread of their own from when the phantom is ready,
 * while the GPUs finish starting and the set-up's next steps run.
 */
StartedRun phantom_gpus_and_tables(StudyInput const& study, StudyRunOptions const& options,
                                   Comm const& comm, TransportOptions const& transport_options,
                                   MemoryPlanInput& memory, std::vector<std::string>* warnings)
{
    bool const gpu = memory.backend == Backend::gpu;
    std::future<std::vector<int>> started;
    if (gpu)
        started = std::async(std::launch::async, [&] { return resolve_gpus(options.gpus, comm); });
    memory.gpus = gpu ? 1 : 0;
    // A shape phantom's grid is in the study: refused before anything is allocated.
    std::optional<size_type> const grid = study_grid_voxels(study);
    if (grid)
    {
        memory.voxels = *grid;
        check_host_memory(study, memory);
    }
    StartedRun run;
    run.phantom =
        std::make_unique<StudyPhantom const>(build_phantom_and_materials(study, warnings));
    run.tables = std::async(
        std::launch::async,
        [p = run.phantom.get(), transport_options, cache = options.table_cache]
        {
            return load_or_build_transport_tables(
                transport_table_inputs(p->materials, p->phantom.grid, transport_options), cache);
        });
    run.gpus = gpu ? started.get() : std::vector<int>{};
    memory.gpus = run.gpus.size();
    if (!grid || run.gpus.size() > 1)
    {
        // An image phantom's grid is known once the image is read.
        memory.voxels = run.phantom->phantom.grid.geometry().num_voxels();
        check_host_memory(study, memory);
    }
    check_gpu_memory(study, memory, run.gpus);
    return run;
}

std::vector<DeviceReplica> make_device_replicas(StudyPhantom const& study_phantom,
                                                TableCacheResult const& tables,
                                                TransportOptions const& transport_options,
                                                std::size_t num_gpus)
{
    std::vector<DeviceReplica> replicas(num_gpus == 0 ? 0 : num_gpus - 1);
    VoxelGridParams const& grid = study_phantom.phantom.grid;
    for (auto& r : replicas)
    {
        r.grid = std::make_unique<VoxelGridParams>(grid.geometry(), grid.material(),
                                                   grid.density_g_cm3(), grid.num_materials());
        r.physics = std::make_unique<TransportParams>(tables.tables, *r.grid, transport_options);
    }
    return replicas;
}

std::string hex64(std::uint64_t x)
{
    std::ostringstream os;
    os << std::hex << std::setw(16) << std::setfill('0') << x;
    return os.str();
}

//! How many source particles a run samples at once ahead of the transport
//! (SourceParticles.hh): on a GPU with Philox, unless turned off or the source is a phase
//! space (whose particles are loaded for each batch); else 0.
std::uint64_t source_particles_ahead(StudyInput const& study, StudyRunOptions const& options,
                                     Backend backend)
{
    bool const ahead = backend == Backend::gpu && study.rng.generator == RngKind::philox &&
                       !phase_space_source(study);
    return ahead ? options.source_particles_ahead : 0;
}

//! Batches of a run of `histories` (> 0) whose batches hold whole multiples of
//! `granule` histories (a phase-space particle's uses): the study's, at most one per granule.
std::uint64_t run_batch_count(StudyInput const& study, Backend backend, std::uint64_t histories,
                              std::uint64_t granule)
{
    return std::min<std::uint64_t>(
        std::uint64_t(study.tally.run_batches(uses_history_uncertainty(study, backend))),
        histories / granule);
}

/*!
 * Particles of one batch piece of a phase-space source (0: none): the run's histories (for
 * a run to a target uncertainty its batch_histories, else at most its max_histories or
 * the whole file) over its batches.
 */
std::uint64_t phase_space_piece(StudyInput const& study, std::uint64_t histories, Backend backend)
{
    SourceInput const* ps = phase_space_source(study);
    if (!ps)
        return 0;
    std::uint64_t const recycle = ps->phase_space->recycle;
    if (histories == 0 && study.run.batch_histories > 0)
        return (study.run.batch_histories + recycle - 1) / recycle;
    std::uint64_t const particles =
        histories > 0 ? histories / recycle
                      : std::min(ps->phase_space->scan.transported,
                                 study.run.max_histories.value_or(max_study_histories) / recycle);
    std::uint64_t const batches =
        std::max<std::uint64_t>(1, run_batch_count(study, backend, particles * recycle, recycle));
    return (particles + batches - 1) / batches;
}

//! How to run: backend, threads, GPUs, RNG, history count and batches,
//! checkpoints. An open-ended run gets its stopping rule from
//! add_target_uncertainty_rule.
TransportRunOptions make_run_options(StudyInput const& study, StudyRunOptions const& options,
                                     Backend backend, std::vector<int> const& gpus,
                                     std::uint64_t histories, double max_primary_MeV)
{
    TransportRunOptions run_options;
    run_options.backend = backend;
    run_options.cpu_threads = options.cpu_threads ? *options.cpu_threads : study.cpu_threads;
    run_options.rng.kind = study.rng.generator;
    run_options.rng.seed = study.rng.seed;
    run_options.histories = histories;
    run_options.max_primary_energy_MeV = max_primary_MeV;
    run_options.history_uncertainty = uses_history_uncertainty(study, backend);
    run_options.source_particles_ahead = source_particles_ahead(study, options, backend);
    run_options.on_batch = options.on_batch;
    run_options.stop_requested = options.stop_requested;
    run_options.gpus = gpus;
    run_options.cpu_groups = options.cpu_groups;
    run_options.checkpoint_path = options.checkpoint_path;
    run_options.checkpoint_interval_s = options.checkpoint_interval_s;
    run_options.resume_path = options.resume_path;
    // The study text decides the phantom, physics, source, RNG and tally; the
    // driver adds the effective history counts and settings.
    run_options.input_fingerprint = "study=" + hex64(fnv1a64(study.study_json)) + "\n";
    if (SourceInput const* ps = phase_space_source(study))
        run_options.history_granule = ps->phase_space->recycle; // a particle's uses: one batch
    if (histories > 0)
        run_options.batches =
            run_batch_count(study, backend, histories, run_options.history_granule);
    return run_options;
}

//! Batch grids of one launch: the command line's count, else as many as the GPU's
//! memory holds (a phase space is read and written per batch: one).
void set_batches_per_launch(StudyInput const& study, StudyRunOptions const& options,
                            MemoryPlanInput const& memory, std::vector<int> const& gpus,
                            TransportRunOptions& run_options)
{
    if (phase_space_source(study) || study.outputs.phase_space)
    {
        run_options.max_batches_per_launch = 1;
    }
    else if (options.batches_per_launch)
    {
        run_options.max_batches_per_launch = *options.batches_per_launch;
        run_options.launch_histories = std::numeric_limits<std::uint64_t>::max();
    }
    else
    {
        run_options.max_batches_per_launch = batch_grids_that_fit(study, memory, gpus);
    }
}

/*!
 * The study's source samplers: one per GPU (device tables), one per CPU group for a
 * phase-space source (each group reads its own pieces), else one. A phase-space
 * source starts reading each group's first piece at once (with read-ahead), so that
 * the reading runs beside the physics tables and the transport's set-up; not for a
 * resumed run, whose first batch the checkpoint decides.
 */
StudySources make_study_sources(StudyInput const& study, Phantom const& phantom,
                                TransportRunOptions const& run_options)
{
    bool const gpu = run_options.backend == Backend::gpu;
    bool const phase_space_in = phase_space_source(study) != nullptr;
    std::size_t const copies = gpu              ? std::max<std::size_t>(1, run_options.gpus.size())
                               : phase_space_in ? std::size_t(run_options.cpu_groups)
                                                : 1;
    return dispatch_precision(
        study.physics.precision,
        [&](auto p) -> StudySources
        {
            using Real = ::mcdose::Real<decltype(p)::value>;
            std::vector<SourceMixParams<Real>> sources;
            sources.reserve(copies);
            for (std::size_t i = 0; i < copies; ++i)
                sources.emplace_back(study.sources, phantom.grid.geometry(), &phantom);
            if (!phase_space_in || !run_options.resume_path.empty())
                return sources;
            Comm const& comm = run_options.comm ? *run_options.comm : Comm::world();
            HistoryRange const launch = run_batch_range(run_options, 0);
            for (std::size_t i = 0; i < copies; ++i)
            {
                HistoryRange const piece =
                    group_history_range(launch, comm.size(), comm.rank(), copies, i);
                int const device = !gpu                       ? -1
                                   : run_options.gpus.empty() ? active_device()
                                                              : run_options.gpus[i];
                sources[i].prefetch_phase_space(piece.begin, piece.end, device);
            }
            return sources;
        });
}

//! The dose-to-water factors of the phantom's materials (empty for dose to medium),
//! computed before any transport so that a bad setting costs no run.
DoseToWater study_dose_to_water(StudyInput const& study, std::vector<Material> const& materials,
                                double max_kinetic_MeV)
{
    if (!study.outputs.dose_to_water)
        return {};
    return dose_to_water_factors(materials,
                                 study.outputs.dose_to_water_energy_MeV.value_or(max_kinetic_MeV));
}

//! The study as this run sees it: the command line's overrides applied.
StudyInput effective_study(StudyInput const& study, StudyRunOptions const& options)
{
    StudyInput s = study;
    if (options.backend)
        s.backend = *options.backend;
    if (options.cpu_threads)
        s.cpu_threads = *options.cpu_threads;
    if (options.output_dir)
        s.outputs.directory = *options.output_dir;
    if (options.if_exists)
        s.outputs.if_exists = *options.if_exists;
    else if (!options.resume_path.empty() && outputs_of_interrupted_run(s.outputs))
        s.outputs.if_exists = IfExists::overwrite; // a resumed run replaces its own results
    return s;
}

//! Where outputs.phase_space goes (rank 0 of a run that writes); refuses a
//! distributed or resumed run, whose file would miss crossings.
PhaseSpacePlan plan_phase_space_write(StudyInput const& study,
                                      std::optional<PreparedOutputs> const& prepared,
                                      StudyRunOptions const& options, Comm const& comm)
{
    PhaseSpacePlan write;
    if (!study.outputs.phase_space)
        return write;
    MCDOSE_VALIDATE(comm.size() == 1,
                    << "outputs.phase_space: a run on " << comm.size()
                    << " MPI ranks cannot write one phase space (each rank scores its own "
                       "histories); run on one rank, with several GPUs if needed");
    MCDOSE_VALIDATE(options.resume_path.empty(),
                    << "outputs.phase_space: a resumed run cannot write a phase space (the "
                       "crossings of the batches before the checkpoint are not in it); run "
                       "the study from the start");
    if (!prepared)
        return write;
    write.path = phase_space_output_path(prepared->outputs);
    write.comments = {"mcdose " + std::string(BuildInfo::version) +
                          ": particles crossing a plane "
                          "along its normal; phantom coordinates (cm), MeV",
                      "study: " + study.study_file, "seed: " + std::to_string(study.rng.seed)};
    return write;
}

//! A phase-space source's particles used and skipped, in the summary (and a warning when
//! some were skipped).
void describe_phase_space_source(StudyInput const& study, StudyRunSummary& summary)
{
    SourceInput const* ps = phase_space_source(study);
    if (!ps)
        return;
    PhaseSpaceScan const& scan = ps->phase_space->scan;
    std::string const line = describe_scan(scan, ps->phase_space->file);
    summary.phase_space_source = line;
    if (!scan.skipped.empty() || scan.below_min > 0)
        summary.warnings.push_back(line);
}

//! The study's own batches of a run to a target uncertainty: batches of fixed size up to a
//! maximum (the stop rule, RunTransport.cc, ends it); a phase space's particles whole in a
//! batch and used at most `recycle` times.
void plan_open_ended_batches(StudyInput const& study, TransportRunOptions& run_options)
{
    bool const gpu = run_options.backend == Backend::gpu;
    run_options.batch_histories = study.run.batch_histories > 0 ? study.run.batch_histories
                                  : gpu                         ? 1000000
                                                                : 20000;
    run_options.max_histories =
        study.run.max_histories.value_or(run_options.batch_histories * std::uint64_t(1000000));
    run_options.max_histories = std::max(run_options.max_histories, run_options.batch_histories);
    if (SourceInput const* ps = phase_space_source(study))
    {
        // Whole particles per batch, and no particle used more than `recycle` times.
        std::uint64_t const g = ps->phase_space->recycle;
        std::uint64_t const all = ps->phase_space->scan.transported * g;
        run_options.batch_histories = std::min(all, (run_options.batch_histories + g - 1) / g * g);
        run_options.max_histories = std::min(all, run_options.max_histories);
        run_options.max_histories -= run_options.max_histories % run_options.batch_histories;
    }
}

/*!
 * The checks, the transport's choice, the structures, the dose-to-water factors and the
 * outputs' directory locked: bad input stops here, before any transport.
 */
void check_and_prepare(StudyInput const& study, StudyRunOptions const& options, StepClock& clock,
                       RunSetup& setup, StudyRunSummary& summary)
{
    Phantom const& phantom = setup.phantom();
    StudyCheckOptions check_options;
    check_options.outputs = setup.writes;
    run_study_checks(study, phantom, check_options);
    setup.choice = study_transport_choice(study);
    clock.mark("checks");
    poll_stop_request("the set-up (checks)");
    // Structures are read and rasterised before any transport: bad input stops here.
    setup.structures = std::make_unique<StructureSet const>(build_structures(
        study.structures, phantom, study.phantom.kind != PhantomKind::shapes, &summary.warnings));
    setup.stop_region = setup.structures->find(study.run.stop_on);
    clock.mark("structures");
    poll_stop_request("the set-up (structures)");
    setup.to_water =
        study_dose_to_water(study, setup.study_phantom->materials, setup.bounds.max_kinetic_MeV);
    summary.warnings.insert(summary.warnings.end(), study.reader_warnings.begin(),
                            study.reader_warnings.end());
    // Outputs are checked and their directory locked before any transport.
    if (!options.checkpoint_path.empty())
    {
        check_extra_output(study, study.outputs, options.checkpoint_path, "--checkpoint file",
                           setup.writes);
    }
    if (setup.writes)
        setup.prepared = prepare_outputs(study, study.outputs);
    if (!options.checkpoint_path.empty() && Comm::world().rank() == 0)
        remove_stale_temporaries({options.checkpoint_path});
    clock.mark("outputs_setup");
    poll_stop_request("the set-up (outputs setup)");
}

/*!
 * The batches of the run: how many one launch fills, a run to a target uncertainty's
 * batches, the result's grids, and the depth dose's slab sums per batch.
 */
void plan_run_batches(StudyInput const& study, StudyRunOptions const& options,
                      MemoryPlanInput const& memory, std::uint64_t histories, RunSetup& setup)
{
    TransportRunOptions& run_options = setup.run_options;
    GridGeometry const& geometry = setup.phantom().grid.geometry();
    set_batches_per_launch(study, options, memory, setup.gpus, run_options);
    run_options.hand_over_device_memory = options.release_gpus;
    // The result's grids: their pages are mapped where the run writes them (from the GPU,
    // only those of the voxels with energy).
    run_options.result_grids = std::make_shared<DoseGrids>(geometry.num_voxels());
    if (histories == 0)
        plan_open_ended_batches(study, run_options);
    setup.depth_axis = resolve_depth_axis(study, geometry);
    if (study.outputs.depth_dose && options.write_outputs &&
        (run_options.batches >= 2 || run_options.history_uncertainty))
    {
        // The laterally integrated depth dose of each batch, summed where it is folded.
        run_options.batch_slabs.axis = setup.depth_axis;
        for (int a = 0; a < 3; ++a)
            run_options.batch_slabs.dims[a] = size_type(geometry.dims[a]);
    }
    // What each batch keeps of the structures, whose spread gives their figures' sigmas.
    StructureBatchFigures const figures = structure_batch_figures(setup);
    if (figures.any())
    {
        run_options.batch_figures = figures;
        run_options.batch_figures_first = figures.first();
        run_options.batch_figures_count = figures.count();
    }
}
} // namespace

std::vector<StructureMask const*> dvh_structures(StudyInput const& study,
                                                 StructureSet const& structures)
{
    std::vector<StructureMask const*> result;
    std::string const& body = study.structures.body;
    if (body == "auto" || body == "threshold" || body == "phantom")
        result.push_back(&structures.body);
    // (else the body is a named structure: its DVH comes under that name)
    for (StructureMask const& s : structures.structures)
        result.push_back(&s);
    return result;
}

StructureBatchFigures structure_batch_figures(RunSetup const& setup)
{
    DoseGridData materials = dose_grid_view(setup.phantom(), {}, {});
    materials.material_dose_factor = setup.to_water.factors;
    // Only in a run of few fixed batches: bounded memory.
    TransportRunOptions const& run = setup.run_options;
    bool const few = run.histories > 0 && run.batches >= 2 && run.batches <= max_bootstrap_batches;
    return {materials, dvh_structures(setup.study(), *setup.structures),
            few ? max_bootstrap_voxels : 0};
}

//! Energy per voxel and its 1 sigma on the phantom's grid (spans into the arguments).
DoseGridData dose_grid_view(Phantom const& phantom, Span<double const> edep_MeV,
                            Span<double const> sigma_MeV)
{
    return mcdose::dose_grid_view(phantom.grid.geometry(), edep_MeV, sigma_MeV,
                                  make_span(phantom.grid.density_g_cm3()),
                                  make_span(phantom.grid.material()));
}

RunSetup set_up_run(StudyInput const& study_in, StudyRunOptions const& options, StepClock& clock,
                    StudyRunSummary& summary)
{
    RunSetup setup;
    setup.started_utc = utc_now_iso8601();
    setup.study_input = std::make_unique<StudyInput const>(effective_study(study_in, options));
    StudyInput const& study = setup.study();
    Comm const& comm = Comm::world();
    setup.writes = options.write_outputs && comm.rank() == 0;

    std::uint64_t const histories = resolve_histories(study, options);
    // "gpu": whether a GPU is usable is found where the GPUs start, beside the phantom's
    // build (the device count starts CUDA's driver: about 0.1 s); "auto" looks now.
    setup.backend = study.backend == Backend::gpu && MCDOSE_USE_CUDA
                        ? Backend::gpu
                        : resolve_backend(study.backend);
    MemoryPlanInput memory{0, setup.backend, 0, options.cpu_groups, comm.size()};
    memory.source_particles_ahead = source_particles_ahead(study, options, setup.backend);
    memory.phase_space_piece = phase_space_piece(study, histories, setup.backend);
    setup.bounds = source_bounds(study);
    TransportOptions const transport_options =
        make_transport_options(study.physics, setup.bounds.max_kinetic_MeV);
    StartedRun started_run =
        phantom_gpus_and_tables(study, options, comm, transport_options, memory, &summary.warnings);
    // The tables' thread reads the phantom where it is on the heap.
    setup.study_phantom = std::move(started_run.phantom);
    Phantom const& phantom = setup.phantom();
    setup.gpus = started_run.gpus;
    clock.mark("phantom");
    poll_stop_request("the set-up (phantom)");
    check_and_prepare(study, options, clock, setup, summary);

    setup.run_options = make_run_options(study, options, setup.backend, setup.gpus, histories,
                                         setup.bounds.max_primary_MeV);
    plan_run_batches(study, options, memory, histories, setup);
    // Before the tables are waited for: a phase-space source reads its first pieces meanwhile.
    setup.sources = make_study_sources(study, phantom, setup.run_options);
    clock.mark("sources");
    poll_stop_request("the set-up (sources)");

    // The tables once (or from the cache), shared by every GPU's params.
    TableCacheResult const tables = started_run.tables.get();
    summary.physics_tables = tables.describe();
    summary.warnings.insert(summary.warnings.end(), tables.warnings.begin(), tables.warnings.end());
    setup.physics =
        std::make_unique<TransportParams const>(tables.tables, phantom.grid, transport_options);
    setup.replicas =
        make_device_replicas(*setup.study_phantom, tables, transport_options, setup.gpus.size());
    clock.mark("physics_tables");

    setup.phase_space_out = plan_phase_space_write(study, setup.prepared, options, comm);
    describe_phase_space_source(study, summary);
    summary.setup_time_s = clock.total_s();
    return setup;
}
} // namespace mcdose
