//! \file transport/engine/TransportDriver.cc
#include "transport/engine/TransportDriver.hh"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "core/Comm.hh"
#include "core/Device.hh"
#include "tally/BatchReduction.hh"
#include "tally/accum/FixedPoint.hh"
#include "transport/engine/Checkpoint.hh"
#include "transport/engine/CpuThreads.hh"
#include "transport/engine/TransportGroupFactory.hh"
#include "transport/engine/TransportParams.hh"

namespace mcdose
{
namespace
{
using Groups = std::vector<std::unique_ptr<TransportGroupBase>>;

//! Run f(g, group) for every group on its own host thread with its GPU current;
//! errors name the GPU or group.
template <class F>
void for_each_group(Groups& groups, bool gpu, F&& f)
{
    run_cpu_threads(static_cast<int>(groups.size()),
                    [&](size_type g)
                    {
                        TransportGroupBase& group = *groups[g];
                        try
                        {
                            if (group.device >= 0)
                                activate_device(group.device);
                            f(g, group);
                        }
                        catch (RuntimeError const& e)
                        {
                            if (groups.size() == 1)
                                throw;
                            throw RuntimeError((gpu ? "GPU " + std::to_string(group.device)
                                                    : "worker group " + std::to_string(g)) +
                                               ": " + e.what());
                        }
                    });
}

//! Balance summed over ranks in rank order (doubles) and exactly (count).
EnergyBalance reduce_balance(EnergyBalance b, Comm const& comm)
{
    double v[6] = {b.emitted_MeV,      b.deposited_MeV, b.escaped_MeV,
                   b.below_cutoff_MeV, b.overflow_MeV,  b.rest_mass_MeV};
    comm.sum_in_rank_order({v, 6});
    std::uint64_t n = b.interactions;
    comm.allreduce_sum({&n, 1});
    return {v[0], v[1], v[2], v[3], v[4], v[5], n};
}

/*!
 * The groups handed over with their device memory (TransportRunResult::device_memory):
 * freed with the first group's device current, on whichever thread lets them go.
 */
struct HandedOver
{
    Groups groups;
    explicit HandedOver(Groups&& g) : groups(std::move(g)) {}
    HandedOver(HandedOver const&) = delete;
    HandedOver& operator=(HandedOver const&) = delete;
    ~HandedOver()
    {
        // The members are destroyed after this body: with the device current.
        try
        {
            if (!groups.empty() && groups.front()->device >= 0)
                activate_device(groups.front()->device);
        }
        catch (std::exception const&)
        {
        }
    }
};
} // namespace

HistoryRange run_batch_range(TransportRunOptions const& options, std::uint64_t b)
{
    std::uint64_t const g = std::max<std::uint64_t>(1, options.history_granule);
    if (options.histories == 0)
        return {b * options.batch_histories, (b + 1) * options.batch_histories};
    HistoryRange const r = batch_history_range(options.histories / g, options.batches, b);
    return {r.begin * g, r.end * g};
}

HistoryRange group_history_range(HistoryRange launch, int ranks, int rank, std::uint64_t groups,
                                 std::uint64_t g)
{
    return split_history_range(
        split_history_range(launch, std::uint64_t(ranks), std::uint64_t(rank)), groups, g);
}

BatchPlan plan_batches(TransportRunOptions const& options)
{
    BatchPlan plan;
    plan.open_ended = options.histories == 0;
    if (plan.open_ended)
    {
        MCDOSE_VALIDATE(
            options.batch_histories > 0 && options.max_histories >= options.batch_histories,
            << "a run without a history count needs positive batch histories ("
            << options.batch_histories << ") and a maximum (" << options.max_histories
            << ") of at least one batch");
    }
    else
    {
        MCDOSE_VALIDATE(options.batches >= 1 && options.batches <= options.histories,
                        << "'batches' must be between 1 and the number of histories (got "
                        << options.batches << ")");
    }
    std::uint64_t const g = options.history_granule;
    MCDOSE_VALIDATE(g >= 1 && options.histories % g == 0 && options.batch_histories % g == 0 &&
                        options.max_histories % g == 0,
                    << "the history counts (" << options.histories << ", "
                    << options.batch_histories << " per batch, at most " << options.max_histories
                    << ") must be multiples of " << g << " (each phase-space particle's uses "
                    << "stay in one batch)");
    MCDOSE_VALIDATE(plan.open_ended || options.batches <= options.histories / g,
                    << "'batches' (" << options.batches << ") exceeds the " << options.histories / g
                    << " particles of the phase space used; use fewer batches");
    plan.total_histories = plan.open_ended ? options.max_histories : options.histories;
    plan.num_batches =
        plan.open_ended ? (options.max_histories / options.batch_histories) : options.batches;
    plan.gpu = options.backend == Backend::gpu;
    if (plan.gpu)
    {
        plan.devices = options.gpus.empty() ? std::vector<int>{-1} : options.gpus;
    }
    else
    {
        MCDOSE_VALIDATE(options.cpu_groups >= 1, << "CPU worker groups must be at least 1 (got "
                                                 << options.cpu_groups << ")");
        plan.devices.assign(options.cpu_groups, -1);
        plan.cpu_threads_per_group = std::max(1, resolve_cpu_threads(options.cpu_threads) /
                                                     static_cast<int>(plan.devices.size()));
    }
    return plan;
}

/*!
 * While a batch runs, poll options_.stop_requested; when it asks, stop
 * every group's workers from grabbing more histories (they finish the
 * histories they hold and return): on the CPU by emptying the history
 * queue, on a GPU by raising the queue's stop word while the kernel runs.
 * `cut()` tells whether histories were left out: on the CPU the emptied
 * queue says so at once; a GPU group says so after its kernel
 * (`mark_cut`, from its counter).
 */
class TransportDriver::StopWatch
{
  public:
    StopWatch(std::function<bool()> const& stop, Groups& groups, bool gpu)
    {
        if (!stop)
            return;
        thread_ = std::thread(
            [this, stop, &groups, gpu]
            {
                std::unique_lock<std::mutex> lock(mutex_);
                // Woken at once when the batch ends (no poll interval added to it).
                while (!wake_.wait_for(lock, std::chrono::milliseconds(10),
                                       [this] { return done_.load(); }))
                {
                    if (!stop())
                        continue;
                    for (auto& group : groups)
                        stop_group(*group, gpu);
                    return;
                }
            });
    }
    //! A GPU group's kernel left histories of the batch out.
    void mark_cut() { cut_.store(true); }
    ~StopWatch() { this->finish(); }
    StopWatch(StopWatch const&) = delete;
    StopWatch& operator=(StopWatch const&) = delete;
    //! End the watch; whether it cut the batch short.
    bool cut()
    {
        this->finish();
        return cut_.load();
    }

