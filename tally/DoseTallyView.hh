//! \file tally/DoseTallyView.hh
//! What a transport kernel or CPU thread holds to deposit energy.
#pragma once

#include <cstdint>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "tally/AtomicPolicies.hh"
#include "tally/BlockTallyCache.hh"
#include "tally/DoseFold.hh"
#include "tally/HistoryScratch.hh"

namespace mcdose
{
//! Voxels per strip of the touched-strip flags: a batch fold visits only the
//! strips (runs of 2^5 = 32 consecutive voxel indices, a warp's worth) that a
//! deposit touched. Short strips keep the fold of scattered photon deposits
//! cheap; the flags cost a byte per 32 voxels.
inline constexpr int tally_strip_shift = 5;

/*!
 * Which of the batch grids of one launch a history deposits into. A run's
 * batches split its histories into near-equal ranges of whole granules (the
 * rule of batch_history_range: the first `extra` batches hold `base + 1`
 * granules, the others `base`); a launch that fills several batches gives
 * each its own grid, slot 0 holding batch `first_batch`. So a history's batch,
 * hence every batch's set of deposits, does not depend on how many batches
 * one launch fills. `base == 0`: one batch per launch, everything in slot 0.
 */
struct BatchSlotMap
{
    std::uint64_t granule{1};
    std::uint64_t base{0};
    std::uint64_t extra{0};
    std::uint64_t first_batch{0};

    //! Slot of history h (h must belong to a batch of this launch).
    MCDOSE_FUNCTION size_type slot_of(std::uint64_t history) const
    {
        if (base == 0)
            return 0;
        std::uint64_t const u = history / granule;
        std::uint64_t const long_part = extra * (base + 1);
        std::uint64_t const batch = u < long_part ? u / (base + 1) : extra + (u - long_part) / base;
        return static_cast<size_type>(batch - first_batch);
    }
};

//! Where a history's deposits go: its batch grid's first word and touched flag.
struct TallySlot
{
    size_type word_offset{0};
    size_type strip_offset{0};
};

/*!
 * Trivially copyable view of the batch grids of one launch (one grid per
 * batch, `slots` of them, each `voxels` words, padded to 8 bytes), templated
 * on the atomic policy (tally/AtomicPolicies.hh). Pass it by value to a
 * kernel or a std::thread; `deposit` is safe from any number of threads at
 * once. A deposit also marks its strip of 2^tally_strip_shift voxels as
 * touched, so that the fold can skip the rest of the grid. Get one from
 * DoseTally::view<Policy>() inside dispatch_tally_method().
 */
template <class Policy>
class DoseTallyView
{
  public:
    using policy_type = Policy;
    using word_type = typename Policy::word_type;

    DoseTallyView() = default;
    //! One grid of words.size() voxels, no touched flags (tests, benchmarks).
    MCDOSE_FUNCTION DoseTallyView(Span<word_type> words, double fx_scale_per_MeV)
        : words_(words), voxels_(words.size()), slot_words_(words.size()),
          fx_scale_per_MeV_(fx_scale_per_MeV)
    {
    }
    //! `words` holds the grids of every slot, `slot_words` apart; `touched`
    //! holds each slot's strip flags, `slot_strips` apart (null: none kept).
    MCDOSE_FUNCTION DoseTallyView(Span<word_type> words, size_type voxels, size_type slot_words,
                                  std::uint8_t* touched, size_type slot_strips,
                                  double fx_scale_per_MeV)
        : words_(words), voxels_(voxels), slot_words_(slot_words), touched_(touched),
          slot_strips_(slot_strips), fx_scale_per_MeV_(fx_scale_per_MeV)
    {
    }

    //! The same grids with a block cache in front (BlockTallyCache.hh; only
    //! for the methods with `Policy::block_cached`). Flush the cache into
    //! the view without it.
    MCDOSE_FUNCTION DoseTallyView with_cache(BlockTallyCache<Policy> const& cache) const
    {
        static_assert(Policy::block_cached, "this method adds by hardware atomics: no cache");
        DoseTallyView v = *this;
        v.cache_ = cache;
        return v;
    }

