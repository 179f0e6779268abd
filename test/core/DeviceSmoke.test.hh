//! \file test/core/DeviceSmoke.test.hh
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"

namespace mcdose::test
{
//! y[i] = a * x[i] + y[i] computed by a kernel, plus a per-thread record of
//! the device pass having run (the MCDOSE_DEVICE_COMPILE macro).
struct SmokeResult
{
    std::vector<double> y;
    std::vector<int> device_compiled;
};

//! fast_expm1 of every x on the device, in float and in double.
struct Expm1Result
{
    std::vector<float> single;
    std::vector<double> double_;
};

//! The votes of core/WarpVote.hh in one block of `trips.size()` threads: the
//! threads t with t % 3 != 0 run a loop of `trips[t]` trips whose exit is a
//! vote of their warp's group (WarpGroup::any); every thread then counts the
//! block's threads with t % 4 == 0 (block_count).
struct VoteResult
{
    std::vector<int> trips_done; //!< trips that ran the loop body's work
    std::vector<int> iterations; //!< times the thread went round the loop
    std::vector<int> block_count;
};

#if MCDOSE_USE_CUDA
//! `n` words of pinned host memory (cudaMallocHost), and their release.
std::uint32_t* allocate_pinned_words(std::size_t n);
void free_pinned_words(std::uint32_t* words);
VoteResult device_votes(std::vector<int> const& trips);
SmokeResult device_saxpy(double a, std::vector<double> const& x, std::vector<double> const& y);
Expm1Result device_fast_expm1(std::vector<double> const& x);
#else
inline std::uint32_t* allocate_pinned_words(std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline void free_pinned_words(std::uint32_t*)
{
}
inline VoteResult device_votes(std::vector<int> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline Expm1Result device_fast_expm1(std::vector<double> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline SmokeResult device_saxpy(double, std::vector<double> const&, std::vector<double> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::test
