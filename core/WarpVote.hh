//! \file core/WarpVote.hh
//! Warp- and block-wide votes for scheduling work among the threads of a warp
//! or a block.
//!
//! Device: every lane of the (full) warp must make each warp call, as with any
//! `__ballot_sync` or `__syncwarp` over all 32 lanes, and every thread of the
//! block each block call (`__syncthreads_count`); kernels using them are
//! launched with a multiple of 32 threads per block. Host: a CPU thread is a
//! warp and a block of one lane.
#pragma once

#include "core/Macros.hh"

namespace mcdose
{
//! The calling thread's lane in its warp (0-31); 0 on the host.
MCDOSE_FORCEINLINE_FUNCTION unsigned lane_id()
{
#if MCDOSE_DEVICE_COMPILE
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
#else
    return 0;
#endif
}

/*!
 * The lanes of a warp that run a piece of code together (a mask of lanes), for
 * loops whose trip count differs from lane to lane. Since Volta, lanes that
 * leave such a loop at different trips are not made to run together again
 * where the paths meet, and each group that left together runs the rest of
 * the code on its own, fetching every instruction again: the transport step's
 * code after its voxel walk ran with 8 of the 18.7 lanes that had entered it
 * (Nsight Compute, docs/history/benchmarks-log.md). A loop whose exit is a vote of the
 * group (`any`) is left by all of its lanes at once; the lanes that are done
 * skip the body of the remaining trips.
 *
 * Contract (as for `__ballot_sync` with a mask): every lane of the group makes
 * each call, and only those lanes. Host: a group is the calling thread alone.
 */
class WarpGroup
{
  public:
    //! All 32 lanes of the warp (the calling thread on the host).
    static MCDOSE_FORCEINLINE_FUNCTION WarpGroup whole_warp() { return WarpGroup{0xffffffffu}; }

    //! The calling lane alone: for code that one thread runs by itself.
    static MCDOSE_FORCEINLINE_FUNCTION WarpGroup this_lane() { return WarpGroup{1u << lane_id()}; }

    //! The lanes of this group for which `pred` holds.
    MCDOSE_FORCEINLINE_FUNCTION WarpGroup select(bool pred) const
    {
#if MCDOSE_DEVICE_COMPILE
        return WarpGroup{__ballot_sync(mask_, pred)};
#else
        return WarpGroup{pred ? mask_ : 0u};
#endif
    }

    //! Whether `pred` holds for any lane of the group.
    MCDOSE_FORCEINLINE_FUNCTION bool any(bool pred) const
    {
#if MCDOSE_DEVICE_COMPILE
        return __any_sync(mask_, pred) != 0;
#else
        return pred;
#endif
    }

  private:
    unsigned mask_;
    MCDOSE_FORCEINLINE_FUNCTION explicit WarpGroup(unsigned mask) : mask_(mask)
    {
    }
};

//! Number of threads of the block for which `pred` holds. A barrier of the
//! block: every thread of the block calls it.
MCDOSE_FORCEINLINE_FUNCTION int block_count(bool pred)
{
#if MCDOSE_DEVICE_COMPILE
    return __syncthreads_count(pred);
#else
    return pred ? 1 : 0;
#endif
}
} // namespace mcdose
