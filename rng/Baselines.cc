//! \file rng/Baselines.cc
//! Seeding of the study baselines (LCG, Ran2).
#include "rng/Lcg.hh"
#include "rng/Ran2.hh"
#include "rng/SplitMix64.hh"

namespace mcdose
{
std::vector<LcgState> make_initial_states(LcgRngParams const& params, size_type num_threads)
{
    std::vector<LcgState> states(num_threads);
    for (size_type j = 0; j < num_threads; ++j)
        states[j].z = SplitMix64(params.seed, params.first_stream + j).next_u32();
    return states;
}

Ran2State make_ran2_state(std::int32_t seed)
{
    using namespace ran2;
    MCDOSE_VALIDATE(seed >= 1 && seed < m1, << "ran2 seed " << seed << " is outside [1, " << m1 - 1
                                            << "]; choose a seed in that range");
    Ran2State s;
    s.z1 = seed;
    s.z2 = seed;
    for (int j = table_size + 7; j >= 0; --j)
    {
        s.z1 = schrage(s.z1, a1, q1, r1, m1);
        if (j < table_size)
            s.table[j] = s.z1;
    }
    s.y = s.table[0];
    return s;
}

std::vector<Ran2State> make_initial_states(Ran2RngParams const& params, size_type num_threads)
{
    std::vector<Ran2State> states(num_threads);
    for (size_type j = 0; j < num_threads; ++j)
    {
        auto const w = SplitMix64(params.seed, params.first_stream + j)();
        states[j] = make_ran2_state(static_cast<std::int32_t>(w % std::uint64_t(ran2::m1 - 1)) + 1);
    }
    return states;
}

void validate_state(Ran2State const& s, size_type thread)
{
    using namespace ran2;
    bool ok = s.z1 >= 1 && s.z1 < m1 && s.z2 >= 1 && s.z2 < m2 && s.y >= 1 && s.y < m1;
    for (auto t : s.table)
        ok = ok && t >= 1 && t < m1;
    MCDOSE_VALIDATE(ok, << "ran2 state of thread " << thread
                        << " has a word outside its generator's range [1, m-1]; seed through "
                           "Ran2RngParams or make_ran2_state()");
}
} // namespace mcdose
