//! \file study/RunFinish.cc
#include "study/RunFinish.hh"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <sstream>

#include "core/Config.hh"
#include "core/Device.hh"
#include "core/ParallelFor.hh"
#include "dose/BatchFigures.hh"
#include "dose/Dvh.hh"
#include "dose/ProfileCsv.hh"
#include "sources/BeamGeometry.hh"
#include "study/PhaseSpaceOutput.hh"
#include "study/RunOutputs.hh"
#include "tally/EnergyMask.hh"

namespace mcdose
{
namespace
{
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

//! 1 / histories (0 if none ran): results are per source particle.
double per_history(std::uint64_t histories)
{
    return histories > 0 ? 1.0 / double(histories) : 0.0;
}

/*!
 * The factor from dose per history of this run to dose per primary history of the run
 * that wrote the phase space read (the primary histories P its file records): the h
 * histories start h / recycle particles, of the file's T transported ones, which stand
 * for P (h / recycle) / T primaries, each particle used `recycle` times; so the dose per
 * primary is E / (P h / T) and the factor T / P. 1 without such a record.
 */
double per_primary_factor(StudyInput const& study)
{
    SourceInput const* s = phase_space_source(study);
    if (!s || s->phase_space->scan.primary_histories == 0)
        return 1.0;
    PhaseSpaceScan const& scan = s->phase_space->scan;
    return double(scan.transported) / double(scan.primary_histories);
}

/*!
 * The run's grids per source particle [MeV], scaled in place, and the mask of the voxels
 * with energy: only the voxels of the run's mask are read and scaled (the pages of the
 * others are not touched), on all cores; a voxel whose scaled energy is 0 (an underflow)
 * leaves the mask.
 */
DoseGrids energy_per_particle(DoseGrids&& grids, double per)
{
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

//! "dose to water, in Gy (how the particles were obtained)".
std::string describe_dose(DoseQuantity const& quantity, StudyInput const& study,
                          std::optional<double> source_particles)
{
    SourceInput const* ps = phase_space_source(study);
    std::uint64_t const primaries = ps ? ps->phase_space->scan.primary_histories : 0;
    std::string d =
        std::string(quantity.name()) + ", in " +
        (source_particles ? "Gy"
         : primaries > 0  ? "Gy per primary history of the run that wrote the phase space (its "
                            "file records " +
                               std::to_string(primaries) + ")"
                         : "Gy per source particle");
    if (source_particles)
        d += " (" + study.absolute.description + ")";
    return d;
}

//! The first source's central axis, when it has one.
std::optional<BeamAxisRecord> first_source_axis(StudyInput const& study)
{
    if (study.sources.empty())
        return std::nullopt;
    SourceInput const& s = study.sources.front();
    if (s.kind == SourceKind::beam && s.beam)
    {
        BeamAxes const axes = beam_axes(*s.beam);
        return BeamAxisRecord{axes.source_cm, axes.central_axis};
    }
    if (s.kind == SourceKind::pencil || s.kind == SourceKind::parallel ||
        s.kind == SourceKind::point)
        return BeamAxisRecord{s.position_cm, s.direction};
    return std::nullopt;
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
    meta.beam_axis = first_source_axis(study);
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
std::optional<DepthDoseCurve> depth_dose_curve(TransportRunResult const& run,
                                               TransportRunOptions const& run_options,
                                               GridGeometry const& geometry, int depth_axis)
{
    // The slab sums lead each batch's digest (the structures' figures follow).
    std::vector<std::vector<double>> slabs;
    for (auto const& digest : run.batch_digests)
    {
        std::size_t const n = std::min(digest.size(), run_options.batch_slabs.count());
        slabs.emplace_back(digest.begin(), digest.begin() + std::ptrdiff_t(n));
    }
    if (!run.history_slab_sum_sq.empty())
    {
        if (run.histories < 2 || slabs.empty())
            return std::nullopt;
        std::vector<double> sums(run.history_slab_sum_sq.size(), 0.0);
        for (auto const& batch : slabs)
        {
            MCDOSE_VALIDATE(batch.size() == sums.size(), << "a batch has " << batch.size()
                                                         << " slab sums, the run " << sums.size());
            for (std::size_t k = 0; k < sums.size(); ++k)
                sums[k] += batch[k];
        }
        return depth_dose_from_history_slabs(geometry, depth_axis, sums, run.history_slab_sum_sq,
                                             run.histories);
    }
    if (slabs.size() < 2)
        return std::nullopt;
    // Batches of (nearly) equal size.
    for (std::size_t b = 0; b < slabs.size(); ++b)
    {
        auto const r = run_batch_range(run_options, b);
        double const inv = 1.0 / double(r.end - r.begin);
        for (double& x : slabs[b])
            x *= inv;
    }
    return depth_dose_from_batch_slabs(geometry, depth_axis, slabs);
}

//! Write the files the study's outputs section asks for, then the manifest
//! listing them; returns their paths. `started`: the outputs started beside the dose
//! report (StartedOutputs).
std::vector<std::string> write_outputs(OutputInput const& outputs_in, DoseGridData const& data,
                                       RunMetadata& meta, TransportRunResult& run,
                                       TransportRunOptions const& run_options, int depth_axis,
                                       std::vector<std::string>& warnings,
                                       std::string const& phase_space_file, StepClock& clock,
                                       StartedOutputs* started, double per_primary)
{
    OutputInput outputs = outputs_in;
    std::optional<DepthDoseCurve> curve;
    if (outputs.depth_dose)
    {
        curve = depth_dose_curve(run, run_options, data.geometry, depth_axis);
        for (std::size_t k = 0; curve && k < curve->edep_MeV.size(); ++k)
        {
            curve->edep_MeV[k] *= per_primary;
            curve->edep_sigma_MeV[k] *= per_primary;
        }
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
DoseReport make_dose_report(RunSetup const& setup, TransportRunResult const& run,
                            DoseGridData const& data)
{
    StudyInput const& study = setup.study();
    StructureSet const& structures = *setup.structures;
    StructureMask const& region = *setup.stop_region;
    std::optional<double> const source_particles = setup.bounds.source_particles;
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
    // The summary's region has one near maximum: its DVH figures leave out the same
    // low-density voxels (air pockets, whose doses are noisy), which are reported apart.
    auto const dvh = [&](StructureMask const& s)
    {
        bool const same = &s == &region || (s.whole_grid_voxels == region.whole_grid_voxels &&
                                            s.voxels == region.voxels);
        if (!same || r.low_density_voxels == 0)
            return structure_dvh(s, data, scale, at);
        double const threshold = structures.low_density_threshold_g_cm3;
        DvhFigures f =
            structure_dvh(without_low_density(s, data.density_g_cm3, threshold), data, scale, at);
        std::ostringstream note;
        note << s.origin << "; its " << r.low_density_voxels << " voxels below " << threshold
             << " g/cm3 left out (reported apart)";
        f.origin = note.str();
        return f;
    };
    for (StructureMask const* s : dvh_structures(study, structures))
        report.dvhs.push_back(dvh(*s));
    // Their statistical sigmas from the batches' spread, the calibration's carried.
    if (setup.run_options.batch_figures)
        structure_batch_figures(setup).set_sigmas(report.dvhs, run.batch_digests,
                                                  setup.run_options.batch_slabs.count(), scale);
    if (source_particles)
        add_common_relative_sigma(report.dvhs, study.absolute.calibration_relative_sigma);
    return report;
}

//! The metadata the output files record, as the run stands (`wall_time_s` so far).
RunMetadata run_metadata(RunSetup const& setup, TransportStage const& stage,
                         StudyRunSummary const& summary, double wall_time_s)
{
    RunMetadata meta =
        make_run_metadata(setup.study(), summary, stage.run, setup.started_utc, wall_time_s,
                          stage.stop_reason, setup.bounds.source_particles);
    meta.quantity = setup.to_water.quantity;
    meta.warnings = summary.warnings;
    meta.ct_dicom = setup.study_phantom->ct_dicom;
    meta.report = summary.report;
    return meta;
}

/*!
 * After the transport: the dose per source particle, the dose report and, where
 * this rank writes (the set-up's prepared outputs), the outputs; each step booked on
 * `clock`. The HDF5 file's grid datasets and the images need nothing of the dose report:
 * they are started on threads of their own while the report runs (which uses no HDF5),
 * so the steps "hdf5" and "images" book only what is left of them when the report
 * is done. `release` (if set) starts the GPUs' release once the report is made:
 * beside the dose grids and the report its driver calls slowed their threads.
 */
void finish_dose(RunSetup const& setup, TransportStage& stage, StudyRunOptions const& options,
                 std::function<void()> const& release, StepClock& clock, StudyRunSummary& summary)
{
    StudyInput const& study = setup.study();
    TransportRunResult& run = stage.run;
    double const per_primary = per_primary_factor(study);
    DoseGrids const energy = energy_per_particle(std::move(*setup.run_options.result_grids),
                                                 per_history(run.histories) * per_primary);
    DoseGridData data = make_dose_grid_data(setup.phantom(), energy, setup.to_water);
    // The dose of the voxels with energy, for the report's passes and the files (none
    // where it would not pay: EnergyVoxelTable).
    EnergyVoxelTable const table = energy_voxel_table(data);
    data.energy_table = table.if_made();
    summary.dose_description =
        describe_dose(setup.to_water.quantity, study, setup.bounds.source_particles);
    clock.mark("dose_grids");
    if (options.on_dose)
        options.on_dose(data, study);
    std::optional<PreparedOutputs> const& prepared = setup.prepared;
    std::unique_ptr<StartedOutputs> const started =
        prepared
            ? std::make_unique<StartedOutputs>(prepared->outputs, data,
                                               run_metadata(setup, stage, summary, clock.total_s()))
            : nullptr;
    summary.report = make_dose_report(setup, run, data);
    summary.uncertainty_reached = summary.report.summary->mean_relative;
    if (release)
        release();
    clock.mark("dose_report");
    if (prepared)
    {
        RunMetadata meta = run_metadata(setup, stage, summary, clock.total_s());
        summary.files = write_outputs(prepared->outputs, data, meta, run, setup.run_options,
                                      setup.depth_axis, summary.warnings, stage.phase_space_file,
                                      clock, started.get(), per_primary);
        // All written and whole: into place together, the manifest last.
        commit_outputs(*prepared);
        clock.mark("summary_and_manifest");
    }
    summary.steps = clock.steps();
}
} // namespace

void finish_run(RunSetup const& setup, TransportStage& stage, StudyRunOptions const& options,
                StepClock& clock, StudyRunSummary& summary)
{
    std::future<void> released;
    std::function<void()> release;
    if (setup.backend == Backend::gpu && options.release_gpus && !setup.gpus.empty())
        release = [&]
        {
            released = release_gpus(std::move(stage.run.device_memory), *setup.physics,
                                    setup.replicas, setup.phantom().grid, setup.gpus);
        };
    finish_dose(setup, stage, options, release, clock, summary);
}
} // namespace mcdose
