//! \file rng/RngKind.cc
#include "rng/RngKind.hh"

#include "core/Assert.hh"

namespace mcdose
{
std::vector<RngKind> const& all_rng_kinds()
{
    static std::vector<RngKind> const kinds{RngKind::hybrid_taus, RngKind::lagged_fibonacci,
                                            RngKind::philox, RngKind::lcg, RngKind::ran2};
    return kinds;
}

char const* to_cstring(RngKind kind)
{
    switch (kind)
    {
    case RngKind::hybrid_taus:
        return HybridTausEngine::name;
    case RngKind::lagged_fibonacci:
        return LaggedFibonacciEngine::name;
    case RngKind::philox:
        return PhiloxEngine::name;
    case RngKind::lcg:
        return LcgEngine::name;
    case RngKind::ran2:
        return Ran2Engine::name;
    }
    return "unknown";
}

RngKind to_rng_kind(std::string const& name)
{
    for (auto k : all_rng_kinds())
    {
        if (name == to_cstring(k))
            return k;
    }
    MCDOSE_VALIDATE(false, << "unknown random-number generator '" << name
                           << "'; choose one of hybrid-taus, lagged-fibonacci, philox, lcg, ran2");
    return RngKind::philox;
}
} // namespace mcdose
