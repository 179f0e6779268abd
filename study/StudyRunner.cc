//! \file study/StudyRunner.cc
#include "study/StudyRunner.hh"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <future>
#include <iomanip>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <variant>

#include "core/Comm.hh"
#include "core/Config.hh"
#include "core/Constants.hh"
#include "core/Device.hh"
#include "core/Hash.hh"
#include "core/KernelImage.hh"
#include "core/ParallelFor.hh"
#include "dose/DoseHdf5.hh"
#include "dose/Dvh.hh"
#include "dose/ProfileCsv.hh"
#include "phantoms/StructureSet.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "sources/SourceParams.hh"
#include "study/DoseToWater.hh"
#include "study/MemoryPlan.hh"
#include "study/OutputPlan.hh"
#include "study/PhaseSpaceOutput.hh"
#include "study/RunOutputs.hh"
#include "study/StudyChecks.hh"
#include "study/StudyMaterials.hh"
#include "tally/EnergyMask.hh"
#include "transport/engine/TransportInstantiate.hh"

namespace mcdose
{
std::string utc_now_iso8601()
{
    std::time_t const t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::ostringstream os;
    os << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
    return os.str();
}

namespace
{
//! What the sources imply for the physics tables, the FX quantum and the dose in Gy.
struct SourceBounds
{
    double max_kinetic_MeV{0}; //!< largest kinetic energy a source emits (table range)
    //! Largest energy a history brings, 2 m c^2 of a positron's annihilation included
    //! (the FX quantum is set from it).
    double max_primary_MeV{0};
    //! Particles the run represents, if every source says (then dose also in Gy).
    std::optional<double> source_particles;
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

//! The voxel phantom and the material of each of its material indices.
struct StudyPhantom
{
    Phantom phantom;
    std::vector<Material> materials; //!< by MaterialIndex
    DicomReference ct_dicom;         //!< a DICOM CT series' identity (empty otherwise)
};

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

//! Per-GPU copy of the read-only data of every GPU after the first: each
//! params object caches exactly one device copy (the current device's at
//! its first view), so GPU i needs its own. Built on the host here, uploaded
//! by GPU i's host thread.
struct DeviceReplica
{
    std::unique_ptr<VoxelGridParams> grid;
    std::unique_ptr<TransportParams> physics;
};

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

/*!
 * The transport's device memory (handed over by the run), the device copies of the tables
 * and of the phantom freed, then the GPUs released (release_device), on a thread of its
 * own: run_study's outputs need only host memory. Should a call fail, or the thread not
 * start, what is left is released when the process ends.
 */
std::future<void> release_gpus(std::shared_ptr<void> transport_memory,
                               TransportParams const& physics,
                               std::vector<DeviceReplica> const& replicas,
                               VoxelGridParams const& grid, std::vector<int> const& gpus) noexcept
{
    auto release =
        [memory = std::move(transport_memory), &physics, &replicas, &grid, &gpus]() mutable
    {
        try
        {
            activate_device(gpus.front());
            memory.reset();
            physics.free_device_copies();
            grid.free_device_copy();
            for (std::size_t i = 0; i < replicas.size(); ++i)
            {
                activate_device(gpus.at(i + 1));
                replicas[i].physics->free_device_copies();
                replicas[i].grid->free_device_copy();
            }
            for (int g : gpus)
                release_device(g);
        }
        catch (std::exception const&)
        {
        }
    };
    try
    {
        return std::async(std::launch::async, std::move(release));
    }
    catch (std::exception const&)
    {
        return {}; // no thread for it: the GPUs are released when the process ends
    }
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

//! Energy per voxel and its 1 sigma on the phantom's grid (spans into the arguments).
DoseGridData dose_grid_view(Phantom const& phantom, Span<double const> edep_MeV,
                            Span<double const> sigma_MeV)
{
    return mcdose::dose_grid_view(phantom.grid.geometry(), edep_MeV, sigma_MeV,
                                  make_span(phantom.grid.density_g_cm3()),
                                  make_span(phantom.grid.material()));
}

/*!
 * Target uncertainty: batches of fixed size until the mean relative
 * uncertainty over the high-dose voxels of `region` (summarize_region: its
 * voxels above the low-density threshold with dose above the fraction of its
 * D0.03cc) reaches the target (checked after at
 * least 10 batches, so the batch estimate is usable), the time limit passes,
 * or max_histories is reached. `stop_reason` (which must outlive the run) is
 * set when the rule stops the run.
 */
void add_target_uncertainty_rule(StudyInput const& study, Phantom const& phantom,
                                 StructureMask const& region, StopReason& stop_reason,
                                 TransportRunOptions& run_options)
{
    bool const gpu = run_options.backend == Backend::gpu;
    double const target = *study.run.target_uncertainty;
    double const limit_s = study.run.time_limit_s.value_or(3600);
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
    double const fraction = study.run.uncertainty_dose_fraction;
    double const low_density = study.structures.low_density_threshold_g_cm3;
    auto const user_callback = run_options.on_batch;
    run_options.on_batch = [&stop_reason, &phantom, &region, target, limit_s, fraction, low_density,
                            user_callback](TransportProgress const& p)
    {
        if (user_callback && !user_callback(p))
        {
            stop_reason = StopReason::interrupted;
            return false;
        }
        if (p.elapsed_s > limit_s)
        {
            stop_reason = StopReason::time_limit;
            return false;
        }
        if (p.batches_done < 10)
            return true;
        DoseResult const r = p.tally->result();
        DoseGridData const d =
            dose_grid_view(phantom, make_span(r.energy_MeV), make_span(r.energy_sigma_MeV));
        auto const u = summarize_region(d, region, low_density, fraction).mean_relative;
        if (u && *u <= target)
        {
            stop_reason = StopReason::target_uncertainty;
            return false;
        }
        return true;
    };
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

//! The production generators (the baselines are for RNG studies only).
template <class F>
decltype(auto) visit_transport_rng(RngKind kind, F&& f)
{
    switch (kind)
    {
    case RngKind::hybrid_taus:
        return f(EngineTag<HybridTausEngine>{});
    case RngKind::lagged_fibonacci:
        return f(EngineTag<LaggedFibonacciEngine>{});
    case RngKind::philox:
        return f(EngineTag<PhiloxEngine>{});
    default:
        break;
    }
    MCDOSE_VALIDATE(false, << "rng.generator '" << to_cstring(kind)
                           << "' is a baseline for RNG studies only; use philox, hybrid-taus "
                              "or lagged-fibonacci for transport");
    return f(EngineTag<PhiloxEngine>{});
}

//! The phase space a run writes (outputs.phase_space): where, and what it wrote.
struct PhaseSpaceWrite
{
    std::string path; //!< "": none
    std::vector<std::string> comments;
    std::uint64_t written{0}; //!< crossings in the file
    std::uint64_t reruns{0};  //!< batch pieces run again after their buffer overflowed
};

/*!
 * Around each batch piece of a group: load a phase-space source's particles
 * (`mix`, null if none) and empty the crossing buffer (`recorder`, null if none).
 */
template <class Real>
void add_batch_hooks(TransportGroupInputs<Real, SourceMixView<Real>>& in,
                     SourceMixParams<Real>* mix, PhaseSpaceRecorder<Real>* recorder, bool gpu)
{
    using Buffer = typename PhaseSpaceRecorder<Real>::Buffer;
    Buffer* buffer = recorder ? &recorder->add_group(gpu) : nullptr;
    if (!mix && !recorder)
        return;
    in.before_batch = [mix, recorder, buffer, gpu](HistoryRange const& piece,
                                                   TransportView<Real>& physics,
                                                   SourceMixView<Real>& source)
    {
        if (mix)
            source = mix->load_phase_space(piece.begin, piece.end, gpu);
        if (recorder)
            recorder->before_piece(*buffer, piece, physics);
    };
    if (recorder)
        in.after_batch = [recorder, buffer](HistoryRange const&)
        { return recorder->after_piece(*buffer); };
}

//! The study's source samplers in the transport's precision, one per worker group.
using StudySources =
    std::variant<std::vector<SourceMixParams<float>>, std::vector<SourceMixParams<double>>>;

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

/*!
 * The transport, typed by precision, generator and tally method: each worker
 * group gets the tables and source of its own device (`physics` on the CPU or
 * the first GPU, a replica on each other GPU; `study_sources` one per group or
 * one for all). A phase space written goes to `write.path`.
 */
TransportRunResult
run_typed_transport(StudyInput const& study, Phantom const& phantom, TransportParams const& physics,
                    std::vector<DeviceReplica> const& replicas, StudySources& study_sources,
                    TransportRunOptions const& run_options_in, PhaseSpaceWrite& write)
{
    bool const gpu = run_options_in.backend == Backend::gpu;
    TallyMethod const method = study.tally.method;
    bool const phase_space_in = phase_space_source(study) != nullptr;
    return dispatch_precision(
        study.physics.precision,
        [&](auto p)
        {
            using Real = ::mcdose::Real<decltype(p)::value>;
            using Inputs = TransportGroupInputs<Real, SourceMixView<Real>>;
            TransportRunOptions run_options = run_options_in;
            std::unique_ptr<PhaseSpaceRecorder<Real>> recorder;
            if (!write.path.empty())
            {
                recorder = std::make_unique<PhaseSpaceRecorder<Real>>(
                    write.path, *study.outputs.phase_space, phantom.grid.geometry(),
                    write.comments);
                auto const user = run_options.on_batch;
                run_options.on_batch = [rec = recorder.get(), user](TransportProgress const& pr)
                {
                    rec->flush_batch(); // the batch is complete: its crossings go to the file
                    return !user || user(pr);
                };
            }
            auto& sources = std::get<std::vector<SourceMixParams<Real>>>(study_sources);
            // Called on each group's thread with its GPU current (-1 on the CPU).
            std::function<Inputs(int, size_type)> const inputs = [&](int, size_type group)
            {
                std::size_t const i = sources.size() > 1 ? std::size_t(group) : 0;
                TransportParams const& params =
                    gpu && i > 0 ? *replicas.at(i - 1).physics : physics;
                MemSpace const where = gpu ? MemSpace::device : MemSpace::host;
                Inputs in;
                in.physics = params.view<Real>(where);
                in.source = gpu ? sources.at(i).device_view() : sources.at(i).host_view();
                add_batch_hooks<Real>(in, phase_space_in ? &sources.at(i) : nullptr, recorder.get(),
                                      gpu);
                return in;
            };
            auto finish = [&](TransportRunResult r)
            {
                if (recorder)
                {
                    write.written = recorder->commit();
                    write.reruns = recorder->regrown();
                }
                return r;
            };
            return visit_transport_rng(
                run_options.rng.kind,
                [&](auto tag)
                {
                    using Engine = typename decltype(tag)::type;
                    return dispatch_tally_method(
                        method,
                        [&](auto policy)
                        {
                            using Policy = decltype(policy);
                            return finish(
                                run_transport_groups<Real, Engine, Policy, SourceMixView<Real>>(
                                    inputs, method, phantom.grid.num_voxels(), run_options));
                        });
                });
        });
}

//! What ran, where, and how fast.
void summarize_run(TransportRunResult const& run, std::vector<int> const& gpus, bool gpu,
                   StudyRunSummary& summary)
{
    summary.backend = gpu ? "gpu" : "cpu";
    summary.ranks = run.ranks;
    summary.groups = run.groups;
    summary.source_particles_ahead = run.source_particles_ahead;
    summary.resumed_batches = run.first_batch;
    if (gpu)
    {
        auto const infos = device_infos();
        int const first = gpus.empty() ? 0 : gpus.front();
        std::string const name = first < int(infos.size()) ? infos[first].name : "GPU";
        summary.device = gpus.size() > 1 ? std::to_string(gpus.size()) + " x " + name : name;
    }
    else
    {
        summary.device = std::to_string(run.workers) + " CPU threads";
    }
    summary.histories = run.histories;
    summary.complete = run.complete;
    summary.transport_time_s = run.transport_time_s;
    summary.histories_per_s = run.transport_time_s > 0 ? run.histories / run.transport_time_s : 0;
    summary.balance = run.balance;
}

//! 1 / histories (0 if none ran): results are per source particle.
double per_history(std::uint64_t histories)
{
    return histories > 0 ? 1.0 / double(histories) : 0.0;
}

/*!
 * The run's grids per source particle [MeV], scaled in place, and the mask of the voxels
 * with energy: only the voxels of the run's mask are read and scaled (the pages of the
 * others are not touched), on all cores; a voxel whose scaled energy is 0 (an underflow)
 * leaves the mask.
 */
DoseGrids energy_per_particle(DoseGrids&& grids, std::uint64_t histories)
{
    double const per = per_history(histories);
    Span<double> const edep = grids.energy_MeV.span(), sigma = grids.energy_sigma_MeV.span();
    std::vector<std::uint64_t>& mask = grids.has_energy;
    parallel_for_pieces(
        mask.size(), 0,
        [&](size_type w0, size_type w1, size_type)
        {
            for (size_type w = w0; w < w1; ++w)
            {
                for_each_set_bit(mask[w], 64 * w,
                                 [&](size_type v)
                                 {
                                     edep[v] *= per;
                                     if (sigma[v] != 0)
                                         sigma[v] *= per;
                                     if (edep[v] == 0)
                                         mask[w] &= ~(std::uint64_t(1) << (v % 64));
                                 });
            }
        },
        size_type(1024));
    return std::move(grids);
}

//! The dose grid the writers see (spans into `phantom` and `energy`), with the
//! dose-to-water factors when the study asks for dose to water.
DoseGridData make_dose_grid_data(Phantom const& phantom, DoseGrids const& energy,
                                 DoseToWater const& to_water)
{
    DoseGridData data =
        dose_grid_view(phantom, energy.energy_MeV.span(), energy.energy_sigma_MeV.span());
    data.material_names = phantom.material_names;
    data.material_dose_factor = to_water.factors;
    data.has_energy = make_span(energy.has_energy);
    return data;
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

//! "dose to water, in Gy (how the particles were obtained)".
std::string describe_dose(DoseQuantity const& quantity, StudyInput const& study,
                          std::optional<double> source_particles)
{
    std::string d = std::string(quantity.name()) + ", in " +
                    (source_particles ? "Gy" : "Gy per source particle");
    if (source_particles)
        d += " (" + study.absolute.description + ")";
    return d;
}

//! What the outputs record about the run (the settings as the study spells them).
RunMetadata make_run_metadata(StudyInput const& study, StudyRunSummary const& summary,
                              TransportRunResult const& run, std::string const& started_utc,
                              double wall_time_s, StopReason stop_reason,
                              std::optional<double> source_particles)
{
    RunMetadata meta;
    meta.study_file = study.study_file;
    meta.study_json = study.study_json;
    meta.version = std::string(BuildInfo::version) + " (" + BuildInfo::git_describe + ")";
    meta.started_utc = started_utc;
    meta.seed = study.rng.seed;
    meta.rng_generator = to_cstring(study.rng.generator);
    meta.tally_method = to_cstring(study.tally.method);
    meta.uncertainty_method = run.dose.history_moments
                                  ? "history by history"
                                  : std::to_string(run.dose.batches) + " batches";
    meta.precision = to_cstring(study.physics.precision);
    meta.backend = summary.backend;
    meta.device = summary.device;
    if (summary.ranks > 1)
        meta.device += " per rank, " + std::to_string(summary.ranks) + " MPI ranks";
    meta.histories = run.histories;
    meta.source_particles_ahead = run.source_particles_ahead;
    meta.transport_time_s = run.transport_time_s;
    meta.wall_time_s = wall_time_s;
    meta.complete = run.complete;
    meta.stop_reason = run.complete ? stop_reason : StopReason::interrupted;
    meta.uncertainty_reached = summary.uncertainty_reached;
    meta.uncertainty_dose_fraction = study.run.uncertainty_dose_fraction;
    meta.source_particles = source_particles;
    if (source_particles)
        meta.absolute = study.absolute;
    double const per = per_history(run.histories);
    EnergyBalance e = run.balance;
    e.emitted_MeV *= per;
    e.deposited_MeV *= per;
    e.escaped_MeV *= per;
    e.below_cutoff_MeV *= per;
    e.overflow_MeV *= per;
    e.rest_mass_MeV *= per;
    meta.energy = e;
    return meta;
}

/*!
 * The depth-dose curve from the batches' slab sums: with history moments, their
 * total and the history-by-history uncertainty (nullopt with fewer than 2
 * histories); else the batch uncertainty, each batch normalised here per its own
 * histories (nullopt with fewer than 2 batches).
 */
std::optional<DepthDoseCurve> depth_dose_curve(TransportRunResult& run,
                                               TransportRunOptions const& run_options,
                                               GridGeometry const& geometry, int depth_axis)
{
    if (!run.history_slab_sum_sq.empty())
    {
        if (run.histories < 2 || run.batch_digests.empty())
            return std::nullopt;
        std::vector<double> sums(run.history_slab_sum_sq.size(), 0.0);
        for (auto const& batch : run.batch_digests)
        {
            MCDOSE_VALIDATE(batch.size() == sums.size(), << "a batch has " << batch.size()
                                                         << " slab sums, the run " << sums.size());
            for (std::size_t k = 0; k < sums.size(); ++k)
                sums[k] += batch[k];
        }
        return depth_dose_from_history_slabs(geometry, depth_axis, sums, run.history_slab_sum_sq,
                                             run.histories);
    }
    if (run.batch_digests.size() < 2)
        return std::nullopt;
    // Batches of (nearly) equal size.
    for (std::size_t b = 0; b < run.batch_digests.size(); ++b)
    {
        auto const r = run_batch_range(run_options, b);
        double const inv = 1.0 / double(r.end - r.begin);
        for (double& x : run.batch_digests[b])
            x *= inv;
    }
    return depth_dose_from_batch_slabs(geometry, depth_axis, run.batch_digests);
}

//! Write the files the study's outputs section asks for, then the manifest
//! listing them; returns their paths. `started`: the outputs started beside the dose
//! report (StartedOutputs).
std::vector<std::string> write_outputs(OutputInput const& outputs_in, DoseGridData const& data,
                                       RunMetadata& meta, TransportRunResult& run,
                                       TransportRunOptions const& run_options, int depth_axis,
                                       std::vector<std::string>& warnings,
                                       std::string const& phase_space_file, StepClock& clock,
                                       StartedOutputs* started)
{
    OutputInput outputs = outputs_in;
    std::optional<DepthDoseCurve> curve;
    if (outputs.depth_dose)
    {
        curve = depth_dose_curve(run, run_options, data.geometry, depth_axis);
        if (!curve)
        {
            outputs.depth_dose = false;
            warnings.push_back(run.history_slab_sum_sq.empty()
                                   ? "depth-dose CSV skipped: it needs at least 2 completed "
                                     "batches"
                                   : "depth-dose CSV skipped: it needs at least 2 histories");
        }
        clock.mark("depth_dose_curve");
    }
    auto files = write_run_outputs(outputs, data, meta, curve ? &*curve : nullptr, &clock, started);
    if (!phase_space_file.empty())
        files.push_back(phase_space_file); // written during the run
    write_output_manifest(outputs, files, meta.complete);
    files.push_back(manifest_path(outputs));
    return files;
}

/*!
 * The summary over the stop region and the DVH figures of the body and each
 * structure, doses in Gy when the sources give a particle count, else in Gy
 * per particle.
 */
DoseReport make_dose_report(StudyInput const& study, StructureSet const& structures,
                            StructureMask const& region, DoseGridData const& data,
                            std::optional<double> source_particles)
{
    DoseReport report;
    double const scale = source_particles.value_or(1.0);
    report.dose_unit = source_particles ? "Gy" : "Gy per particle";
    RegionSummary r = summarize_region(data, region, structures.low_density_threshold_g_cm3,
                                       study.run.uncertainty_dose_fraction);
    r.near_max *= scale;
    r.low_density_max *= scale;
    r.outside_max *= scale;
    report.summary = r;
    std::vector<double> const& at = study.outputs.dvh_volume_at_doses;
    std::string const& body = study.structures.body;
    if (body == "auto" || body == "threshold" || body == "phantom")
        report.dvhs.push_back(structure_dvh(structures.body, data, scale, at));
    // (else the body is a named structure: its DVH comes under that name)
    for (StructureMask const& s : structures.structures)
        report.dvhs.push_back(structure_dvh(s, data, scale, at));
    return report;
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
    return s;
}

//! Where outputs.phase_space goes (rank 0 of a run that writes); refuses a
//! distributed or resumed run, whose file would miss crossings.
PhaseSpaceWrite plan_phase_space_write(StudyInput const& study,
                                       std::optional<PreparedOutputs> const& prepared,
                                       StudyRunOptions const& options, Comm const& comm)
{
    PhaseSpaceWrite write;
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

//! A run that deposited nothing is almost always a set-up mistake: say so.
void warn_if_no_dose(TransportRunResult const& run, StudyRunSummary& summary)
{
    if (run.histories == 0 || run.balance.deposited_MeV > 0)
        return;
    summary.zero_dose = true;
    summary.warnings.push_back(
        "no energy was deposited in the phantom by " + std::to_string(run.histories) +
        " histories: check that the sources point at the phantom and reach it, and that its "
        "densities are not all 0");
}
} // namespace

namespace
{
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

//! The run summary's line on the phase space written (if any).
void describe_phase_space_output(PhaseSpaceWrite const& write, StudyRunSummary& summary)
{
    if (write.path.empty())
        return;
    summary.phase_space_output = std::to_string(write.written) +
                                 " particles crossing the plane written to '" + write.path + "'";
}

//! What the steps after the transport need from the set-up.
struct RunFacts
{
    StudyInput const& study;
    StudyPhantom const& study_phantom;
    StructureSet const& structures;
    StructureMask const& stop_region;
    DoseToWater const& to_water;
    SourceBounds const& bounds;
    TransportRunOptions const& run_options;
    int depth_axis;
    std::string const& started;
    StopReason const& stop_reason;
    std::string const& phase_space_file;
};

//! The metadata the output files record, as the run stands (`wall_time_s` so far).
RunMetadata run_metadata(RunFacts const& f, StudyRunSummary const& summary,
                         TransportRunResult const& run, double wall_time_s)
{
    RunMetadata meta = make_run_metadata(f.study, summary, run, f.started, wall_time_s,
                                         f.stop_reason, f.bounds.source_particles);
    meta.quantity = f.to_water.quantity;
    meta.warnings = summary.warnings;
    meta.ct_dicom = f.study_phantom.ct_dicom;
    meta.report = summary.report;
    return meta;
}

/*!
 * After the transport: the dose per source particle, the dose report and, where
 * this rank writes (`prepared`), the outputs; each step booked on `clock`. The
 * HDF5 file's grid datasets and the images need nothing of the dose report: they
 * are started on threads of their own while the report runs (which uses no HDF5),
 * so the steps "hdf5" and "images" book only what is left of them when the report
 * is done. `release` (if set) starts the GPUs' release once the report is made:
 * beside the dose grids and the report its driver calls slowed their threads.
 */
void finish_run(RunFacts const& f, StudyRunOptions const& options,
                std::optional<PreparedOutputs> const& prepared, TransportRunResult& run,
                std::function<void()> const& release, StepClock& clock, StudyRunSummary& summary)
{
    StudyInput const& study = f.study;
    DoseGrids const energy =
        energy_per_particle(std::move(*f.run_options.result_grids), run.histories);
    DoseGridData data = make_dose_grid_data(f.study_phantom.phantom, energy, f.to_water);
    // The dose of the voxels with energy, for the report's passes and the files (none
    // where it would not pay: EnergyVoxelTable).
    EnergyVoxelTable const table = energy_voxel_table(data);
    data.energy_table = table.if_made();
    summary.dose_description = describe_dose(f.to_water.quantity, study, f.bounds.source_particles);
    clock.mark("dose_grids");
    if (options.on_dose)
        options.on_dose(data, study);
    std::unique_ptr<StartedOutputs> const started =
        prepared ? std::make_unique<StartedOutputs>(prepared->outputs, data,
                                                    run_metadata(f, summary, run, clock.total_s()))
                 : nullptr;
    summary.report =
        make_dose_report(study, f.structures, f.stop_region, data, f.bounds.source_particles);
    summary.uncertainty_reached = summary.report.summary->mean_relative;
    if (release)
        release();
    clock.mark("dose_report");
    if (prepared)
    {
        RunMetadata meta = run_metadata(f, summary, run, clock.total_s());
        summary.files =
            write_outputs(prepared->outputs, data, meta, run, f.run_options, f.depth_axis,
                          summary.warnings, f.phase_space_file, clock, started.get());
        clock.mark("summary_and_manifest");
    }
    summary.steps = clock.steps();
}
} // namespace

StudyRunSummary run_study(StudyInput const& study_in, StudyRunOptions const& options)
{
    StepClock clock;
    StudyRunSummary summary;
    std::string const started = utc_now_iso8601();
    StudyInput const study = effective_study(study_in, options);
    Comm const& comm = Comm::world();
    bool const writes = options.write_outputs && comm.rank() == 0;

    std::uint64_t const histories = resolve_histories(study, options);
    // "gpu": whether a GPU is usable is found where the GPUs start, beside the phantom's
    // build (the device count starts CUDA's driver: about 0.1 s); "auto" looks now.
    Backend const backend = study.backend == Backend::gpu && MCDOSE_USE_CUDA
                                ? Backend::gpu
                                : resolve_backend(study.backend);
    bool const gpu = backend == Backend::gpu;
    MemoryPlanInput memory{0, backend, 0, options.cpu_groups, comm.size()};
    memory.source_particles_ahead = source_particles_ahead(study, options, backend);
    memory.phase_space_piece = phase_space_piece(study, histories, backend);
    SourceBounds const bounds = source_bounds(study);
    TransportOptions const transport_options =
        make_transport_options(study.physics, bounds.max_kinetic_MeV);
    StartedRun started_run =
        phantom_gpus_and_tables(study, options, comm, transport_options, memory, &summary.warnings);
    StudyPhantom const& study_phantom = *started_run.phantom;
    std::vector<int> const& gpus = started_run.gpus;
    Phantom const& phantom = study_phantom.phantom;
    GridGeometry const& geometry = phantom.grid.geometry();
    clock.mark("phantom");
    StudyCheckOptions check_options;
    check_options.outputs = writes;
    run_study_checks(study, phantom, check_options);
    clock.mark("checks");
    // Structures are read and rasterised before any transport: bad input stops here.
    StructureSet const structures = build_structures(
        study.structures, phantom, study.phantom.kind != PhantomKind::shapes, &summary.warnings);
    StructureMask const& stop_region = *structures.find(study.run.stop_on);
    clock.mark("structures");
    DoseToWater const to_water =
        study_dose_to_water(study, study_phantom.materials, bounds.max_kinetic_MeV);
    summary.warnings.insert(summary.warnings.end(), study.reader_warnings.begin(),
                            study.reader_warnings.end());
    // Outputs are checked and their directory locked before any transport.
    std::optional<PreparedOutputs> prepared;
    if (writes)
        prepared = prepare_outputs(study, study.outputs);
    if (!options.checkpoint_path.empty() && comm.rank() == 0)
        remove_stale_temporaries({options.checkpoint_path});
    clock.mark("outputs_setup");

    TransportRunOptions run_options =
        make_run_options(study, options, backend, gpus, histories, bounds.max_primary_MeV);
    set_batches_per_launch(study, options, memory, gpus, run_options);
    run_options.hand_over_device_memory = options.release_gpus;
    // The result's grids: their pages are mapped where the run writes them (from the GPU,
    // only those of the voxels with energy).
    run_options.result_grids = std::make_shared<DoseGrids>(geometry.num_voxels());
    StopReason stop_reason = StopReason::histories;
    if (histories == 0)
        add_target_uncertainty_rule(study, phantom, stop_region, stop_reason, run_options);
    int const depth_axis = resolve_depth_axis(study, geometry);
    if (study.outputs.depth_dose && options.write_outputs &&
        (run_options.batches >= 2 || run_options.history_uncertainty))
    {
        // The laterally integrated depth dose of each batch, summed where it is folded.
        run_options.batch_slabs.axis = depth_axis;
        for (int a = 0; a < 3; ++a)
            run_options.batch_slabs.dims[a] = size_type(geometry.dims[a]);
    }

    // Before the tables are waited for: a phase-space source reads its first pieces meanwhile.
    StudySources sources = make_study_sources(study, phantom, run_options);
    clock.mark("sources");

    // The tables once (or from the cache), shared by every GPU's params.
    TableCacheResult const tables = started_run.tables.get();
    summary.physics_tables = tables.describe();
    summary.warnings.insert(summary.warnings.end(), tables.warnings.begin(), tables.warnings.end());
    TransportParams const physics(tables.tables, phantom.grid, transport_options);
    std::vector<DeviceReplica> const replicas =
        make_device_replicas(study_phantom, tables, transport_options, gpus.size());
    clock.mark("physics_tables");

    PhaseSpaceWrite phase_space_write = plan_phase_space_write(study, prepared, options, comm);
    describe_phase_space_source(study, summary);

    summary.setup_time_s = clock.total_s();
    TransportRunResult run = run_typed_transport(study, phantom, physics, replicas, sources,
                                                 run_options, phase_space_write);
    sources.emplace<0>(); // their memory (a phase space's pieces) freed before the outputs
    clock.mark_parts("transport_setup",
                     {{"transport", run.batches_s}, {"final_grids", run.final_grids_s}});
    describe_phase_space_output(phase_space_write, summary);
    if (stop_reason == StopReason::interrupted)
        run.complete = false;
    summarize_run(run, gpus, gpu, summary); // the GPUs' names: before they are released
    warn_if_no_dose(run, summary);
    std::future<void> released;
    std::function<void()> release;
    if (gpu && options.release_gpus && !gpus.empty())
        release = [&] {
            released =
                release_gpus(std::move(run.device_memory), physics, replicas, phantom.grid, gpus);
        };

    RunFacts const facts{study,
                         study_phantom,
                         structures,
                         stop_region,
                         to_water,
                         bounds,
                         run_options,
                         depth_axis,
                         started,
                         stop_reason,
                         phase_space_write.path};
    finish_run(facts, options, prepared, run, release, clock, summary);
    return summary;
}
} // namespace mcdose
