//! \file tally/DoseTally.hh
//! Host-owned dose grid: the batch grids of one launch (in the chosen
//! method's storage, on the host or the device) and, in the same memory, the
//! running totals and what the batch-method uncertainty needs. A batch is
//! folded where it is (a kernel on the device, all threads on the host), over
//! the strips of voxels its deposits touched; only the final grids, or a
//! checkpoint's totals, cross to the host. See docs/tally.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Assert.hh"
#include "core/DeviceBuffer.hh"
#include "core/HostMemory.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "tally/BatchEnergyView.hh"
#include "tally/DoseFold.hh"
#include "tally/DoseTallyView.hh"
#include "tally/TallyMethod.hh"

namespace mcdose
{
//! Histories [begin, end) of one batch.
struct HistoryRange
{
    std::uint64_t begin{0};
    std::uint64_t end{0};
};

//! Batch b of `batches` equal splits of [0, histories): sizes differ by at
//! most one history, and the split depends on nothing but the three numbers
//! (so batches, hence FX results, are reproducible for any thread count).
HistoryRange batch_history_range(std::uint64_t histories, std::uint64_t batches, std::uint64_t b);

//! Piece i of `parts` contiguous pieces of `range`, sizes within one history
//! of each other (the rule of batch_history_range): how a distributed run
//! splits a batch over ranks, and a rank's piece over its devices. Pieces may
//! be empty when parts exceeds the range.
HistoryRange split_history_range(HistoryRange range, std::uint64_t parts, std::uint64_t i);

//! Decode `voxels` words of method `m` (FX quantum 2^fx_quantum_exp2 MeV) to MeV.
std::vector<double> decode_tally_words(TallyMethod m, int fx_quantum_exp2,
                                       std::vector<std::uint64_t> const& words, size_type voxels);

//! Energy per voxel with its standard uncertainty (batch method, or history by history).
struct DoseResult
{
    std::vector<double> energy_MeV; //!< total over all folded batches
    std::vector<double>
        energy_sigma_MeV; //!< standard uncertainty of the total (NaN if < 2 batches/histories)
    std::uint64_t batches{0};
    std::uint64_t histories{0};
    bool history_moments{false}; //!< the uncertainty is history by history
};

/*!
 * A result's two grids where the caller keeps them (DoseTally::result), each made as zero
 * values whose memory is mapped where first written (core/HostMemory.hh), with the mask
 * of the voxels with energy (tally/EnergyMask.hh). From the GPU, where every voxel
 * without energy has uncertainty 0, only the mask and the values of the voxels with
 * energy cross to the host and only their pages are written.
 */
struct DoseGrids
{
    explicit DoseGrids(size_type voxels) : energy_MeV(voxels), energy_sigma_MeV(voxels) {}

    ZeroedArray<double> energy_MeV;        //!< as DoseResult's
    ZeroedArray<double> energy_sigma_MeV;  //!< as DoseResult's
    std::vector<std::uint64_t> has_energy; //!< mask of energy_MeV[v] != 0
};

//! The folded part of a tally (what a checkpoint stores to resume a run).
struct DoseTallyTotals
{
    std::vector<double> total_hi, total_lo; //!< double-double running total per voxel [MeV]
    std::vector<double> sum_sq;             //!< sum over batches of (batch energy)^2
    //! History moments: sum over histories of (history energy)^2, FX units
    //! (empty unless the tally keeps them).
    std::vector<std::uint64_t> history_sum_sq;
    //! The same for each slab's energy (empty unless the tally keeps history
    //! moments and slab sums).
    std::vector<std::uint64_t> history_slab_sum_sq;
    std::uint64_t batches{0};
    std::uint64_t histories{0};
    std::uint64_t min_batch_histories{0};
    std::uint64_t max_batch_histories{0};
    //! The first batch's history count: batch b's square is folded times this over its
    //! own count (detail::fold_energy), so batches of any size give an exact uncertainty.
    std::uint64_t reference_batch_histories{0};
};

//! Construction arguments.
struct DoseTallyInput
{
    TallyMethod method{TallyMethod::fx};
    size_type voxels{0};
    //! Upper bound on the sum of all deposits of the whole run [MeV] (e.g.
    //! histories x (source kinetic energy + 2 m_e c^2 for positron sources)):
    //! sets the FX quantum so no voxel can overflow int64.
    double max_total_energy_MeV{0};
    Backend backend{Backend::cpu}; //!< where the batch grid and the totals live: cpu or gpu
    //! Batch grids (the batches one launch fills, each into its own grid).
    size_type slots{1};
    //! History-by-history moments (CPU backend, one slot): each voxel's sum
    //! over histories of (history energy)^2, from the per-thread history
    //! scratch of DoseTallyView::with_history_scratch; result() then gives the
    //! history-by-history uncertainty (Walters, Kawrakow and Rogers 2002).
    bool history_moments{false};
    //! Largest energy one history can deposit [MeV] (sets the FX quantum of
    //! the squares; 0: max_total_energy_MeV).
    double max_history_energy_MeV{0};
};

//! A batch's history-by-history squares in FX units (DoseTally with history moments):
//! per voxel, and per slab of the slab sums.
struct BatchHistorySquares
{
    std::vector<std::uint64_t> voxels;
    std::vector<std::uint64_t> slabs;
};

//! How a tally folds its batches, and what it keeps of each besides the totals.
struct DoseFoldOptions
{
    int host_threads{0}; //!< CPU backend: threads of the fold and the result (0: all)
    SlabSpec slabs;      //!< per-batch slab sums (e.g. the depth dose); off by default
};

//! A batch given as energy per voxel [MeV] (fold_batch's), which must outlive the view.
BatchEnergyView batch_energy_view(std::vector<double> const& batch_MeV, std::uint64_t histories);

class DoseTally
{
  public:
    explicit DoseTally(DoseTallyInput const& input, DoseFoldOptions const& fold = {});

