//! \file rng/Lcg.hh
//! Baseline for studies only: the "quick and dirty" 32-bit linear congruential
//! generator z <- 1664525 z + 1013904223 mod 2^32 (Press et al., Numerical
//! Recipes in C, 2nd ed., Sec. 7.1), one per thread, 4 bytes of state.
//! Its low bits have short periods (bit k repeats after 2^(k+1) draws) and
//! successive tuples lie on few hyperplanes (Marsaglia 1968): not for production.
#pragma once

#include <cstdint>
#include <vector>

#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "rng/PerThreadEngine.hh"

namespace mcdose
{
struct LcgState
{
    std::uint32_t z{0};
};

//! Thread j starts at the upper 32 bits of SplitMix64(seed, first_stream + j).
struct LcgRngParams
{
    std::uint64_t seed{0};
    std::uint64_t first_stream{0};
};

struct LcgView
{
    Span<LcgState> states;
};

std::vector<LcgState> make_initial_states(LcgRngParams const& params, size_type num_threads);
inline void validate_state(LcgState const&, size_type)
{
} // every 32-bit word is a valid state
inline LcgView make_view(LcgRngParams const&, Span<LcgState> states)
{
    return {states};
}

class LcgEngine : public PerThreadEngine<LcgState>
{
  public:
    using State = LcgState;
    using Params = LcgRngParams;
    using View = LcgView;
    static constexpr char const* name = "lcg";
    static constexpr size_type state_bytes_per_thread = sizeof(LcgState);

    MCDOSE_FUNCTION LcgEngine(View const& view, size_type thread)
        : PerThreadEngine(view.states, thread)
    {
    }

    MCDOSE_FORCEINLINE_FUNCTION result_type operator()()
    {
        s_.z = 1664525u * s_.z + 1013904223u;
        return s_.z;
    }
};
} // namespace mcdose
