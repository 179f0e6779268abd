//! \file rng/LaggedFibonacci.hh
//! Additive lagged-Fibonacci generator shared by all threads (cycle division).
//!
//! Recurrence (R. P. Brent, "Uniform random number generators for
//! supercomputers", Proc. 5th Australian Supercomputer Conf., 1992; lags from
//! primitive trinomials x^ll + x^sl + 1 over GF(2)):
//!     x_n = x_{n-ll} + x_{n-(ll-sl)}  mod 2^32,
//! stored in a ring of ll words, slot n mod ll. With N threads that each take
//! RNS numbers per round, thread j in round t computes positions
//!     n = (j + N t) RNS + k,  k < RNS,
//! reading ring[n mod ll] (x_{n-ll}) and ring[(n + sl - ll) mod ll]
//! (x_{n-(ll-sl)}) and writing ring[n mod ll] (C. L. Phillips, J. A. Anderson,
//! S. C. Glotzer, J. Comput. Phys. 230, 7191 (2011), Sec. 3). A round writes the
//! RNS N consecutive slots [t N RNS, (t+1) N RNS); it is race-free iff every
//! slot it reads lies outside that window: ll - sl > RNS N (the lagged read is
//! from an earlier round) and sl > RNS N (no other thread overwrites it during
//! the round). Both are validated on the host.
//!
//! Feeding an irregular consumer (the persistent transport kernel): rounds are
//! generated *between* batches by a refill pass (`begin_batch`), after which
//! thread j owns the slice of RNS words of round t and reads them in order
//! while the ring is not written. A thread that needs more than RNS words in
//! one batch does not wrap or race: its extra words come from Philox4x32-10
//! keyed by a hash of the seed with counter (overflow index, thread, round), and
//! are counted in one device counter; `overflow_words()` reads it (one 8-byte
//! copy, only when asked) so the caller can raise RNS or shorten batches. Memory: 4 ll bytes (ring)
//! + 4 N bytes (per-thread use counters) + 8 bytes (overflow counter).
#pragma once

#include <cstdint>
#include <vector>

#include "core/Assert.hh"
#include "core/DeviceBuffer.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "rng/PerThreadStates.hh"
#include "rng/Philox.hh"

namespace mcdose
{
//! Short and long lag (sl < ll) of a primitive trinomial.
struct LagPair
{
    std::uint32_t short_lag;
    std::uint32_t long_lag;
};

//! Brent's table of lag pairs used for selection by N (ascending ll).
inline constexpr LagPair brent_lag_table[] = {
    {1252, 2281},   {3004, 4423},    {5502, 9689},     {10095, 19937},   {12470, 23209},
    {23463, 44497}, {54454, 132049}, {279695, 756839}, {288477, 859433}, {1010202, 3021377}};

//! Host parameters.
struct LaggedFibonacciRngParams
{
    std::uint64_t seed{0};
    //! RNS: words each thread may take per round; 0 = the largest that the
    //! largest table entry allows for the thread count.
    size_type numbers_per_round{0};
    //! Lags; 0 = smallest Brent pair satisfying the race-free conditions.
    LagPair lags{0, 0};
};

//! Refuse (with a one-line error naming the fix) unless sl > RNS N and ll - sl > RNS N.
void validate_lag_conditions(LagPair lags, size_type num_threads, size_type numbers_per_round);
//! Smallest Brent pair with sl > RNS N and ll - sl > RNS N (throws if none).
LagPair choose_lags(size_type num_threads, size_type numbers_per_round);
//! Largest RNS that any table entry allows for N threads (throws if none).
size_type max_numbers_per_round(size_type num_threads);

//! Trivially copyable view for one round (batch).
struct LaggedFibonacciView
{
    Span<std::uint32_t> ring; //!< ll words, slot n mod ll
    Span<std::uint32_t> used; //!< words taken this round, per thread
    std::uint32_t short_lag;
    std::uint32_t long_lag;
    std::uint32_t numbers_per_round;
    std::uint32_t num_threads;
    std::uint32_t round_offset;         //!< (t N RNS) mod ll
    std::uint64_t round;                //!< t
    unsigned long long* overflow_words; //!< words served by the fallback (cumulative)
    std::uint32_t fallback_key[2];
};

namespace detail
{
//! Slot of thread j's k-th word in the current round (k < RNS).
//! round_offset < ll and j RNS + k < N RNS < ll, so one subtraction wraps it.
MCDOSE_FORCEINLINE_FUNCTION std::uint32_t lfg_slot(LaggedFibonacciView const& v, size_type thread,
                                                   std::uint32_t k)
{
    std::uint32_t p = v.round_offset + static_cast<std::uint32_t>(thread) * v.numbers_per_round + k;
    return p >= v.long_lag ? p - v.long_lag : p;
}

//! Host/device atomic add for the overflow counter.
MCDOSE_FORCEINLINE_FUNCTION void atomic_add_u64(unsigned long long* p, unsigned long long x)
{
#if MCDOSE_DEVICE_COMPILE
    atomicAdd(p, x);
#else
    __atomic_fetch_add(p, x, __ATOMIC_RELAXED);
#endif
}
} // namespace detail

//! Refill pass of one round for thread j (see file comment): the same code runs
//! in the device refill kernel and the host loop.
MCDOSE_FORCEINLINE_FUNCTION void lfg_generate_round(LaggedFibonacciView const& v, size_type thread)
{
    std::uint32_t p = detail::lfg_slot(v, thread, 0);
    for (std::uint32_t k = 0; k < v.numbers_per_round; ++k)
    {
        std::uint32_t q = p + v.short_lag; // (p + sl - ll) mod ll
        if (q >= v.long_lag)
            q -= v.long_lag;
        v.ring[p] = v.ring[p] + v.ring[q];
        if (++p == v.long_lag)
            p = 0;
    }
    v.used[thread] = 0;
}

//! Consumer engine for one thread in the current round.
class LaggedFibonacciEngine
{
  public:
    using result_type = std::uint32_t;
    using Params = LaggedFibonacciRngParams;
    using View = LaggedFibonacciView;
    static constexpr char const* name = "lagged-fibonacci";
    //! Per-thread bytes only (use counter); the shared ring adds 4 ll / N.
    static constexpr size_type state_bytes_per_thread = sizeof(std::uint32_t);