    TallyMethod method() const { return method_; }
    Backend backend() const { return backend_; }
    size_type voxels() const { return voxels_; }
    //! FX quantum q = 2^e MeV: the resolution of an FX voxel (and of a deposit).
    int fx_quantum_exp2() const { return fx_quantum_exp2_; }
    double fx_quantum_MeV() const;

    //! Batch grids: how many batches one launch can fill.
    size_type slots() const { return slots_; }

    //! View of the batch grids for Policy (host memory for the CPU backend,
    //! device memory for the GPU backend), every history in slot 0 until
    //! DoseTallyView::set_slot_map says otherwise. Policy must match method().
    template <class Policy>
    DoseTallyView<Policy> view();

    //! End the current batch of `histories` histories (slot 0): fold it into
    //! the totals and the sum of squares where it lives (device kernel or host
    //! threads), and clear the batch grid.
    void end_batch(std::uint64_t histories);
    //! End the batches of slots 0, 1, ..., in that order (histories[k] in slot k):
    //! the same totals, bit for bit, as one end_batch after each of them.
    void end_batches(std::vector<std::uint64_t> const& histories);
    //! Fold a batch given as energy per voxel [MeV] (e.g. the sum of the
    //! batch grids of several devices or ranks), with the batch's history squares
    //! if the tally keeps them; the batch grid is untouched.
    void fold_batch(std::vector<double> const& batch_MeV, std::uint64_t histories);
    //! Replace the batch grid by raw words of this tally's method (e.g. the
    //! integer sum of several FX grids), to be folded by end_batch.
    void set_batch_words(std::vector<std::uint64_t> const& words);
    //! Slab sums [MeV] of each batch the last end_batch(es) folded, in batch
    //! order (each empty unless the fold options enable slabs).
    std::vector<std::vector<double>> const& folded_slabs() const { return folded_slabs_; }
    //! Slab sums [MeV] of the last folded batch.
    std::vector<double> const& last_batch_slabs() const { return folded_slabs_.back(); }
    //! The folded totals (copied to the host), and their restoration (same
    //! voxel count) on resume.
    DoseTallyTotals totals() const;
    void restore(DoseTallyTotals totals);
    //! Totals and uncertainty over the folded batches (computed where the
    //! totals are; only these two grids cross to the host). With history
    //! moments the uncertainty is the history-by-history one. With `into` (grids
    //! of this tally's voxels) the grids and their mask are written there and the
    //! result's own grids are left empty.
    DoseResult result(DoseGrids* into = nullptr) const;
    bool history_moments() const { return history_moments_; }
    //! With history moments and slab sums: each slab's sum over histories of
    //! (the history's energy in the slab)^2 [MeV^2] over the folded batches
    //! (else empty). With the batches' slab sums it gives a depth-dose curve's
    //! history-by-history uncertainty.
    std::vector<double> history_slab_sum_sq() const;

    //! Voxels [first, first + count) of slot k's batch grid of `histories` histories, before
    //! end_batch(es) folds it: read in place on the host; GPU backend: copied into `staging`,
    //! which must outlive the view.
    BatchEnergyView batch_view(size_type k, std::uint64_t histories, size_type first,
                               size_type count, std::vector<std::uint64_t>& staging) const;
    //! The current (unfolded) batch of slot 0 decoded to MeV per voxel.
    std::vector<double> batch_energy_MeV() const;
    //! The raw storage words of every slot's grid (for bitwise comparisons).
    std::vector<std::uint64_t> batch_words() const;
    //! History moments (CPU): the current batch's squares, and their replacement (e.g.
    //! the integer sum of several groups' and ranks'), folded with the next batch.
    BatchHistorySquares batch_history_squares() const;
    void set_batch_history_squares(BatchHistorySquares squares);
    //! Zero every batch grid.
    void clear_batch();
    //! The run is over: free the host batch grids, their touched flags and the batch's history
    //! squares (the CPU backend's 8-16 bytes per voxel), so that result()'s grids do not come
    //! on top of them. Only result(), totals() and history_slab_sum_sq() may follow.
    void release_batch_grids();

