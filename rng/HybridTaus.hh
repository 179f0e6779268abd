//! \file rng/HybridTaus.hh
//! Hybrid Taus: three Tausworthe generators combined by XOR with a 32-bit LCG,
//! one independent generator per thread (16 bytes of state).
//! Reference: L. Howes and D. Thomas, "Efficient Random Number Generation and
//! Application Using CUDA", GPU Gems 3, ch. 37 (2007); the Tausworthe
//! components are P. L'Ecuyer, "Maximally equidistributed combined Tausworthe
//! generators", Math. Comp. 65, 203 (1996) (taus88 parameters).
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
//! Per-thread state: three Tausworthe words and one LCG word.
struct HybridTausState
{
    std::uint32_t z1{0}; //!< Tausworthe (13,19,12, mask 0xfffffffe): must be >= 2
    std::uint32_t z2{0}; //!< Tausworthe (2,25,4, mask 0xfffffff8): must be >= 8
    std::uint32_t z3{0}; //!< Tausworthe (3,11,17, mask 0xfffffff0): must be >= 16
    std::uint32_t z4{0}; //!< LCG z <- 1664525 z + 1013904223 (any value)
};

//! Smallest valid Tausworthe words: a word with no bit set above its mask's
//! discarded low bits maps to 0 forever (the recurrence degenerates).
inline constexpr std::uint32_t hybrid_taus_min_z1 = 2;
inline constexpr std::uint32_t hybrid_taus_min_z2 = 8;
inline constexpr std::uint32_t hybrid_taus_min_z3 = 16;

MCDOSE_FORCEINLINE_FUNCTION bool is_valid(HybridTausState const& s)
{
    return s.z1 >= hybrid_taus_min_z1 && s.z2 >= hybrid_taus_min_z2 && s.z3 >= hybrid_taus_min_z3;
}

//! Host parameters: thread j of a run is seeded by SplitMix64(seed, first_stream + j).
struct HybridTausRngParams
{
    std::uint64_t seed{0};
    std::uint64_t first_stream{0};
};

//! Trivially copyable view passed to kernels.
struct HybridTausView
{
    Span<HybridTausState> states;
};

//! Seeded initial states (rejection-samples each Tausworthe word above its bound).
std::vector<HybridTausState> make_initial_states(HybridTausRngParams const& params,
                                                 size_type num_threads);
//! Refuse a state whose Tausworthe words are below their bounds.
void validate_state(HybridTausState const& state, size_type thread);
inline HybridTausView make_view(HybridTausRngParams const&, Span<HybridTausState> states)
{
    return {states};
}

namespace detail
{
//! One Tausworthe step (GPU Gems 3, Eq. in Listing 37-4):
//! b = ((z << S1) ^ z) >> S2;  z = ((z & M) << S3) ^ b.
template <int S1, int S2, int S3, std::uint32_t M>
MCDOSE_FORCEINLINE_FUNCTION std::uint32_t taus_step(std::uint32_t& z)
{
    std::uint32_t const b = ((z << S1) ^ z) >> S2;
    z = ((z & M) << S3) ^ b;
    return z;
}
} // namespace detail

//! Engine for one thread (state in registers, written back on destruction).
class HybridTausEngine : public PerThreadEngine<HybridTausState>
{
  public:
    using State = HybridTausState;
    using Params = HybridTausRngParams;
    using View = HybridTausView;
    static constexpr char const* name = "hybrid-taus";
    static constexpr size_type state_bytes_per_thread = sizeof(HybridTausState);

    MCDOSE_FUNCTION HybridTausEngine(View const& view, size_type thread)
        : PerThreadEngine(view.states, thread)
    {
        MCDOSE_EXPECT(is_valid(s_));
    }

    //! Next 32-bit word: XOR of the three Tausworthe steps and the LCG step.
    MCDOSE_FORCEINLINE_FUNCTION result_type operator()()
    {
        s_.z4 = 1664525u * s_.z4 + 1013904223u; // Numerical Recipes quick LCG
        return detail::taus_step<13, 19, 12, 4294967294u>(s_.z1) ^
               detail::taus_step<2, 25, 4, 4294967288u>(s_.z2) ^
               detail::taus_step<3, 11, 17, 4294967280u>(s_.z3) ^ s_.z4;
    }
};
} // namespace mcdose