  private:
    //! A CPU group's queue emptied (the counter raised to its end), a GPU's stop word raised.
    void stop_group(TransportGroupBase& group, bool gpu)
    {
        if (gpu)
        {
            raise_stop(group);
            return;
        }
        unsigned long long const end = group.queue_end;
        if (__atomic_exchange_n(&group.host_counter, end, __ATOMIC_RELAXED) < end)
        {
            group.cut_by_stop.store(true);
            cut_.store(true);
        }
    }

    //! Raise a GPU group's stop word. Should that fail, the batch ends as usual and
    //! the run stops after it (the request is still seen at the batch's end).
    static void raise_stop(TransportGroupBase& group) noexcept
    {
        try
        {
            if (group.device >= 0)
                activate_device(group.device);
            device_raise_flag(group.device_stop.data());
        }
        catch (std::exception const&)
        {
        }
    }

    void finish()
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_.store(true);
        }
        wake_.notify_all();
        if (thread_.joinable())
            thread_.join();
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::atomic<bool> done_{false};
    std::atomic<bool> cut_{false};
    std::thread thread_;
};

TransportDriver::TransportDriver(TransportChoice const& choice, TransportInputs inputs,
                                 size_type voxels, TransportRunOptions const& options)
    : choice_(choice), inputs_(std::move(inputs)), voxels_(voxels), options_(options),
      comm_(options.comm ? *options.comm : Comm::world()), plan_(plan_batches(options)),
      tally_input_(make_tally_input()),
      fingerprint_(
          run_fingerprint(options, choice, voxels,
                          accum::fixed_point_quantum_exp2(tally_input_.max_total_energy_MeV)))
{
}