    //! The history-by-history moments (DoseTally with `history_moments`): the
    //! grid of each voxel's sum over histories of (history energy)^2, in FX
    //! units of 1/sq_scale_per_MeV2 MeV^2, and, with `slabs` enabled, the same
    //! sum for each slab's energy (`slab_squares`, one word per slab).
    void set_history_squares(std::uint64_t* squares, double sq_scale_per_MeV2,
                             SlabSpec const& slabs = {}, std::uint64_t* slab_squares = nullptr)
    {
        history_sq_ = squares;
        sq_scale_per_MeV2_ = sq_scale_per_MeV2;
        slabs_ = slabs;
        history_slab_sq_ = slabs.enabled() ? slab_squares : nullptr;
    }

    //! The same grids for one CPU thread whose deposits are summed per voxel in
    //! `scratch` until end_history() (history-by-history moments; host only).
    DoseTallyView with_history_scratch(HistoryScratch* scratch) const
    {
        DoseTallyView v = *this;
        v.scratch_ = history_sq_ ? scratch : nullptr;
        return v;
    }

    //! The thread's history is over: each voxel's history total goes to the
    //! grid with the method's add, its square to the history squares. A no-op
    //! without a history scratch (and always on a GPU).
    MCDOSE_FUNCTION void end_history() const
    {
#if !MCDOSE_DEVICE_COMPILE
        if (scratch_)
            this->drain_history();
#endif
    }

    //! The thread's part of the batch is over (after its last end_history()): its sums
    //! over histories (the slabs' squares) go to the shared ones. A no-op without a
    //! history scratch (and always on a GPU).
    MCDOSE_FUNCTION void end_worker() const
    {
#if !MCDOSE_DEVICE_COMPILE
        if (scratch_)
            this->drain_worker();
#endif
    }

    //! Which batch of the launch goes to which grid (set before each launch).
    void set_slot_map(BatchSlotMap const& map)
    {
        map_ = map;
    }

    //! The grid of history h's batch.
    MCDOSE_FUNCTION TallySlot slot(std::uint64_t history) const
    {
        size_type const s = map_.slot_of(history);
        MCDOSE_EXPECT((s + 1) * slot_words_ <= words_.size());
        return {s * slot_words_, s * slot_strips_};
    }

    //! Add energy [MeV] to a voxel (flat index < voxels()) of a slot's grid.
    MCDOSE_FORCEINLINE_FUNCTION void deposit(TallySlot slot, size_type voxel,
                                             double energy_MeV) const
    {
        MCDOSE_EXPECT(voxel < voxels_);
        size_type const w = slot.word_offset + voxel;
#if !MCDOSE_DEVICE_COMPILE
        if (scratch_)
        {
            scratch_->words.add(w, energy_MeV); // reaches the grid at end_history()
            return;
        }
#endif
        word_type* cell = words_.data() + w;
        if constexpr (Policy::block_cached)
        {
            if (cache_.active())
            {
                if (word_type* cached = cache_.find(w))
                    cell = cached;
            }
        }
        Policy::deposit(cell, energy_MeV, fx_scale_per_MeV_);
        if (touched_)
            mark_touched(touched_ + slot.strip_offset + (voxel >> tally_strip_shift));
    }
    //! Add energy [MeV] to a voxel of the first grid.
    MCDOSE_FORCEINLINE_FUNCTION void deposit(size_type voxel, double energy_MeV) const
    {
        this->deposit(TallySlot{}, voxel, energy_MeV);
    }
    //! Add energy [MeV] to word `word` of the grids, with no touched flag
    //! (the block cache's flush: its deposits marked their strips already).
    MCDOSE_FORCEINLINE_FUNCTION void deposit_word(size_type word, double energy_MeV) const
    {
        MCDOSE_EXPECT(word < words_.size());
        Policy::deposit(words_.data() + word, energy_MeV, fx_scale_per_MeV_);
    }
    //! Voxels of one grid.
    MCDOSE_FORCEINLINE_FUNCTION size_type voxels() const
    {
        return voxels_;
    }
    //! Words of all the grids (the index space of the block cache).
    MCDOSE_FORCEINLINE_FUNCTION size_type words() const
    {
        return words_.size();
    }

