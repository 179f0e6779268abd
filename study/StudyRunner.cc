//! \file study/StudyRunner.cc
#include "study/StudyRunner.hh"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include "core/Comm.hh"
#include "core/Config.hh"
#include "core/Constants.hh"
#include "core/Device.hh"
#include "core/Hash.hh"
#include "dose/ProfileCsv.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "sources/SourceParams.hh"
#include "study/RunOutputs.hh"
#include "study/StudyMaterials.hh"
#include "transport/engine/TransportInstantiate.hh"

namespace mcdose
{
namespace
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

//! Largest kinetic energy the source can emit [MeV].
double max_source_energy_MeV(SourceInput const& s)
{
    if (s.energy_MeV)
        return *s.energy_MeV;
    MCDOSE_VALIDATE(s.spectrum && !s.spectrum->edges_MeV.empty(),
                    << s.pointer << ": give 'energy_MeV' or a 'spectrum'");
    return s.spectrum->edges_MeV.back();
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

//! The GPUs this process drives: --gpus if given; one per rank when several
//! ranks share a node (rank-local index modulo the visible devices); else all.
std::vector<int> resolve_gpus(std::string const& spec, Comm const& comm)
{
    int const visible = device_count();
    if (!spec.empty() || comm.local_size() == 1)
        return select_gpus(spec, visible);
    return {comm.local_rank() % visible};
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

std::string hex64(std::uint64_t x)
{
    std::ostringstream os;
    os << std::hex << std::setw(16) << std::setfill('0') << x;
    return os.str();
}
} // namespace

StudyRunSummary run_study(StudyInput const& study, StudyRunOptions const& options)
{
    auto const t0 = std::chrono::steady_clock::now();
    StudyRunSummary summary;
    std::string const started = utc_now_iso8601();

    // Sources: any number, each history draws one (SourceMixParams).
    MCDOSE_VALIDATE(!study.sources.empty(), << "'sources' is empty; give at least one source");
    double max_primary_MeV = 0; // largest energy a history can bring (FX quantum, tables)
    double max_kinetic_MeV = 0;
    for (SourceInput const& s : study.sources)
    {
        MCDOSE_VALIDATE(s.particle == ParticleType::photon || study.physics.condensed_history,
                        << s.pointer << "/particle: '" << to_cstring(s.particle)
                        << "' sources need \"electron_transport\": \"condensed\" in 'physics' "
                           "(with \"local\" a source electron would deposit all its energy at "
                           "its entry point)");
        double const e = max_source_energy_MeV(s);
        max_kinetic_MeV = std::max(max_kinetic_MeV, e);
        max_primary_MeV = std::max(
            max_primary_MeV,
            e + (s.particle == ParticleType::positron ? 2 * constants::electron_mass_MeV : 0.0));
    }
    std::optional<double> source_particles; // what the run represents, if every source says
    if (study.sources.front().particles)
    {
        double sum = 0;
        for (SourceInput const& s : study.sources)
            sum += s.particles.value_or(0);
        source_particles = sum;
    }
    std::uint64_t const histories =
        options.histories ? *options.histories : study.run.histories.value_or(0);
    MCDOSE_VALIDATE(histories > 0 || study.run.target_uncertainty,
                    << "'run': give 'histories' or a 'target_uncertainty'");

    // Phantom and materials.
    auto const user = study_user_materials(study);
    check_phantom_materials(study, user);
    Phantom phantom = build_phantom(study.phantom, nominal_density_lookup(user), &summary.warnings);
    std::vector<Material> materials;
    for (auto const& name : phantom.material_names)
        materials.push_back(find_material(name, user));

    Backend const backend = resolve_backend(options.backend ? *options.backend : study.backend);
    bool const gpu = backend == Backend::gpu;

    TransportOptions popts;
    popts.emax_MeV = std::max(0.01, 1.001 * max_kinetic_MeV);
    popts.photon_cutoff_MeV = study.physics.photon_cutoff_MeV;
    popts.tracking = study.physics.woodcock ? PhotonTracking::woodcock : PhotonTracking::siddon;
    auto& eopts = popts.electron;
    eopts.condensed_history = study.physics.condensed_history;
    eopts.absorption_MeV = study.physics.electron_cutoff_MeV;
    eopts.delta_cut_MeV = study.physics.delta_ray_cut_MeV;
    eopts.brems_cut_MeV = study.physics.brems_cut_MeV;
    eopts.max_loss_fraction = study.physics.max_step_energy_loss;
    eopts.max_mfp_fraction = study.physics.max_step_transport_mfp;
    // Tables start at 1 keV (the default emin), the lowest cut-off the study accepts.
    TransportParams physics(materials, phantom.grid, popts);
    Comm const& comm = Comm::world();
    std::vector<int> const gpus = gpu ? resolve_gpus(options.gpus, comm) : std::vector<int>{};
    std::vector<DeviceReplica> replicas(gpus.empty() ? 0 : gpus.size() - 1);
    for (auto& r : replicas)
    {
        GridGeometry const& g = phantom.grid.geometry();
        r.grid = std::make_unique<VoxelGridParams>(
            g, phantom.grid.material(), phantom.grid.density_g_cm3(), phantom.grid.num_materials());
        r.physics = std::make_unique<TransportParams>(materials, *r.grid, popts);
    }

    GridGeometry const& geo = phantom.grid.geometry();
    TransportRunOptions ropts;
    ropts.backend = backend;
    ropts.cpu_threads = options.cpu_threads ? *options.cpu_threads : study.cpu_threads;
    ropts.rng.kind = to_rng_kind(study.rng.generator);
    ropts.rng.seed = study.rng.seed;
    ropts.histories = histories;
    ropts.max_primary_energy_MeV = max_primary_MeV; // incl. 2 m c^2 of a positron's annihilation
    ropts.on_batch = options.on_batch;
    ropts.gpus = gpus;
    ropts.cpu_groups = options.cpu_groups;
    ropts.checkpoint_path = options.checkpoint_path;
    ropts.checkpoint_interval_s = options.checkpoint_interval_s;
    ropts.resume_path = options.resume_path;
    // The study text decides the phantom, physics, source, RNG and tally; the
    // driver adds the effective history counts and settings.
    ropts.input_fingerprint = "study=" + hex64(fnv1a64(study.study_json)) + "\n";
    std::string stop_reason = "histories";
    if (histories > 0)
    {
        ropts.batches = std::min<std::uint64_t>(std::max(1, study.tally.batches), histories);
    }
    else
    {
        // Target uncertainty: batches of fixed size until the mean relative
        // uncertainty over the high-dose voxels reaches the target (checked
        // after at least 10 batches, so the batch estimate is usable), the time
        // limit passes, or max_histories is reached.
        double const target = *study.run.target_uncertainty;
        double const limit_s = study.run.time_limit_s.value_or(3600);
        ropts.batch_histories = study.run.batch_histories > 0 ? study.run.batch_histories
                                : gpu                         ? 1000000
                                                              : 20000;
        ropts.max_histories =
            study.run.max_histories.value_or(ropts.batch_histories * std::uint64_t(1000000));
        ropts.max_histories = std::max(ropts.max_histories, ropts.batch_histories);
        double const fraction = study.run.uncertainty_dose_fraction;
        auto const user_cb = options.on_batch;
        ropts.on_batch = [&, target, limit_s, fraction, user_cb](TransportProgress const& p)
        {
            if (user_cb && !user_cb(p))
            {
                stop_reason = "interrupted";
                return false;
            }
            if (p.elapsed_s > limit_s)
            {
                stop_reason = "time_limit";
                return false;
            }
            if (p.batches_done < 10)
                return true;
            DoseResult const r = p.tally->result();
            DoseGridData d;
            d.geometry = geo;
            d.edep_MeV = make_span(r.energy_MeV);
            d.edep_sigma_MeV = make_span(r.energy_sigma_MeV);
            d.density_g_cm3 = make_span(phantom.grid.density_g_cm3());
            d.material = make_span(phantom.grid.material());
            auto const u = mean_relative_uncertainty(d, fraction);
            if (u && *u <= target)
            {
                stop_reason = "target_uncertainty";
                return false;
            }
            return true;
        };
    }

    int const depth_axis = resolve_depth_axis(study, geo);
    if (study.outputs.depth_dose && options.write_outputs && ropts.batches >= 2)
        ropts.batch_digest = [&](std::vector<double> const& e)
        { return laterally_integrate(geo, depth_axis, make_span(e)); };

    TallyMethod const method = to_tally_method(study.tally.method);
    auto const t_setup = std::chrono::steady_clock::now();
    TransportRunResult run = dispatch_precision(
        study.physics.precision,
        [&](auto p)
        {
            using Real = ::mcdose::Real<decltype(p)::value>;
            using Inputs = TransportGroupInputs<Real, SourceMixView<Real>>;
            std::vector<SourceMixParams<Real>>
                sources; // one per GPU (device tables), one on the CPU
            sources.reserve(std::max<std::size_t>(1, gpus.size()));
            for (std::size_t i = 0; i < std::max<std::size_t>(1, gpus.size()); ++i)
                sources.emplace_back(study.sources, geo);
            // Called on each group's thread with its GPU current (-1 on the CPU).
            std::function<Inputs(int)> const inputs = [&](int device)
            {
                std::size_t const i =
                    gpu ? std::size_t(std::find(gpus.begin(), gpus.end(), device) - gpus.begin())
                        : 0;
                TransportParams const& p = i == 0 ? physics : *replicas.at(i - 1).physics;
                MemSpace const where = gpu ? MemSpace::device : MemSpace::host;
                return Inputs{p.view<Real>(where),
                              gpu ? sources.at(i).device_view() : sources.at(i).host_view()};
            };
            return visit_transport_rng(
                ropts.rng.kind,
                [&](auto tag)
                {
                    using Engine = typename decltype(tag)::type;
                    return dispatch_tally_method(
                        method,
                        [&](auto policy)
                        {
                            using Policy = decltype(policy);
                            return run_transport_groups<Real, Engine, Policy, SourceMixView<Real>>(
                                inputs, method, geo.num_voxels(), ropts);
                        });
                });
        });
    if (stop_reason == "interrupted")
        run.complete = false;
    summary.setup_time_s = std::chrono::duration<double>(t_setup - t0).count();
    summary.backend = gpu ? "gpu" : "cpu";
    summary.ranks = run.ranks;
    summary.groups = run.groups;
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

    // Per source particle.
    double const per = run.histories > 0 ? 1.0 / double(run.histories) : 0.0;
    std::vector<double> edep(run.dose.energy_MeV.size()), sigma(edep.size());
    for (std::size_t v = 0; v < edep.size(); ++v)
    {
        edep[v] = run.dose.energy_MeV[v] * per;
        sigma[v] = run.dose.energy_sigma_MeV[v] * per;
    }
    DoseGridData data;
    data.geometry = geo;
    data.edep_MeV = make_span(edep);
    data.edep_sigma_MeV = make_span(sigma);
    data.density_g_cm3 = make_span(phantom.grid.density_g_cm3());
    data.material = make_span(phantom.grid.material());
    data.material_names = phantom.material_names;
    summary.uncertainty_reached =
        mean_relative_uncertainty(data, study.run.uncertainty_dose_fraction);

    if (options.write_outputs && comm.rank() == 0)
    {
        RunMetadata meta;
        meta.study_file = study.study_file;
        meta.study_json = study.study_json;
        meta.version = std::string(BuildInfo::version) + " (" + BuildInfo::git_describe + ")";
        meta.started_utc = started;
        meta.seed = study.rng.seed;
        meta.rng_generator = study.rng.generator;
        meta.tally_method = study.tally.method;
        meta.precision = to_cstring(study.physics.precision);
        meta.backend = summary.backend;
        meta.device = summary.device;
        if (summary.ranks > 1)
            meta.device += " per rank, " + std::to_string(summary.ranks) + " MPI ranks";
        meta.histories = run.histories;
        meta.transport_time_s = run.transport_time_s;
        meta.wall_time_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        meta.complete = run.complete;
        meta.stop_reason = run.complete ? stop_reason : "interrupted";
        meta.uncertainty_reached = summary.uncertainty_reached;
        meta.uncertainty_dose_fraction = study.run.uncertainty_dose_fraction;
        meta.source_particles = source_particles;
        EnergyBalance e = run.balance;
        e.emitted_MeV *= per;
        e.deposited_MeV *= per;
        e.escaped_MeV *= per;
        e.below_cutoff_MeV *= per;
        e.overflow_MeV *= per;
        e.rest_mass_MeV *= per;
        meta.energy = e;

        OutputInput outputs = study.outputs;
        if (options.output_dir)
            outputs.directory = *options.output_dir;
        std::optional<DepthDoseCurve> curve;
        if (outputs.depth_dose)
        {
            if (run.batch_digests.size() >= 2)
            {
                // Batches of (nearly) equal size, each normalised per its own histories.
                for (std::size_t b = 0; b < run.batch_digests.size(); ++b)
                {
                    auto const r = histories > 0 ? batch_history_range(histories, ropts.batches, b)
                                                 : HistoryRange{b * ropts.batch_histories,
                                                                (b + 1) * ropts.batch_histories};
                    double const inv = 1.0 / double(r.end - r.begin);
                    for (double& x : run.batch_digests[b])
                        x *= inv;
                }
                curve = depth_dose_from_batch_slabs(geo, depth_axis, run.batch_digests);
            }
            else
            {
                outputs.depth_dose = false;
                summary.warnings.push_back(
                    "depth-dose CSV skipped: it needs at least 2 completed batches");
            }
        }
        summary.files = write_run_outputs(outputs, data, meta, curve ? &*curve : nullptr);
    }
    return summary;
}
} // namespace mcdose
