//! \file rng/Philox.cc
#include "rng/Philox.hh"

namespace mcdose
{
std::vector<PhiloxState> make_initial_states(PhiloxRngParams const& params, size_type num_threads)
{
    std::vector<PhiloxState> states(num_threads);
    for (size_type j = 0; j < num_threads; ++j)
        states[j] = {params.first_history + j, 0};
    return states;
}

void validate_state(PhiloxState const& s, size_type thread)
{
    MCDOSE_VALIDATE(s.draw_index < PhiloxEngine::max_draws_per_history,
                    << "philox state of thread " << thread << " has draw index " << s.draw_index
                    << ", beyond the 2^34 words a history can draw (32-bit block counter); "
                       "start a new history");
}

PhiloxView make_view(PhiloxRngParams const& params, Span<PhiloxState> states)
{
    PhiloxView v;
    v.key[0] = static_cast<std::uint32_t>(params.seed);
    v.key[1] = static_cast<std::uint32_t>(params.seed >> 32);
    v.stream = params.stream;
    v.states = states;
    return v;
}
} // namespace mcdose