TransportDriver::~TransportDriver() = default;

TransportRunResult TransportDriver::operator()()
{
    result_.ranks = comm_.size();
    result_.groups = plan_.devices.size();
    if (!options_.resume_path.empty())
        resume();
    result_.first_batch = first_batch_;
    set_up_groups();
    set_up_folding();

    start_ = std::chrono::steady_clock::now();
    last_checkpoint_s_ = elapsed_s();
    for (std::uint64_t b = first_batch_; b < plan_.num_batches && !finished_;)
    {
        // One launch: batches [b, b + n), each into its own batch grid.
        std::uint64_t const n = std::min<std::uint64_t>(slots_, plan_.num_batches - b);
        if (!transport_batches(b, n))
        {
            // Stopped inside the launch: the run is batches [first, b).
            result_.complete = false;
            if (!options_.checkpoint_path.empty() && b > first_batch_)
                save_checkpoint(b - 1, batch_range(b - 1), elapsed_s(), false);
            break;
        }
        b += n;
        if (end_batch(b - 1, batch_range(b - 1)))
            break;
    }
    return finish();
}

DoseTallyInput TransportDriver::make_tally_input() const
{
    DoseTallyInput tally_input;
    tally_input.method = choice_.method;
    tally_input.voxels = voxels_;
    // The same bound (hence FX quantum) on every group and rank: the words add up.
    tally_input.max_total_energy_MeV =
        double(plan_.total_histories) * options_.max_primary_energy_MeV;
    tally_input.backend = plan_.gpu ? Backend::gpu : Backend::cpu;
    tally_input.history_moments = options_.history_uncertainty;
    tally_input.max_history_energy_MeV = options_.max_primary_energy_MeV;
    MCDOSE_VALIDATE(!options_.history_uncertainty || !plan_.gpu,
                    << "the history-by-history uncertainty runs on the CPU backend (a GPU's "
                       "histories share voxels in flight); use the batch method "
                       "(tally.uncertainty \"batch\")");
    return tally_input;
}

//! A group folds on its own threads (CPU) or device; a host master on all cores.
DoseFoldOptions TransportDriver::fold_options(bool master) const
{
    DoseFoldOptions fold;
    fold.host_threads = plan_.gpu || master ? 0 : plan_.cpu_threads_per_group;
    fold.slabs = options_.batch_slabs;
    return fold;
}

//! One group on one rank folds in place; otherwise a host tally (all
//! cores) folds the reduced batches. A resumed run's totals go there.
void TransportDriver::set_up_folding()
{
    if (groups_.size() == 1 && comm_.size() == 1)
    {
        folder_ = groups_.front()->tally.get();
    }
    else
    {
        DoseTallyInput host_input = tally_input_;
        host_input.backend = Backend::cpu;
        host_input.slots = 1;
        master_ = std::make_unique<DoseTally>(host_input, fold_options(true));
        folder_ = master_.get();
    }
    if (restored_tally_)
        folder_->restore(std::move(*restored_tally_));
    restored_tally_.reset();
}

