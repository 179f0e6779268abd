//! \file core/WarpVote.hh
//! Warp-wide votes for scheduling work among the lanes of a warp.
//!
//! Device: every lane of the (full) warp must make the call, as with any
//! `__ballot_sync` over all 32 lanes; kernels using it are launched with a
//! multiple of 32 threads per block. Host: a CPU thread is a warp of one lane.
#pragma once

#include "core/Macros.hh"

namespace mcdose
{
//! Number of lanes of the warp for which `pred` holds.
MCDOSE_FORCEINLINE_FUNCTION int warp_count(bool pred)
{
#if MCDOSE_DEVICE_COMPILE
    return __popc(__ballot_sync(0xffffffffu, pred));
#else
    return pred ? 1 : 0;
#endif
}
}  // namespace mcdose