    MCDOSE_FUNCTION LaggedFibonacciEngine(View const& view, size_type thread)
        : view_(view), thread_(thread), used0_(view.used[thread]), used_(used0_)
    {
        if (used0_ < view_.numbers_per_round)
            slot_ = detail::lfg_slot(view_, thread_, used0_);
    }
    MCDOSE_FUNCTION ~LaggedFibonacciEngine()
    {
        view_.used[thread_] = used_;
        std::uint32_t const rns = view_.numbers_per_round;
        if (used_ > rns)
        {
            std::uint32_t const from = used0_ > rns ? used0_ : rns;
            detail::atomic_add_u64(view_.overflow_words, used_ - from);
        }
    }
    LaggedFibonacciEngine(LaggedFibonacciEngine const&) = delete;
    LaggedFibonacciEngine& operator=(LaggedFibonacciEngine const&) = delete;

    //! The shared stream is not keyed by history: nothing to do.
    MCDOSE_FUNCTION void begin_history(history_id_type) {}

    MCDOSE_FORCEINLINE_FUNCTION result_type operator()()
    {
        std::uint32_t const k = used_++;
        if (MCDOSE_LIKELY(k < view_.numbers_per_round))
        {
            result_type const x = view_.ring[slot_];
            if (++slot_ == view_.long_lag)
                slot_ = 0;
            return x;
        }
        return this->fallback(k - view_.numbers_per_round);
    }

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return 0xffffffffu; }

  private:
    View view_;
    size_type thread_;
    std::uint32_t used0_;
    std::uint32_t used_;
    std::uint32_t slot_{0};

    //! Slice exhausted: word i of Philox4x32-10 at counter (i/4, thread, round).
    MCDOSE_FUNCTION result_type fallback(std::uint32_t i) const
    {
        // Out of line, as in PhiloxEngine: one copy of the rounds, not one per draw site.
        return philox_word(philox4x32_10_outlined(i / 4, static_cast<std::uint32_t>(thread_),
                                                  static_cast<std::uint32_t>(view_.round),
                                                  static_cast<std::uint32_t>(view_.round >> 32),
                                                  view_.fallback_key[0], view_.fallback_key[1]),
                           i % 4);
    }
};

//! Owner of the shared ring, the per-thread use counters and the round
//! counter, on host or device. Batch protocol: `view = begin_batch()`
//! generates the next round; run the consumers; `end_batch()`.
class LaggedFibonacciRngStore
{
  public:
    using Engine = LaggedFibonacciEngine;
    using Params = LaggedFibonacciRngParams;
    using View = LaggedFibonacciView;

    LaggedFibonacciRngStore(Params const& params, size_type num_threads, MemSpace memspace);

    size_type num_threads() const { return num_threads_; }
    MemSpace memspace() const { return memspace_; }
    LagPair lags() const { return lags_; }
    size_type words_per_batch() const { return rns_; }
    //! Bytes of device/host memory: ring + counters.
    size_type memory_bytes() const;

    //! Generate the next round (refill pass) and return its view.
    View begin_batch();
    //! End of a batch (nothing to do: the overflow counter is read on demand).
    void end_batch() {}
    //! Words served by the Philox fallback since construction (reads the
    //! device counter: one 8-byte copy).
    unsigned long long overflow_words() const;

    //! Current ring contents (slot n mod ll), for tests.
    std::vector<std::uint32_t> ring_to_host() const;

  private:
    MemSpace memspace_;
    size_type num_threads_;
    size_type rns_;
    LagPair lags_;
    std::uint64_t next_round_{0};
    std::uint32_t next_offset_{0};
    std::uint32_t fallback_key_[2];
    View current_{};
    // host storage
    std::vector<std::uint32_t> ring_;
    std::vector<std::uint32_t> used_;
    std::vector<unsigned long long> overflow_;
    // device storage
    DeviceBuffer<std::uint32_t> d_ring_;
    DeviceBuffer<std::uint32_t> d_used_;
    DeviceBuffer<unsigned long long> d_overflow_;

    View make_round_view(std::uint64_t round, std::uint32_t offset);
};

//! Device refill pass for one round (N threads). Defined in LaggedFibonacci.cu.
#if MCDOSE_USE_CUDA
void lfg_generate_round_device(LaggedFibonacciView const& view);
#else
inline void lfg_generate_round_device(LaggedFibonacciView const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