//! Continue from a checkpoint: the folded tally, balance, time and digests so far.
void TransportDriver::resume()
{
    std::string bytes;
    if (comm_.rank() == 0)
        bytes = read_checkpoint_bytes(options_.resume_path);
    comm_.broadcast(bytes);
    TransportCheckpoint checkpoint = deserialize_checkpoint(bytes, options_.resume_path);
    check_checkpoint_fingerprint(checkpoint, fingerprint_, options_.resume_path);
    MCDOSE_VALIDATE(checkpoint.batches_done <= plan_.num_batches,
                    << "--resume '" << options_.resume_path << "': " << checkpoint.batches_done
                    << " batches done but the run has " << plan_.num_batches);
    restored_tally_ = std::make_unique<DoseTallyTotals>(std::move(checkpoint.tally));
    restored_balance_ = checkpoint.balance;
    restored_time_s_ = checkpoint.transport_time_s;
    result_.batch_digests = std::move(checkpoint.batch_digests);
    first_batch_ = checkpoint.batches_done;
    result_.histories = checkpoint.histories_done;
    finished_ = checkpoint.finished || first_batch_ == plan_.num_batches;
}

//! One group per device (or CPU team), each made by the factory and set up on its own thread.
void TransportDriver::set_up_groups()
{
    size_type const num_groups = plan_.devices.size();
    // Chunks: small enough to balance the load at the end of a batch.
    std::uint64_t const per_batch =
        plan_.open_ended ? options_.batch_histories
                         : (options_.histories + options_.batches - 1) / options_.batches;
    std::uint64_t const per_group =
        std::max<std::uint64_t>(1, per_batch / (std::uint64_t(comm_.size()) * num_groups));
    for (size_type g = 0; g < num_groups; ++g)
    {
        groups_.push_back(make_transport_group(choice_, inputs_));
        groups_.back()->device = plan_.devices[g];
    }
    slots_ = batches_per_launch(per_batch);
    tally_input_.slots = slots_;
    for_each_group(groups_, plan_.gpu,
                   [&](size_type g, TransportGroupBase& group)
                   { group.set_up(group_setup(g, per_group)); });
    for (auto const& group : groups_)
        result_.workers += group->workers;
    result_.grid = groups_.front()->grid;
    words_.resize(num_groups);
    squares_.resize(num_groups);
}

//! What group g is set up with.
GroupSetup TransportDriver::group_setup(size_type g, std::uint64_t per_group) const
{
    GroupSetup setup;
    setup.gpu = plan_.gpu;
    setup.gpu_block_unit = options_.gpu_block_unit;
    setup.cpu_threads = plan_.cpu_threads_per_group;
    setup.index = g;
    setup.global_group = std::uint64_t(comm_.rank()) * plan_.devices.size() + g;
    setup.rng = options_.rng;
    setup.first_batch = first_batch_;
    setup.tally = tally_input_;
    setup.fold = fold_options(false);
    setup.slots = slots_;
    setup.histories_per_batch = per_group;
    setup.chunk = options_.chunk;
    setup.source_particles_ahead = options_.source_particles_ahead;
    return setup;
}

/*!
 * Batches one launch fills: with one worker group on one rank (no batch
 * reduction), as many as hold launch_histories, at most
 * max_batches_per_launch; else one.
 */
std::uint64_t TransportDriver::batches_per_launch(std::uint64_t per_batch) const
{
    if (plan_.devices.size() != 1 || comm_.size() != 1 || options_.max_batches_per_launch <= 1 ||
        options_.history_uncertainty)
        return 1;
    std::uint64_t const n = std::max<std::uint64_t>(1, per_batch);
    std::uint64_t const wanted =
        options_.launch_histories / n + (options_.launch_histories % n != 0 ? 1 : 0);
    return std::max<std::uint64_t>(
        1, std::min({wanted, options_.max_batches_per_launch, plan_.num_batches}));
}

//! Which batch grid each history of the launch starting at batch b uses.
BatchSlotMap TransportDriver::slot_map(std::uint64_t b) const
{
    BatchSlotMap map;
    if (slots_ == 1)
        return map; // everything in slot 0
    std::uint64_t const g = std::max<std::uint64_t>(1, options_.history_granule);
    map.granule = g;
    map.first_batch = b;
    if (plan_.open_ended)
    {
        map.base = options_.batch_histories / g;
        return map;
    }
    // The split of run_batch_range: histories / g granules in `batches` batches.
    map.base = options_.histories / g / options_.batches;
    map.extra = options_.histories / g % options_.batches;
    return map;
}

