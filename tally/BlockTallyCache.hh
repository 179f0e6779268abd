//! \file tally/BlockTallyCache.hh
//! A block's private copy of the hot voxels, for the CAS-loop methods.
#pragma once

#include <cstdint>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Types.hh"
#include "tally/detail/AtomicWords.hh"

namespace mcdose
{
/*!
 * Per-block cache of voxels in front of the batch grid, for the methods whose
 * add is a 64-bit CAS loop (CAS, WAG, KAS: `Policy::block_cached`).
 *
 * Why: a CAS loop under contention costs about N attempts per successful add
 * when N threads update the same word (docs/tally.md, "CAS, WAG and KAS under
 * extreme contention"). A pencil beam on 10^3 or 2^3 voxels sends every
 * deposit of the whole GPU (~10^5 threads) to a handful of words, and test 3
 * ran 150x slower with CAS than with hardware HB. With this cache the threads
 * of one block (128) contend for a word in shared memory and each block adds
 * each of its voxels to the grid once, at the end of the kernel: contention
 * drops by the ratio of resident threads to block size.
 *
 * What it keeps: the block's partial sums use the method's own add (the same
 * CAS loop, warp aggregation and Kahan pair, on the shared word), and the
 * flush adds each partial with the method again; so a voxel's value is still
 * a sum made only of the method's operations, in a different order (a
 * two-level sum). The error bounds of docs/tally.md hold with n = deposits
 * per block plus blocks. FA, HB, WIB and FX (hardware atomics) are not cached.
 *
 * Layout: `slots` (a power of two) words, then `slots` 32-bit keys.
 * - direct mode (grid voxels <= slots): slot = voxel, every voxel is cached,
 *   the keys are unused;
 * - hashed mode: a voxel goes to the first of `probes` slots after its
 *   multiplicative hash (Knuth, TAOCP 3, 6.4) that holds it or is free (a
 *   free slot is claimed by a CAS on its key and is never released); if all
 *   are taken by other voxels the deposit goes straight to the grid. Slots
 *   fill in the order the block first touches voxels (which voxels a block
 *   ends up caching was not measured).
 * Correct for any grid: a voxel's energy is in its cache slot, in the grid,
 * or in both, and the flush adds the slot to the grid.
 *
 * The device kernel puts the storage in dynamic shared memory, clears it,
 * synchronises the block, transports, synchronises, flushes. On the host the
 * storage can be any memory (the tests use a vector shared by std::threads).
 */
template <class Policy>
class BlockTallyCache
{
  public:
    using word_type = typename Policy::word_type;
    using key_type = std::uint32_t;
    static constexpr key_type empty_key = ~key_type(0);
    static constexpr int probes = 4;

    //! Slots of the transport kernel's cache: 2048 x (8 + 4) B = 24 KiB of
    //! shared memory per block (7 blocks of the double kernel: 168 of the
    //! H100's 228 KiB), enough for tests 3 and 4 in direct mode.
    static constexpr unsigned default_slots = 2048;

    //! Bytes of storage for `slots` slots.
    static constexpr size_type storage_bytes(unsigned slots)
    {
        return size_type(slots) * (sizeof(word_type) + sizeof(key_type));
    }

    BlockTallyCache() = default;

    //! `storage` holds storage_bytes(slots), 8-byte aligned; `slots` is a
    //! power of two. Caching is off for grids of 2^32 - 1 voxels or more.
    MCDOSE_FUNCTION BlockTallyCache(void* storage, unsigned slots, size_type voxels)
        : words_(static_cast<word_type*>(storage)),
          keys_(reinterpret_cast<key_type*>(static_cast<word_type*>(storage) + slots)),
          mask_(slots - 1), direct_(voxels <= slots),
          direct_voxels_(direct_ ? static_cast<unsigned>(voxels) : 0)
    {
        MCDOSE_EXPECT(slots >= 2 && (slots & (slots - 1)) == 0);
        if (voxels >= size_type(empty_key))
            words_ = nullptr;
        unsigned bits = 0;
        while ((1u << bits) < slots)
            ++bits;
        shift_ = 32 - bits;
    }

    MCDOSE_FORCEINLINE_FUNCTION bool active() const { return words_ != nullptr; }
    MCDOSE_FORCEINLINE_FUNCTION bool direct() const { return direct_; }

    //! Zero the words and free the keys of slots first, first + stride, ...
    //! (each thread of the block calls it with its index and the block size).
    MCDOSE_FUNCTION void clear(unsigned first, unsigned stride) const
    {
        for (unsigned s = first; s <= mask_; s += stride)
        {
            words_[s] = 0;
            keys_[s] = empty_key;
        }
    }

    //! The word that holds `voxel` in this block, claiming a free slot if
    //! needed; nullptr if the voxel's slots are taken (deposit to the grid).
    MCDOSE_FORCEINLINE_FUNCTION word_type* find(size_type voxel) const
    {
        if (direct_)
            return words_ + voxel;
        key_type const key = static_cast<key_type>(voxel);
        unsigned const home = (key * 2654435769u) >> shift_; // 2^32 / golden ratio
        for (int p = 0; p < probes; ++p)
        {
            unsigned const s = (home + p) & mask_;
            key_type k = detail::relaxed_load(keys_ + s);
            if (k == empty_key)
                k = detail::atomic_cas(keys_ + s, empty_key, key); // empty_key if we won
            if (k == key || k == empty_key)
                return words_ + s;
        }
        return nullptr;
    }

    //! Add every used slot among first, first + stride, ... to `grid` (a
    //! DoseTallyView<Policy> without a cache) with the method's add. Call after
    //! every thread of the block has finished depositing. The cache is indexed
    //! by the grid's words (all the batch grids of a launch).
    template <class GridView>
    MCDOSE_FUNCTION void flush(GridView const& grid, unsigned first, unsigned stride) const
    {
        for (unsigned s = first; s <= mask_; s += stride)
        {
            size_type word;
            if (direct_)
            {
                if (s >= direct_voxels_)
                    break;
                word = s;
            }
            else
            {
                if (keys_[s] == empty_key)
                    continue;
                word = keys_[s];
            }
            word_type const w = words_[s];
            if (w != 0) // +0.0 or an empty Kahan pair: nothing to add
                grid.deposit_word(word, Policy::decode(w, 0));
        }
    }

  private:
    word_type* words_{nullptr};
    key_type* keys_{nullptr};
    unsigned mask_{0};
    unsigned shift_{32};
    bool direct_{false};
    unsigned direct_voxels_{0};
};
} // namespace mcdose
