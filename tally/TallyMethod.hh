//! \file tally/TallyMethod.hh
//! Run-time choice of the atomic dose-tally method and its compile-time
//! dispatch: `dispatch_tally_method(m, f)` calls `f(Policy{})` with the
//! concrete policy type, so kernels are templates with no virtual calls.
#pragma once

#include <string>
#include <vector>

#include "tally/AtomicPolicies.hh"

namespace mcdose
{
//! The seven methods of Liu et al. 2018 (names as on the command line).
enum class TallyMethod
{
    fa,  //!< float atomicAdd (baseline; loses dose in hot voxels)
    cas, //!< double add by a 64-bit atomicCAS loop
    wag, //!< warp aggregation of peers, leader adds by CAS (double)
    kas, //!< Kahan (float sum, float compensation) in one 64-bit CAS, warp aggregated
    hb,  //!< hardware double atomicAdd
    wib, //!< warp aggregation, leader uses hardware double atomicAdd
    fx   //!< 64-bit integer fixed point (bitwise reproducible)
};

//! Parse "fa|cas|wag|kas|hb|wib|fx" (throws RuntimeError naming the choices).
TallyMethod to_tally_method(std::string const& name);
//! Parse a comma-separated list, or "all".
std::vector<TallyMethod> to_tally_methods(std::string const& list);
char const* to_cstring(TallyMethod m);
//! All methods in the order above.
std::vector<TallyMethod> all_tally_methods();

//! Call f(Policy{}) with the policy type of `m`; all branches must return the same type.
template <class F>
decltype(auto) dispatch_tally_method(TallyMethod m, F&& f)
{
    switch (m)
    {
    case TallyMethod::fa:
        return f(FaPolicy{});
    case TallyMethod::cas:
        return f(CasPolicy{});
    case TallyMethod::wag:
        return f(WagPolicy{});
    case TallyMethod::kas:
        return f(KasPolicy{});
    case TallyMethod::hb:
        return f(HbPolicy{});
    case TallyMethod::wib:
        return f(WibPolicy{});
    case TallyMethod::fx:
        break;
    }
    return f(FxPolicy{});
}
} // namespace mcdose
