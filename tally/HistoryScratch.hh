//! \file tally/HistoryScratch.hh
//! One CPU thread's current history: the energy it deposited per grid word,
//! summed before it reaches the tally, for the history-by-history uncertainty.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/Types.hh"

namespace mcdose
{
/*!
 * Sums of energy per key (an open-addressing table with linear probing that
 * doubles when half full, and the list of its used slots so that draining
 * costs what was added).
 */
class EnergySums
{
  public:
    //! Add energy [MeV] to a key.
    void add(size_type key, double energy_MeV)
    {
        if (key == last_key_) // a track's steps in one voxel: no search
        {
            values_[last_slot_] += energy_MeV;
            return;
        }
        if (keys_.empty() || 2 * (used_.size() + 1) > keys_.size())
            this->grow();
        size_type s = this->home(key);
        while (keys_[s] != empty_key && keys_[s] != key)
            s = (s + 1) & mask_;
        if (keys_[s] == empty_key)
        {
            keys_[s] = key;
            values_[s] = 0;
            used_.push_back(s);
        }
        values_[s] += energy_MeV;
        last_key_ = key;
        last_slot_ = s;
    }

    //! Keys with a sum.
    size_type size() const { return used_.size(); }

    //! Call f(key, energy) for every key, in the order they were first added,
    //! and empty the table; ahead(key) is called `lookahead` keys before f(key)
    //! (e.g. to prefetch what f will touch).
    template <class F, class Ahead>
    void drain(F&& f, Ahead&& ahead, size_type lookahead)
    {
        size_type const n = used_.size();
        for (size_type i = 0; i < std::min(lookahead, n); ++i)
            ahead(keys_[used_[i]]);
        for (size_type i = 0; i < n; ++i)
        {
            if (i + lookahead < n)
                ahead(keys_[used_[i + lookahead]]);
            size_type const s = used_[i];
            f(keys_[s], values_[s]);
            keys_[s] = empty_key;
        }
        used_.clear();
        last_key_ = empty_key;
    }
    template <class F>
    void drain(F&& f)
    {
        this->drain(
            std::forward<F>(f), [](size_type) {}, 0);
    }

  private:
    static constexpr size_type empty_key = ~size_type(0);
    std::vector<size_type> keys_;
    std::vector<double> values_;
    std::vector<size_type> used_;
    size_type mask_{0};
    size_type last_key_{empty_key}; //!< the key added last, at last_slot_
    size_type last_slot_{0};

    size_type home(size_type key) const
    {
        return size_type((std::uint64_t(key) * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
    }

    void grow()
    {
        size_type const capacity = keys_.empty() ? 1024 : 2 * keys_.size();
        std::vector<size_type> const old_keys = std::move(keys_);
        std::vector<double> const old_values = std::move(values_);
        std::vector<size_type> const old_used = std::move(used_);
        keys_.assign(capacity, empty_key);
        values_.assign(capacity, 0.0);
        used_.clear();
        last_key_ = empty_key; // the slots move
        mask_ = capacity - 1;
        for (size_type s : old_used)
        {
            size_type t = this->home(old_keys[s]);
            while (keys_[t] != empty_key)
                t = (t + 1) & mask_;
            keys_[t] = old_keys[s];
            values_[t] = old_values[s];
            used_.push_back(t);
        }
    }
};

/*!
 * Sums of energy per slab of a depth-dose curve (a grid's slabs along one axis: at most a
 * few thousand): a dense array and the list of the slabs in the order they were first
 * added to, so that draining costs what was added. What EnergySums gives for the same
 * adds, bit for bit, without its search.
 */
class SlabSums
{
  public:
    //! Add energy [MeV] to a slab.
    void add(size_type slab, double energy_MeV)
    {
        if (slab >= added_.size())
        {
            energy_.resize(slab + 1, 0.0);
            added_.resize(slab + 1, 0);
        }
        if (!added_[slab])
        {
            added_[slab] = 1;
            order_.push_back(slab);
        }
        energy_[slab] += energy_MeV;
    }

    //! Call f(slab, energy) for every slab added to, in the order they were first
    //! added to, and empty the sums.
    template <class F>
    void drain(F&& f)
    {
        for (size_type s : order_)
        {
            f(s, energy_[s]);
            energy_[s] = 0;
            added_[s] = 0;
        }
        order_.clear();
    }

  private:
    std::vector<double> energy_;
    std::vector<std::uint8_t> added_;
    std::vector<size_type> order_;
};

/*!
 * The history a CPU thread is transporting: the energy it deposited per grid
 * word, summed before it reaches the tally, and per slab of a depth-dose
 * curve when the history ends. Host only: a history's deposits must all reach
 * one thread's table before the history ends, which is what makes the
 * history-by-history estimate possible on the CPU backend (docs/tally.md).
 */
struct HistoryScratch
{
    EnergySums words; //!< energy per grid word
    SlabSums slabs;   //!< energy per slab (filled as the words are drained)
    //! Per slab, the sum over this thread's histories of (the history's energy in the
    //! slab)^2 in FX words, added to the shared sums when the thread's part of the batch
    //! ends: a few hundred words that every thread would otherwise add to at every
    //! history's end.
    std::vector<std::uint64_t> slab_squares;
};
} // namespace mcdose
