//! \file core/WarpVote.hh
//! Warp-wide votes and reconvergence for scheduling work among the lanes of a
//! warp.
//!
//! Device: every lane of the (full) warp must make each call, as with any
//! `__ballot_sync` or `__syncwarp` over all 32 lanes; kernels using them are
//! launched with a multiple of 32 threads per block. Host: a CPU thread is a
//! warp of one lane.
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

//! Wait until every lane of the warp gets here and continue together: a
//! reconvergence point for a loop whose lanes take different branches (the
//! compiler does not otherwise guarantee that they run together again).
MCDOSE_FORCEINLINE_FUNCTION void warp_sync()
{
#if MCDOSE_DEVICE_COMPILE
    __syncwarp();
#endif
}
}  // namespace mcdose