double TransportDriver::elapsed_s() const
{
    return restored_time_s_ +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

//! Restored balance plus every group's, groups in order, ranks in rank order.
EnergyBalance TransportDriver::balance_now() const
{
    EnergyBalance local;
    for (auto const& group : groups_)
        local += group->balance(); // group order: fixed
    EnergyBalance total = restored_balance_;
    total += reduce_balance(local, comm_);
    return total;
}

/*!
 * Transport batches [b, b + n) (one launch; n > 1 only with one group on
 * one rank) on every group: this rank's piece of their histories, reduce
 * the groups' and ranks' grids, and fold the batches into the totals.
 * Returns false, folding nothing, if a stop request cut the launch short
 * on any rank (its energy balances are restored to the launch's start).
 */
bool TransportDriver::transport_batches(std::uint64_t b, std::uint64_t n)
{
    HistoryRange const range{batch_range(b).begin, batch_range(b + n - 1).end};
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t i = b; i < b + n; ++i)
        sizes.push_back(batch_range(i).end - batch_range(i).begin);
    size_type const num_groups = plan_.devices.size();
    bool const gpu = plan_.gpu;
    bool const watching = static_cast<bool>(options_.stop_requested);
    std::vector<std::vector<EnergyBalance>> balances_before;
    figures_.clear();
    for (size_type g = 0; g < num_groups; ++g)
    {
        groups_[g]->slot_map = slot_map(b);
        if (gpu)
            continue;
        // CPU queues are set here, before the stop watch may empty them.
        HistoryRange const piece =
            group_history_range(range, comm_.size(), comm_.rank(), num_groups, g);
        groups_[g]->host_counter = piece.begin;
        groups_[g]->cut_by_stop.store(false);
        groups_[g]->queue_end = piece.end;
        balances_before.push_back(groups_[g]->host_balances);
    }
    StopWatch watch(options_.stop_requested, groups_, gpu);
    for_each_group(groups_, gpu,
                   [&](size_type g, TransportGroupBase& group)
                   {
                       HistoryRange const piece =
                           group_history_range(range, comm_.size(), comm_.rank(), num_groups, g);
                       if (group.run_piece(piece, watching))
                           watch.mark_cut();
                       // One group folds in place: a launch cut short is discarded
                       // (watch.cut() ends the watch; its answer is final).
                       end_piece(g, b, sizes, !master_ && watch.cut());
                   });
    if (watching && this->agree_on_cut(watch.cut(), balances_before))
        return false;
    if (master_)
        fold_reduced_batch(b, range.end - range.begin);
    this->keep_digests(n);
    result_.histories = range.end;
    return true;
}

/*!
 * After group g's piece: with a master, its raw batch grid (and history squares) kept for
 * the reduction; else the launch's batches folded in place, or discarded if `cut`.
 */
void TransportDriver::end_piece(size_type g, std::uint64_t b,
                                std::vector<std::uint64_t> const& sizes, bool cut)
{
    TransportGroupBase& group = *groups_[g];
    if (master_)
    {
        words_[g] = group.tally->batch_words();
        if (options_.history_uncertainty)
            squares_[g] = group.tally->batch_history_squares();
        group.tally->clear_batch();
    }
    else if (cut)
    {
        group.tally->clear_batch();
    }
    else
    {
        std::vector<std::uint64_t> staging;
        for (size_type k = 0; options_.batch_figures && k < sizes.size(); ++k)
            this->evaluate_batch(*group.tally, k, b + k, staging);
        group.tally->end_batches(sizes);
    }
}

//! The caller's figures of batch `batch` (slot k of `tally`), before it is folded.
void TransportDriver::evaluate_batch(DoseTally const& tally, size_type k, std::uint64_t batch,
                                     std::vector<std::uint64_t>& staging)
{
    HistoryRange const r = batch_range(batch);
    figures_.push_back(options_.batch_figures(tally.batch_view(
        k, r.end - r.begin, options_.batch_figures_first, options_.batch_figures_count, staging)));
}

