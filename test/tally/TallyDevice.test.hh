//! \file test/tally/TallyDevice.test.hh
//! Device side of the tally tests: a deposit pattern with divergent lanes and
//! several addresses per warp, run through one atomic method.
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "tally/TallyMethod.hh"

namespace mcdose::test
{
//! Thread t deposits, for j < per_thread, unless (t + j) % 3 == 0 or lane >=
//! active_lanes: value (1 + t % 13) 2^-8 MeV into bin (t / 2 + 7 j) % bins.
struct DepositPattern
{
    unsigned blocks{64};
    unsigned threads_per_block{128};
    int per_thread{16};
    unsigned bins{8};
    unsigned active_lanes{32}; //!< lanes >= this return at once (partial warps)
    //! Block tally cache slots for the CAS-loop methods (0: none); the
    //! kernel clears, deposits through it and flushes like the transport.
    unsigned cache_slots{0};
};

//! Exact per-bin energy [MeV] of the pattern (host, integers).
std::vector<double> pattern_reference(DepositPattern const& p);

//! Results of every tally/accum accumulator over the same float terms, and
//! TwoSum of a + w*x products: computed on host and device, they must agree
//! bit for bit (same IEEE operations, no FMA contraction on the device).
struct AccumResults
{
    std::vector<double> values;          //!< one value() per accumulator
    std::vector<float> two_sum_products; //!< (sum, error) pairs, flattened
};
AccumResults accum_on_host(std::vector<float> const& terms);

#if MCDOSE_USE_CUDA
//! Per-bin energy [MeV] deposited by the pattern kernel with `method`.
std::vector<double> pattern_on_device(TallyMethod method, DepositPattern const& p);
AccumResults accum_on_device(std::vector<float> const& terms);
#else
inline std::vector<double> pattern_on_device(TallyMethod, DepositPattern const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline AccumResults accum_on_device(std::vector<float> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::test
