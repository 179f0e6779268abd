//! \file rng/Ran2.hh
//! Baseline for studies only: "ran2", L'Ecuyer's two combined multiplicative
//! LCGs (P. L'Ecuyer, Commun. ACM 31, 742 (1988)) with a 32-entry Bays–Durham
//! shuffle (C. Bays and S. D. Durham, ACM TOMS 2, 59 (1976)), as described in
//! Press et al., Numerical Recipes in C, 2nd ed., Sec. 7.1.
//! State: 35 signed 32-bit words = 140 bytes per thread (the ~280 B quoted in
//! the literature stores them as 64-bit longs), held in local memory on a GPU
//! because the shuffle table is indexed by data.
#pragma once

#include <cstdint>
#include <vector>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "rng/PerThreadEngine.hh"

namespace mcdose
{
namespace ran2
{
// Multipliers and moduli (L'Ecuyer 1988, Table III) with Schrage's
// decomposition m = a q + r so that a z mod m never overflows 32 bits.
inline constexpr std::int32_t m1 = 2147483563, a1 = 40014, q1 = 53668, r1 = 12211;
inline constexpr std::int32_t m2 = 2147483399, a2 = 40692, q2 = 52774, r2 = 3791;
inline constexpr int table_size = 32;
inline constexpr std::int32_t table_div = 1 + (m1 - 1) / table_size;

//! z <- a z mod m by Schrage's method (no 64-bit product needed).
MCDOSE_FORCEINLINE_FUNCTION std::int32_t schrage(std::int32_t z, std::int32_t a, std::int32_t q,
                                                 std::int32_t r, std::int32_t m)
{
    std::int32_t const k = z / q;
    z = a * (z - k * q) - k * r;
    return z < 0 ? z + m : z;
}
} // namespace ran2

struct Ran2State
{
    std::int32_t z1{0}; //!< first LCG, in [1, m1 - 1]
    std::int32_t z2{0}; //!< second LCG, in [1, m2 - 1]
    std::int32_t y{0};  //!< last output, selects the table entry
    std::int32_t table[ran2::table_size]{};
};

//! Thread j's first-generator seed comes from SplitMix64(seed, first_stream + j).
struct Ran2RngParams
{
    std::uint64_t seed{0};
    std::uint64_t first_stream{0};
};

struct Ran2View
{
    Span<Ran2State> states;
};

//! Initial state from a seed in [1, m1 - 1]: 8 warm-up steps, then fill the table.
Ran2State make_ran2_state(std::int32_t seed);
std::vector<Ran2State> make_initial_states(Ran2RngParams const& params, size_type num_threads);
void validate_state(Ran2State const& state, size_type thread);
inline Ran2View make_view(Ran2RngParams const&, Span<Ran2State> states)
{
    return {states};
}

class Ran2Engine : public PerThreadEngine<Ran2State>
{
  public:
    using State = Ran2State;
    using Params = Ran2RngParams;
    using View = Ran2View;
    static constexpr char const* name = "ran2";
    static constexpr size_type state_bytes_per_thread = sizeof(Ran2State);

    MCDOSE_FUNCTION Ran2Engine(View const& view, size_type thread)
        : PerThreadEngine(view.states, thread)
    {
    }

    //! Next word: y in [1, m1 - 1] scaled onto [0, 2^32) by
    //! floor((y - 1) 2^32 / (m1 - 1)) (about 31 bits of information).
    MCDOSE_FORCEINLINE_FUNCTION result_type operator()()
    {
        using namespace ran2;
        s_.z1 = schrage(s_.z1, a1, q1, r1, m1);
        s_.z2 = schrage(s_.z2, a2, q2, r2, m2);
        int const j = s_.y / table_div;
        MCDOSE_ASSERT(j >= 0 && j < table_size);
        s_.y = s_.table[j] - s_.z2;
        s_.table[j] = s_.z1;
        if (s_.y < 1)
            s_.y += m1 - 1;
        return static_cast<result_type>((std::uint64_t(s_.y - 1) << 32) / std::uint64_t(m1 - 1));
    }
};
} // namespace mcdose