  private:
    TallyMethod method_;
    Backend backend_;
    size_type voxels_;
    size_type slots_;
    size_type slot_words_;  //!< words of the method per slot (8-byte multiple)
    size_type slot_strips_; //!< touched-strip flags per slot
    size_type words64_;     //!< 64-bit words of all slots
    int fx_quantum_exp2_;
    int host_threads_;
    SlabSpec slabs_;
    std::vector<std::uint64_t> host_words_;     //!< batch grids (CPU backend)
    DeviceBuffer<std::uint64_t> device_words_;  //!< batch grids (GPU backend)
    std::vector<std::uint8_t> host_touched_;    //!< touched strips per slot (CPU backend)
    DeviceBuffer<std::uint8_t> device_touched_; //!< the same (GPU backend)
    //! Running totals (CPU backend): double-double total and sum over batches
    //! of (batch energy)^2, per voxel.
    std::vector<double> total_hi_, total_lo_, sum_sq_;
    //! The same on the device (GPU backend; allocated at the first fold).
    DeviceBuffer<double> device_hi_, device_lo_, device_sum_sq_;
    DeviceBuffer<std::uint64_t> device_slabs_;
    std::vector<std::vector<double>> folded_slabs_;
    bool history_moments_;
    bool dense_fold_{false}; //!< $MCDOSE_DENSE_FOLD: no touched flags (benchmarking)
    int sq_quantum_exp2_{0}; //!< FX quantum of the history squares [MeV^2]
    std::vector<std::uint64_t> history_sq_batch_;      //!< this batch's history squares
    std::vector<std::uint64_t> history_sq_total_;      //!< the folded batches' history squares
    std::vector<std::uint64_t> history_slab_sq_batch_; //!< this batch's slab squares
    std::vector<std::uint64_t> history_slab_sq_total_; //!< the folded batches' slab squares
    std::uint64_t batches_{0};
    std::uint64_t histories_{0};
    std::uint64_t min_batch_histories_{0};
    std::uint64_t max_batch_histories_{0};
    std::uint64_t reference_batch_histories_{0}; //!< DoseTallyTotals::reference_batch_histories

    std::uint64_t* batch_data();
    std::uint8_t* touched_data();
    //! Slot k's words, as 64-bit words (slots are 8-byte aligned).
    std::uint64_t* slot_data(size_type k);
    double fx_scale_per_MeV() const;
    double sq_scale_per_MeV2() const;
    bool on_device() const { return backend_ == Backend::gpu; }
    void ensure_device_totals();
    DeviceTotals device_totals();
    //! Fold `count` batch grids of `method` from `words` on (host or device memory
    //! as the backend; a grid every slot stride), in order, and clear them: only the
    //! strips flagged in `touched` (a slot's flags each; then cleared), or every
    //! voxel if `touched` is null. Appends each grid's slab sums to folded_slabs_.
    void fold_words(TallyMethod method, std::uint64_t* words, std::uint8_t* touched,
                    std::vector<std::uint64_t> const& histories);
    //! Each batch's weight of its square (the reference batch size over its history count;
    //! the first batch folded sets the reference).
    std::vector<double> square_weights(std::vector<std::uint64_t> const& histories);
    //! One grid of fold_words on the host threads (with the batch's history squares).
    void fold_host_words(TallyMethod method, std::uint64_t* words, std::uint8_t* touched,
                         double sq_weight);
    //! The batches folded and their effective count (detail::batch_sigma).
    BatchCount batch_count() const;
    void count_batch(std::uint64_t histories);
    //! result() from the GPU as the voxels with energy: false (nothing written) where a
    //! voxel without energy has an uncertainty other than 0.
    bool result_voxels_into(DoseGrids& into) const;
    //! The final grids from the host totals (CPU backend).
    void host_result(Span<double> energy, Span<double> sigma) const;
};

//---------------------------------------------------------------------------//
template <class Policy>
DoseTallyView<Policy> DoseTally::view()
{
    MCDOSE_VALIDATE(std::string(Policy::name) == to_cstring(method_),
                    << "tally view requested for method '" << Policy::name
                    << "' but the tally was built for '" << to_cstring(method_)
                    << "'; call view() inside dispatch_tally_method(tally.method(), ...)");
    using word_type = typename Policy::word_type;
    DoseTallyView<Policy> v{
        {reinterpret_cast<word_type*>(this->batch_data()), slots_ * slot_words_},
        voxels_,
        slot_words_,
        this->touched_data(),
        slot_strips_,
        this->fx_scale_per_MeV()};
    if (history_moments_)
        v.set_history_squares(history_sq_batch_.data(), this->sq_scale_per_MeV2(), slabs_,
                              history_slab_sq_batch_.data());
    return v;
}
} // namespace mcdose
