//! \file rng/Philox.hh
//! Philox4x32-10 counter-based generator (Random123).
//! Reference: J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel
//! random numbers: as easy as 1, 2, 3", SC'11 (2011).
//!
//! Mapping of mcdose quantities onto the 128-bit counter and 64-bit key:
//!   key     = (seed low 32 bits, seed high 32 bits)
//!   counter = (block, stream, history low 32 bits, history high 32 bits)
//! where block = draw index / 4 (each block gives 4 words). The 64-bit master
//! seed fills the key, so the stream id moves into the counter; distinct
//! (seed, stream, history, draw) tuples therefore map to distinct Philox
//! inputs, and a history's numbers depend only on (seed, stream, history id):
//! not on which thread, kernel launch or GPU runs it.
#pragma once

#include <cstdint>
#include <vector>

#include <Random123/philox.h>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Per-thread state: which history and how many words it has drawn.
struct PhiloxState
{
    std::uint64_t history{0};
    std::uint64_t draw_index{0}; //!< words drawn so far in this history (< 2^34)
};

//! Host parameters. Without begin_history(), thread j uses history id
//! first_history + j, which makes each thread a distinct stream.
struct PhiloxRngParams
{
    std::uint64_t seed{0};
    std::uint32_t stream{0};
    std::uint64_t first_history{0};
};

//! Trivially copyable view passed to kernels.
struct PhiloxView
{
    std::uint32_t key[2];
    std::uint32_t stream;
    Span<PhiloxState> states;
};

std::vector<PhiloxState> make_initial_states(PhiloxRngParams const& params, size_type num_threads);
void validate_state(PhiloxState const& state, size_type thread);
PhiloxView make_view(PhiloxRngParams const& params, Span<PhiloxState> states);

//! Raw Philox4x32-10 bijection: 4 output words for (counter, key).
struct PhiloxBlock
{
    std::uint32_t v[4];
};
MCDOSE_FORCEINLINE_FUNCTION PhiloxBlock philox4x32_10(std::uint32_t const (&ctr)[4],
                                                      std::uint32_t const (&key)[2])
{
    r123::Philox4x32_R<10> bijection;
    r123::Philox4x32_R<10>::ctr_type c = {{ctr[0], ctr[1], ctr[2], ctr[3]}};
    r123::Philox4x32_R<10>::key_type k = {{key[0], key[1]}};
    auto const r = bijection(c, k);
    return {{r.v[0], r.v[1], r.v[2], r.v[3]}};
}

//! The same block, as a call: the engine's refill site is inlined wherever a
//! kernel draws a number, and the ~90 instructions of ten Philox rounds at each
//! of them made up a third of the transport kernel's code (instruction-cache
//! misses, docs/history/benchmarks-log.md). Arguments and result travel in registers.
inline MCDOSE_FUNCTION MCDOSE_NOINLINE PhiloxBlock
philox4x32_10_outlined(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3,
                       std::uint32_t k0, std::uint32_t k1)
{
    std::uint32_t const ctr[4] = {c0, c1, c2, c3};
    std::uint32_t const key[2] = {k0, k1};
    return philox4x32_10(ctr, key);
}

//! Word `lane` (0-3) of a block, by selects: an indexed read (block.v[lane])
//! would put the block in local memory.
MCDOSE_FORCEINLINE_FUNCTION std::uint32_t philox_word(PhiloxBlock const& b, unsigned lane)
{
    return lane < 2 ? (lane == 0 ? b.v[0] : b.v[1]) : (lane == 2 ? b.v[2] : b.v[3]);
}

//! Engine for one thread; writes its (history, draw index) back on destruction.
class PhiloxEngine
{
  public:
    using result_type = std::uint32_t;
    using State = PhiloxState;
    using Params = PhiloxRngParams;
    using View = PhiloxView;
    static constexpr char const* name = "philox";
    static constexpr size_type state_bytes_per_thread = sizeof(PhiloxState);
    //! Largest draw index per history (the block index is a 32-bit counter word).
    static constexpr std::uint64_t max_draws_per_history = std::uint64_t(1) << 34;

    MCDOSE_FUNCTION PhiloxEngine(View const& view, size_type thread)
        : home_(&view.states[thread]), key_{view.key[0], view.key[1]}, stream_(view.stream),
          history_(home_->history), draw_(home_->draw_index)
    {
        if (draw_ % 4 != 0)
            this->refill(); // resume inside a block
    }
    MCDOSE_FUNCTION ~PhiloxEngine() { *home_ = {history_, draw_}; }
    PhiloxEngine(PhiloxEngine const&) = delete;
    PhiloxEngine& operator=(PhiloxEngine const&) = delete;

    //! Re-key the counter to (history id, draw index 0).
    MCDOSE_FUNCTION void begin_history(history_id_type id)
    {
        history_ = id;
        draw_ = 0;
    }

    //! Re-key the counter to (history id, draw index `draws`), a block boundary: continue
    //! a history whose first `draws` words were drawn by another engine (a source particle
    //! sampled ahead of its transport: transport/engine/SourceParticles.hh).
    MCDOSE_FUNCTION void resume_history(history_id_type id, std::uint64_t draws)
    {
        MCDOSE_EXPECT(draws % 4 == 0 && draws < max_draws_per_history);
        history_ = id;
        draw_ = draws;
    }

    //! Words drawn so far in the current history.
    MCDOSE_FUNCTION std::uint64_t draws() const { return draw_; }

    //! Skip the rest of the current block: the next word is the first of a new
    //! block (align_draws in Distributions.hh says why). No-op at a boundary.
    MCDOSE_FORCEINLINE_FUNCTION void skip_to_block() { draw_ = (draw_ + 3) & ~std::uint64_t(3); }

    MCDOSE_FORCEINLINE_FUNCTION result_type operator()()
    {
        MCDOSE_EXPECT(draw_ < max_draws_per_history);
        unsigned const lane = draw_ % 4;
        if (lane == 0)
            this->refill();
        ++draw_;
        return philox_word(block_, lane);
    }

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return 0xffffffffu; }

  private:
    PhiloxState* home_;
    std::uint32_t key_[2];
    std::uint32_t stream_;
    std::uint64_t history_;
    std::uint64_t draw_;
    PhiloxBlock block_{};

    MCDOSE_FORCEINLINE_FUNCTION void refill()
    {
        block_ = philox4x32_10_outlined(
            static_cast<std::uint32_t>(draw_ / 4), stream_, static_cast<std::uint32_t>(history_),
            static_cast<std::uint32_t>(history_ >> 32), key_[0], key_[1]);
    }
};
} // namespace mcdose