  private:
    Span<word_type> words_;
    size_type voxels_{0};
    size_type slot_words_{0};
    std::uint8_t* touched_{nullptr};
    size_type slot_strips_{0};
    double fx_scale_per_MeV_{0};
    BatchSlotMap map_;
    BlockTallyCache<Policy> cache_;      //!< inactive unless with_cache()
    std::uint64_t* history_sq_{nullptr}; //!< history moments (null: batch method only)
    double sq_scale_per_MeV2_{0};
    SlabSpec slabs_;                          //!< the slabs of history_slab_sq_
    std::uint64_t* history_slab_sq_{nullptr}; //!< history moments of the slab sums (or null)
    HistoryScratch* scratch_{nullptr};        //!< this CPU thread's history (host only)

    //! Hand the thread's history to the grids (history-by-history moments:
    //! one batch grid, so a word is its voxel), and the squares of its slab
    //! sums to theirs.
    void drain_history() const
    {
        using SqWord = FxPolicy::word_type;
        // An atomic add waits for its cache line: the lines of the voxels a few
        // places on are fetched meanwhile.
        constexpr size_type lookahead = 8;
        scratch_->words.drain(
            [this](size_type w, double e)
            {
                Policy::deposit(words_.data() + w, e, fx_scale_per_MeV_);
                mark_touched(touched_ + (w >> tally_strip_shift));
                FxPolicy::deposit(reinterpret_cast<SqWord*>(history_sq_) + w, e * e,
                                  sq_scale_per_MeV2_);
                if (history_slab_sq_)
                    scratch_->slabs.add(slabs_.slab_of(w), e);
            },
            [this](size_type w)
            {
                __builtin_prefetch(words_.data() + w, 1);
                __builtin_prefetch(history_sq_ + w, 1);
            },
            lookahead);
        if (history_slab_sq_)
        {
            auto& squares = scratch_->slab_squares;
            if (squares.size() < slabs_.count())
                squares.resize(slabs_.count(), 0);
            // The thread's own sums (integer adds: the shared sums get the same bits).
            scratch_->slabs.drain(
                [this, &squares](size_type s, double e) {
                    squares[s] += static_cast<std::uint64_t>(
                        accum::to_fixed_units(e * e, sq_scale_per_MeV2_));
                });
        }
    }

    //! Add the thread's slab squares to the shared ones and zero them.
    void drain_worker() const
    {
        if (!history_slab_sq_)
            return;
        using SqWord = FxPolicy::word_type;
        auto& squares = scratch_->slab_squares;
        for (size_type s = 0; s < squares.size(); ++s)
        {
            if (squares[s] != 0)
                detail::atomic_add_word(reinterpret_cast<SqWord*>(history_slab_sq_) + s,
                                        static_cast<SqWord>(squares[s]));
            squares[s] = 0;
        }
    }

    //! Set a flag to 1 unless it is already (racing threads all store 1).
    MCDOSE_FORCEINLINE_FUNCTION static void mark_touched(std::uint8_t* flag)
    {
#if MCDOSE_DEVICE_COMPILE
        auto* f = static_cast<std::uint8_t volatile*>(flag);
        if (*f == 0)
            *f = 1;
#else
        if (__atomic_load_n(flag, __ATOMIC_RELAXED) == 0)
            __atomic_store_n(flag, std::uint8_t(1), __ATOMIC_RELAXED);
#endif
    }
};
} // namespace mcdose
