//! \file tally/detail/WarpAggregate.hh
//! Warp aggregation for the WAG, KAS and WIB methods.
#pragma once

#include "core/Macros.hh"
#include "core/WarpVote.hh"

namespace mcdose::detail
{
//! Sum of `value` over a group of lanes and whether this lane must write it.
struct PeerSum
{
    double sum;
    bool leader;
};

/*!
 * Sum `value` over the currently active lanes of the warp that target the
 * same `key` (an address), and elect the lowest such lane as leader.
 *
 * Device: `__activemask()` gives the lanes that reached this call together
 * (any divergence pattern), `__match_any_sync` splits them into peer groups by
 * key (several addresses per warp are fine), then a pointer-jumping reduction
 * inside each group: every lane knows the lane of its next peer, and in round
 * k adds the partial sum 2^k ranks ahead and jumps its pointer 2^k ranks.
 * After ceil(log2 n) rounds the leader (rank 0) holds the group's sum. Each
 * shuffle names only the group (`peers`) as mask and only reads lanes of that
 * group, so no lane ever reads an inactive lane; lanes with no peer ahead
 * shuffle from themselves. Requires sm_70+ (`__match_any_sync`).
 *
 * Host: a CPU thread is its own "warp" of one lane: returns (value, true), so
 * the aggregated methods degrade to their non-aggregated equivalents.
 */
MCDOSE_FORCEINLINE_FUNCTION PeerSum warp_peer_sum(unsigned long long key, double value)
{
#if MCDOSE_DEVICE_COMPILE
    unsigned const active = __activemask();
    unsigned const peers = __match_any_sync(active, key);
    unsigned const lane = lane_id();
    // Peers above this lane; (2u << 31) == 0 so lane 31 gets an empty set.
    unsigned const above = peers & ~((2u << lane) - 1u);
    int next = above ? __ffs(above) - 1 : -1;
    int const group_size = __popc(peers);
    for (int span = 1; span < group_size; span *= 2)
    {
        int const src = next >= 0 ? next : static_cast<int>(lane);
        double const partial = __shfl_sync(peers, value, src);
        int const next_of_next = __shfl_sync(peers, next, src);
        if (next >= 0)
        {
            value += partial;
            next = next_of_next;
        }
    }
    return {value, static_cast<int>(lane) == __ffs(peers) - 1};
#else
    MCDOSE_DISCARD(key);
    return {value, true};
#endif
}
} // namespace mcdose::detail