//! The digests of the launch's `n` folded batches: slab sums, then figures.
void TransportDriver::keep_digests(std::uint64_t n)
{
    bool const slabs = options_.batch_slabs.enabled();
    if (!slabs && !options_.batch_figures)
        return;
    MCDOSE_ASSERT(!options_.batch_figures || figures_.size() == n);
    for (std::uint64_t i = 0; i < n; ++i)
    {
        std::vector<double> digest;
        if (slabs)
            digest = folder_->folded_slabs().at(folder_->folded_slabs().size() - n + i);
        if (options_.batch_figures)
            digest.insert(digest.end(), figures_[i].begin(), figures_[i].end());
        result_.batch_digests.push_back(std::move(digest));
    }
}

/*!
 * Whether a stop request cut this batch on any rank; if so, every group's
 * energy balances go back to the batch's start (CPU: `before`, GPU: the
 * device copy kept at launch).
 */
bool TransportDriver::agree_on_cut(bool cut_here,
                                   std::vector<std::vector<EnergyBalance>> const& before)
{
    std::uint64_t cut = cut_here ? 1 : 0;
    comm_.allreduce_sum({&cut, 1});
    if (cut == 0)
        return false;
    if (plan_.gpu)
    {
        for_each_group(groups_, true,
                       [](size_type, TransportGroupBase& group)
                       { group.device_balances.copy_from(group.balances_at_start); });
    }
    else
    {
        for (size_type g = 0; g < groups_.size(); ++g)
            groups_[g]->host_balances = before[g];
    }
    return true;
}

//! Several groups or ranks: reduce their grids (and history squares: integer
//! sums) and fold the batch on the host (FX: the integer sum of the words,
//! folded as one grid).
void TransportDriver::fold_reduced_batch(std::uint64_t batch, std::uint64_t histories)
{
    if (options_.history_uncertainty)
    {
        std::vector<std::vector<std::uint64_t>> voxels, slabs;
        for (BatchHistorySquares& s : squares_)
        {
            voxels.push_back(std::move(s.voxels));
            slabs.push_back(std::move(s.slabs));
        }
        master_->set_batch_history_squares(
            {reduce_fx_batch_words(voxels, comm_), reduce_fx_batch_words(slabs, comm_)});
    }
    if (choice_.method == TallyMethod::fx)
    {
        master_->set_batch_words(reduce_fx_batch_words(words_, comm_));
        std::vector<std::uint64_t> staging;
        if (options_.batch_figures)
            this->evaluate_batch(*master_, 0, batch, staging);
        master_->end_batch(histories);
        return;
    }
    std::vector<double> const energy =
        reduce_batch(choice_.method, master_->fx_quantum_exp2(), words_, voxels_, comm_);
    if (options_.batch_figures)
        figures_.push_back(options_.batch_figures(batch_energy_view(energy, histories)));
    master_->fold_batch(energy, histories);
}

//! Progress, the ranks' agreement on stopping and checkpointing, and the
//! checkpoint after batch b; returns whether the run stops here.
bool TransportDriver::end_batch(std::uint64_t b, HistoryRange const& range)
{
    TransportProgress progress;
    progress.histories_done = range.end;
    progress.histories_total = plan_.total_histories;
    progress.batches_done = b + 1;
    progress.tally = folder_;
    progress.elapsed_s = elapsed_s();
    // A stop asked for while the batch ran is honoured here too: the watch that polls it
    // during the batch may not have been scheduled before the batch ended (a loaded machine).
    bool const asked = options_.stop_requested && options_.stop_requested();
    bool const want_stop = (options_.on_batch && !options_.on_batch(progress)) || asked;
    bool const due = !options_.checkpoint_path.empty() && comm_.rank() == 0 &&
                     progress.elapsed_s - last_checkpoint_s_ >= options_.checkpoint_interval_s;
    // Agree on stopping and checkpointing (time limits and signals differ by rank).
    std::uint64_t votes[3] = {want_stop ? 1u : 0u, due ? 1u : 0u, asked ? 1u : 0u};
    comm_.allreduce_sum({votes, 3});
    bool const last = b + 1 == plan_.num_batches;
    bool const stop = votes[0] > 0 && !last;
    // Fixed mode: interrupted; open-ended: the goal reached, unless a stop was asked for.
    bool const goal = stop && plan_.open_ended && votes[2] == 0;
    if (stop)
        result_.complete = goal;
    if (votes[1] > 0 || (!options_.checkpoint_path.empty() && (stop || last)))
        save_checkpoint(b, range, progress.elapsed_s, last || goal);
    return stop;
}

