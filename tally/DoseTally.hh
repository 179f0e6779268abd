//! \file tally/DoseTally.hh
//! Host-owned dose grid: the current batch (in the chosen method's storage,
//! on the host or the device) and, in the same memory, the running totals and
//! what the batch-method uncertainty needs. A batch is folded where it is (a
//! kernel on the device, all threads on the host); only the final grids, or a
//! checkpoint's totals, cross to the host. See docs/tally.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Assert.hh"
#include "core/DeviceBuffer.hh"
#include "core/Types.hh"
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

//! Energy per voxel with its batch-method standard uncertainty.
struct DoseResult
{
    std::vector<double> energy_MeV; //!< total over all folded batches
    std::vector<double>
        energy_sigma_MeV; //!< standard uncertainty of the total (NaN if < 2 batches)
    std::uint64_t batches{0};
    std::uint64_t histories{0};
};

//! The folded part of a tally (what a checkpoint stores to resume a run).
struct DoseTallyTotals
{
    std::vector<double> total_hi, total_lo; //!< double-double running total per voxel [MeV]
    std::vector<double> sum_sq;             //!< sum over batches of (batch energy)^2
    std::uint64_t batches{0};
    std::uint64_t histories{0};
    std::uint64_t min_batch_histories{0};
    std::uint64_t max_batch_histories{0};
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
};

//! How a tally folds its batches, and what it keeps of each besides the totals.
struct DoseFoldOptions
{
    int host_threads{0}; //!< CPU backend: threads of the fold and the result (0: all)
    SlabSpec slabs;      //!< per-batch slab sums (e.g. the depth dose); off by default
};

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

    //! View of the current batch grid for Policy (host memory for the CPU
    //! backend, device memory for the GPU backend). Policy must match method().
    template <class Policy>
    DoseTallyView<Policy> view();

    //! End the current batch of `histories` histories: fold it into the
    //! totals and the sum of squares where it lives (device kernel or host
    //! threads), and clear the batch grid.
    void end_batch(std::uint64_t histories);
    //! Fold a batch given as energy per voxel [MeV] (e.g. the sum of the
    //! batch grids of several devices or ranks); the batch grid is untouched.
    void fold_batch(std::vector<double> const& batch_MeV, std::uint64_t histories);
    //! Replace the batch grid by raw words of this tally's method (e.g. the
    //! integer sum of several FX grids), to be folded by end_batch.
    void set_batch_words(std::vector<std::uint64_t> const& words);
    //! Slab sums [MeV] of the last folded batch (empty unless input.slabs is enabled).
    std::vector<double> const& last_batch_slabs() const { return last_slabs_; }
    //! The folded totals (copied to the host), and their restoration (same
    //! voxel count) on resume.
    DoseTallyTotals totals() const;
    void restore(DoseTallyTotals totals);
    //! Totals and uncertainty over the folded batches (computed where the
    //! totals are; only these two grids cross to the host).
    DoseResult result() const;

    //! The current (unfolded) batch decoded to MeV per voxel.
    std::vector<double> batch_energy_MeV() const;
    //! The current batch's raw storage words (for bitwise comparisons).
    std::vector<std::uint64_t> batch_words() const;
    //! Zero the current batch grid.
    void clear_batch();

  private:
    TallyMethod method_;
    Backend backend_;
    size_type voxels_;
    size_type words64_;
    int fx_quantum_exp2_;
    int host_threads_;
    SlabSpec slabs_;
    std::vector<std::uint64_t> host_words_;    //!< batch grid (CPU backend)
    DeviceBuffer<std::uint64_t> device_words_; //!< batch grid (GPU backend)
    //! Running totals (CPU backend): double-double total and sum over batches
    //! of (batch energy)^2, per voxel.
    std::vector<double> total_hi_, total_lo_, sum_sq_;
    //! The same on the device (GPU backend; allocated at the first fold).
    DeviceBuffer<double> device_hi_, device_lo_, device_sum_sq_;
    DeviceBuffer<std::uint64_t> device_slabs_;
    std::vector<double> last_slabs_;
    std::uint64_t batches_{0};
    std::uint64_t histories_{0};
    std::uint64_t min_batch_histories_{0};
    std::uint64_t max_batch_histories_{0};

    std::uint64_t* batch_data();
    double fx_scale_per_MeV() const;
    bool on_device() const { return backend_ == Backend::gpu; }
    void ensure_device_totals();
    DeviceTotals device_totals();
    //! Fold `words` of `method` (host or device memory as the backend) and clear them.
    void fold_words(TallyMethod method, std::uint64_t* words);
    void count_batch(std::uint64_t histories);
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
    return {{reinterpret_cast<word_type*>(this->batch_data()), voxels_}, this->fx_scale_per_MeV()};
}
} // namespace mcdose
