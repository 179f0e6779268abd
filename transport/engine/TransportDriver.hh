//! \file transport/engine/TransportDriver.hh
//! The batch loop of a transport run (run_transport, TransportRun.hh), the same for every
//! precision, generator and tally method: the batch plan and a resume from a checkpoint,
//! one host thread per worker group (a GPU, or a CPU thread team) driving the typed groups
//! made by make_transport_group, the ranks' agreement on stopping, the reduction of the
//! groups' and ranks' batch grids and their fold into the totals, checkpoints, timing and
//! the finish. With one group and one rank the batch is folded where it is (a kernel on the
//! GPU, all threads on the CPU) and only the final grids cross to the host; otherwise the
//! grids are reduced (tally/BatchReduction.hh) and folded into a host tally.
//! Only transport/ includes this header.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tally/DoseTally.hh"
#include "transport/engine/TransportGroupBase.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose
{
//! The batches of a run and the worker groups of this rank, from validated options.
struct BatchPlan
{
    bool open_ended{false};           //!< no history count: until on_batch stops it
    std::uint64_t total_histories{0}; //!< the history count, or the open-ended maximum
    std::uint64_t num_batches{0};
    bool gpu{false};
    std::vector<int> devices;     //!< one per group (-1: CPU, or the current GPU)
    int cpu_threads_per_group{0}; //!< CPU backend
};

//! The batches and groups of a run (refuses inconsistent history counts).
BatchPlan plan_batches(TransportRunOptions const& options);

/*!
 * One transport run, in its steps: resume from a checkpoint, set up the worker groups,
 * then per launch transport and fold its batches, report progress and checkpoint; finish
 * with the totals.
 */
class TransportDriver
{
  public:
    TransportDriver(TransportChoice const& choice, TransportInputs inputs, size_type voxels,
                    TransportRunOptions const& options);
    ~TransportDriver();
    TransportDriver(TransportDriver const&) = delete;
    TransportDriver& operator=(TransportDriver const&) = delete;

    //! Run every batch (or until stopped) and return the totals.
    TransportRunResult operator()();

  private:
    using Groups = std::vector<std::unique_ptr<TransportGroupBase>>;
    class StopWatch;

    TransportChoice const choice_;
    TransportInputs const inputs_;
    size_type voxels_;
    TransportRunOptions const& options_;
    Comm const& comm_;
    BatchPlan const plan_;
    std::uint64_t slots_{1};     //!< batches per launch (set with the groups)
    DoseTallyInput tally_input_; //!< of each group's batch grids
    std::string const fingerprint_;
    //! Several groups or ranks: the host tally their reduced batches are
    //! folded into (identical on every rank). Null with one group and rank.
    std::unique_ptr<DoseTally> master_;
    DoseTally* folder_{nullptr}; //!< the tally holding the totals (master or group 0's)
    std::unique_ptr<DoseTallyTotals> restored_tally_;

    TransportRunResult result_;
    EnergyBalance restored_balance_;
    double restored_time_s_{0};
    std::uint64_t first_batch_{0};
    bool finished_{false};
    Groups groups_;
    std::vector<std::vector<std::uint64_t>> words_; //!< each group's batch grid, raw
    std::vector<BatchHistorySquares> squares_;      //!< each group's history squares (CPU)
    std::vector<std::vector<double>> figures_;      //!< batch_figures of the launch's batches
    std::chrono::steady_clock::time_point start_;
    double last_checkpoint_s_{0};

    DoseTallyInput make_tally_input() const;
    DoseFoldOptions fold_options(bool master) const;
    void set_up_folding();
    void resume();
    void set_up_groups();
    GroupSetup group_setup(size_type g, std::uint64_t per_group) const;
    HistoryRange batch_range(std::uint64_t b) const { return run_batch_range(options_, b); }
    std::uint64_t batches_per_launch(std::uint64_t per_batch) const;
    BatchSlotMap slot_map(std::uint64_t b) const;
    double elapsed_s() const;
    EnergyBalance balance_now() const;
    bool transport_batches(std::uint64_t b, std::uint64_t n);
    void end_piece(size_type g, std::uint64_t b, std::vector<std::uint64_t> const& sizes, bool cut);
    bool agree_on_cut(bool cut_here, std::vector<std::vector<EnergyBalance>> const& before);
    void fold_reduced_batch(std::uint64_t batch, std::uint64_t histories);
    void evaluate_batch(DoseTally const& tally, size_type k, std::uint64_t batch,
                        std::vector<std::uint64_t>& staging);
    void keep_digests(std::uint64_t n);
    bool end_batch(std::uint64_t b, HistoryRange const& range);
    void save_checkpoint(std::uint64_t b, HistoryRange const& range, double elapsed, bool finished);
    TransportRunResult finish();
};
} // namespace mcdose