//! Save the run after batch b (rank 0 writes, atomically).
void TransportDriver::save_checkpoint(std::uint64_t b, HistoryRange const& range, double elapsed,
                                      bool finished)
{
    TransportCheckpoint checkpoint;
    checkpoint.fingerprint = fingerprint_;
    checkpoint.batches_done = b + 1;
    checkpoint.histories_done = range.end;
    checkpoint.finished = finished;
    checkpoint.transport_time_s = elapsed;
    checkpoint.tally = folder_->totals();
    checkpoint.balance = balance_now();
    checkpoint.batch_digests = result_.batch_digests;
    if (comm_.rank() == 0)
        write_checkpoint(options_.checkpoint_path, checkpoint);
    last_checkpoint_s_ = elapsed;
}

//! Time, balance and dose of the run; the groups' memory freed (or handed over).
TransportRunResult TransportDriver::finish()
{
    result_.transport_time_s = elapsed_s();
    result_.batches_s = result_.transport_time_s - restored_time_s_;
    auto const finishing = std::chrono::steady_clock::now();
    result_.balance = balance_now();
    // Before the groups' tallies are freed; their batch grids first, so that the result's
    // grids do not come on top of them.
    for (auto const& group : groups_)
        group->tally->release_batch_grids();
    if (master_)
        master_->release_batch_grids();
    result_.dose = folder_->result(options_.result_grids.get());
    result_.history_slab_sum_sq = folder_->history_slab_sum_sq();
    folder_ = nullptr;
    for (auto const& group : groups_)
        result_.source_particles_ahead += group->sampled_ahead;
    if (options_.hand_over_device_memory && plan_.gpu && groups_.size() == 1)
    {
        result_.device_memory = std::make_shared<HandedOver>(std::move(groups_));
        groups_.clear();
    }
    else
    {
        // Device memory freed with each group's device current.
        for_each_group(groups_, plan_.gpu,
                       [](size_type, TransportGroupBase& group) { group.free_memory(); });
    }
    result_.final_grids_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - finishing).count();
    return std::move(result_);
}

TransportRunResult run_transport(TransportChoice const& choice, TransportInputs const& inputs,
                                 size_type voxels, TransportRunOptions const& options)
{
    return TransportDriver(choice, inputs, voxels, options)();
}

template <class Real>
TransportRunResult run_transport(TransportChoice const& choice, TransportParams const& physics,
                                 SourceMixView<Real> const& source, size_type voxels,
                                 TransportRunOptions const& options)
{
    MCDOSE_VALIDATE(options.backend != Backend::gpu || options.gpus.size() <= 1,
                    << "one set of physics tables cannot serve several GPUs; build per-device "
                       "params and give run_transport the inputs of each group");
    MemSpace const where = options.backend == Backend::gpu ? MemSpace::device : MemSpace::host;
    TransportInputsFor<Real> inputs = [&](int, size_type)
    {
        TransportGroupInputs<Real> in;
        in.physics = physics.view<Real>(where);
        in.source = source;
        return in;
    };
    return run_transport(choice, TransportInputs(std::move(inputs)), voxels, options);
}

template TransportRunResult run_transport<float>(TransportChoice const&, TransportParams const&,
                                                 SourceMixView<float> const&, size_type,
                                                 TransportRunOptions const&);
template TransportRunResult run_transport<double>(TransportChoice const&, TransportParams const&,
                                                  SourceMixView<double> const&, size_type,
                                                  TransportRunOptions const&);
} // namespace mcdose
