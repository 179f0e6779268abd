//! \file rng/HybridTaus.cc
#include "rng/HybridTaus.hh"

#include "rng/SplitMix64.hh"

namespace mcdose
{
namespace
{
std::uint32_t draw_at_least(SplitMix64& sm, std::uint32_t lower)
{
    std::uint32_t z;
    do
    {
        z = sm.next_u32();
    } while (z < lower); // probability < 2^-27 per word
    return z;
}
} // namespace

std::vector<HybridTausState> make_initial_states(HybridTausRngParams const& params,
                                                 size_type num_threads)
{
    std::vector<HybridTausState> states(num_threads);
    for (size_type j = 0; j < num_threads; ++j)
    {
        SplitMix64 sm(params.seed, params.first_stream + j);
        auto& s = states[j];
        s.z1 = draw_at_least(sm, hybrid_taus_min_z1);
        s.z2 = draw_at_least(sm, hybrid_taus_min_z2);
        s.z3 = draw_at_least(sm, hybrid_taus_min_z3);
        s.z4 = sm.next_u32();
    }
    return states;
}

void validate_state(HybridTausState const& s, size_type thread)
{
    MCDOSE_VALIDATE(is_valid(s), << "hybrid-taus state of thread " << thread
                                 << " is invalid (z1=" << s.z1 << ", z2=" << s.z2 << ", z3=" << s.z3
                                 << "): the Tausworthe words must be >= 2, 8 and 16 or the "
                                    "recurrence degenerates; seed through HybridTausRngParams");
}
} // namespace mcdose
