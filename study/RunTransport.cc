//! \file study/RunTransport.cc
#include "study/RunTransport.hh"

#include <memory>
#include <utility>

#include "core/Device.hh"
#include "dose/Dvh.hh"
#include "study/PhaseSpaceOutput.hh"

namespace mcdose
{
namespace
{
/*!
 * The stop rule of a run to a target uncertainty: batches until the mean relative
 * uncertainty over the high-dose voxels of the stop region (summarize_region: its voxels
 * above the low-density threshold with dose above the fraction of its D0.03cc) reaches the
 * target (checked after at least 10 batches, so the batch estimate is usable), the time
 * limit passes, or the caller's callback asks to stop; the batch plan's maximum ends the
 * run otherwise. `reason()` says which stopped it.
 */
class StopRule
{
  public:
    StopRule(RunSetup const& setup, std::function<bool(TransportProgress const&)> user)
        : phantom_(setup.phantom()), region_(*setup.stop_region), user_(std::move(user)),
          target_(*setup.study().run.target_uncertainty),
          limit_s_(setup.study().run.time_limit_s.value_or(3600)),
          fraction_(setup.study().run.uncertainty_dose_fraction),
          low_density_(setup.study().structures.low_density_threshold_g_cm3)
    {
    }

    //! After each batch: false stops the run at this batch boundary.
    bool operator()(TransportProgress const& p)
    {
        if (user_ && !user_(p))
            return stop(StopReason::interrupted);
        if (p.elapsed_s > limit_s_)
            return stop(StopReason::time_limit);
        if (p.batches_done < 10)
            return true;
        DoseResult const r = p.tally->result();
        DoseGridData const d =
            dose_grid_view(phantom_, make_span(r.energy_MeV), make_span(r.energy_sigma_MeV));
        auto const u = summarize_region(d, region_, low_density_, fraction_).mean_relative;
        if (u && *u <= target_)
            return stop(StopReason::target_uncertainty);
        return true;
    }

    //! Why the rule stopped the run (histories while it has not).
    StopReason reason() const { return reason_; }

  private:
    Phantom const& phantom_;
    StructureMask const& region_;
    std::function<bool(TransportProgress const&)> user_;
    double target_;
    double limit_s_;
    double fraction_;
    double low_density_;
    StopReason reason_{StopReason::histories};

    bool stop(StopReason reason)
    {
        reason_ = reason;
        return false;
    }
};

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
void add_batch_hooks(TransportGroupInputs<Real>& in, SourceMixParams<Real>* mix,
                     PhaseSpaceRecorder<Real>* recorder, bool gpu)
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

/*!
 * The transport in the study's precision: each worker group gets the tables and source of
 * its own device (the set-up's physics on the CPU or the first GPU, a replica on each other
 * GPU; one source per group or one for all). A phase space written goes to `write.path`.
 */
TransportRunResult run_typed_transport(RunSetup& setup, TransportRunOptions const& run_options_in,
                                       PhaseSpaceWrite& write)
{
    StudyInput const& study = setup.study();
    bool const gpu = run_options_in.backend == Backend::gpu;
    bool const phase_space_in = phase_space_source(study) != nullptr;
    Phantom const& phantom = setup.phantom();
    return dispatch_precision(
        setup.choice.precision,
        [&](auto p)
        {
            using Real = ::mcdose::Real<decltype(p)::value>;
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
            auto& sources = std::get<std::vector<SourceMixParams<Real>>>(setup.sources);
            // Called on each group's thread with its GPU current (-1 on the CPU).
            TransportInputsFor<Real> inputs = [&](int, size_type group)
            {
                std::size_t const i = sources.size() > 1 ? std::size_t(group) : 0;
                TransportParams const& params =
                    gpu && i > 0 ? *setup.replicas.at(i - 1).physics : *setup.physics;
                MemSpace const where = gpu ? MemSpace::device : MemSpace::host;
                TransportGroupInputs<Real> in;
                in.physics = params.view<Real>(where);
                in.source = gpu ? sources.at(i).device_view() : sources.at(i).host_view();
                add_batch_hooks<Real>(in, phase_space_in ? &sources.at(i) : nullptr, recorder.get(),
                                      gpu);
                return in;
            };
            TransportRunResult r = run_transport(setup.choice, TransportInputs(std::move(inputs)),
                                                 phantom.grid.num_voxels(), run_options);
            if (recorder)
            {
                write.written = recorder->commit(primary_histories_of(study, r.histories));
                write.reruns = recorder->regrown();
            }
            return r;
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
//! The run summary's line on the phase space written (if any).
void describe_phase_space_output(PhaseSpaceWrite const& write, StudyRunSummary& summary)
{
    if (write.path.empty())
        return;
    summary.phase_space_output = std::to_string(write.written) +
                                 " particles crossing the plane written to '" + write.path + "'";
}

} // namespace

TransportStage transport_run(RunSetup& setup, StepClock& clock, StudyRunSummary& summary)
{
    TransportStage stage;
    bool const gpu = setup.backend == Backend::gpu;
    TransportRunOptions run_options = setup.run_options;
    std::shared_ptr<StopRule> rule;
    if (run_options.histories == 0)
    {
        rule = std::make_shared<StopRule>(setup, run_options.on_batch);
        run_options.on_batch = [rule](TransportProgress const& p) { return (*rule)(p); };
    }
    PhaseSpaceWrite write{setup.phase_space_out.path, setup.phase_space_out.comments};
    stage.run = run_typed_transport(setup, run_options, write);
    setup.sources.emplace<0>(); // their memory (a phase space's pieces) freed before the outputs
    clock.mark_parts("transport_setup", {{"transport", stage.run.batches_s},
                                         {"final_grids", stage.run.final_grids_s}});
    describe_phase_space_output(write, summary);
    stage.phase_space_file = write.path;
    if (rule)
        stage.stop_reason = rule->reason();
    if (stage.stop_reason == StopReason::interrupted)
        stage.run.complete = false;
    summarize_run(stage.run, setup.gpus, gpu, summary); // the GPUs' names: before they are released
    warn_if_no_dose(stage.run, summary);
    return stage;
}
} // namespace mcdose
