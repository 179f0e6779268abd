//! \file tally/AtomicPolicies.hh
//! The seven atomic dose-deposit methods as policy types. Each policy has
//!   name                         command-line name
//!   word_type                    storage of one voxel (32 or 64 bits)
//!   deposit(word*, E_MeV, scale) thread-safe add; device and host versions
//!   decode(word, quantum)        stored word -> energy [MeV] (host or device)
//!   block_cached                 true for the CAS-loop methods: the transport
//!                                kernel puts a per-block cache in front of the
//!                                grid (tally/BlockTallyCache.hh)
//! `scale`/`quantum` are the FX fixed-point factors (2^-e and 2^e); the other
//! methods ignore them. The device pass uses CUDA atomics; the host pass uses
//! the same algorithm on GCC atomics (tally/detail/AtomicWords.hh), and warp
//! aggregation degrades to one lane (WAG -> CAS, KAS -> unaggregated Kahan
//! CAS, WIB -> CAS since C++17 has no atomic double add).
//! The method set and the reference measurements are those of Liu et al. 2018
//! (ARCHER). Warp aggregation: tally/detail/WarpAggregate.hh.
#pragma once

#include "core/Macros.hh"
#include "tally/accum/CompensatedSum.hh"
#include "tally/accum/FixedPoint.hh"
#include "tally/detail/AtomicWords.hh"
#include "tally/detail/WarpAggregate.hh"

namespace mcdose
{
//! FA: single-precision atomicAdd. Every add rounds to float at the voxel's
//! magnitude, so a hot voxel stagnates once its ulp exceeds the deposits.
struct FaPolicy
{
    static constexpr char const* name = "fa";
    static constexpr bool block_cached = false;
    using word_type = detail::word32;

    MCDOSE_FORCEINLINE_FUNCTION static void deposit(word_type* cell, double energy_MeV, double)
    {
        float const e = static_cast<float>(energy_MeV);
#if MCDOSE_DEVICE_COMPILE
        atomicAdd(reinterpret_cast<float*>(cell), e);
#else
        detail::atomic_update(cell, [e](word_type old)
                              { return detail::bits_of(detail::float_of(old) + e); });
#endif
    }
    MCDOSE_FORCEINLINE_FUNCTION static double decode(word_type w, double)
    {
        return detail::float_of(w);
    }
};

//! Shared by the methods that store one double per voxel.
struct DoubleWordStorage
{
    using word_type = detail::word64;
    MCDOSE_FORCEINLINE_FUNCTION static double decode(word_type w, double)
    {
        return detail::double_of(w);
    }
};

//! CAS: double add by a 64-bit compare-and-swap loop (retries under contention).
struct CasPolicy : DoubleWordStorage
{
    static constexpr char const* name = "cas";
    static constexpr bool block_cached = true;
    MCDOSE_FORCEINLINE_FUNCTION static void deposit(word_type* cell, double energy_MeV, double)
    {
        detail::atomic_add_double_cas(cell, energy_MeV);
    }
};

//! HB: hardware double atomicAdd (sm_60+); CAS loop on the host.
struct HbPolicy : DoubleWordStorage
{
    static constexpr char const* name = "hb";
    static constexpr bool block_cached = false;
    MCDOSE_FORCEINLINE_FUNCTION static void deposit(word_type* cell, double energy_MeV, double)
    {
#if MCDOSE_DEVICE_COMPILE
        atomicAdd(reinterpret_cast<double*>(cell), energy_MeV);
#else
        detail::atomic_add_double_cas(cell, energy_MeV);
#endif
    }
};

//! Warp aggregation in front of a double method: lanes with the same voxel
//! sum their deposits by shuffles (detail::warp_peer_sum); only the leader
//! calls Inner, so a hot voxel sees one atomic per peer group.
template <class Inner>
struct WarpAggregated : DoubleWordStorage
{
    MCDOSE_FORCEINLINE_FUNCTION static void deposit(word_type* cell, double energy_MeV, double)
    {
        auto const peers =
            detail::warp_peer_sum(reinterpret_cast<unsigned long long>(cell), energy_MeV);
        if (peers.leader)
            Inner::deposit(cell, peers.sum, 0);
    }
};

//! WAG: warp aggregation, the leader adds by CAS.
struct WagPolicy : WarpAggregated<CasPolicy>
{
    static constexpr char const* name = "wag";
    static constexpr bool block_cached = true;
};

//! WIB: warp aggregation, then one hardware double atomicAdd by the leader.
struct WibPolicy : WarpAggregated<HbPolicy>
{
    static constexpr char const* name = "wib";
    static constexpr bool block_cached = false;
};

/*!
 * KAS: a Kahan pair (float sum in the low 32 bits, float compensation in the
 * high 32 bits) updated by one 64-bit CAS, warp aggregated like WAG. The
 * peer sum (double) is split into float hi + lo and both are Kahan-added in
 * the same CAS, so the float conversion loses nothing beyond Kahan's bound
 * (accum::KahanSum: |error| <= (2u + 2nu^2) sum|x|, u = 2^-24).
 */
struct KasPolicy
{
    static constexpr char const* name = "kas";
    static constexpr bool block_cached = true;
    using word_type = detail::word64;

    MCDOSE_FORCEINLINE_FUNCTION static accum::KahanSum<float> unpack(word_type w)
    {
        return {detail::float_of(static_cast<detail::word32>(w & 0xffffffffu)),
                detail::float_of(static_cast<detail::word32>(w >> 32))};
    }
    MCDOSE_FORCEINLINE_FUNCTION static word_type pack(accum::KahanSum<float> const& k)
    {
        return (word_type(detail::bits_of(k.correction())) << 32) | detail::bits_of(k.sum());
    }

    MCDOSE_FORCEINLINE_FUNCTION static void deposit(word_type* cell, double energy_MeV, double)
    {
        auto const peers =
            detail::warp_peer_sum(reinterpret_cast<unsigned long long>(cell), energy_MeV);
        if (!peers.leader)
            return;
        float const hi = static_cast<float>(peers.sum);
        float const lo = static_cast<float>(peers.sum - double(hi));
        detail::atomic_update(cell,
                              [hi, lo](word_type old)
                              {
                                  auto k = unpack(old);
                                  k.add(hi);
                                  k.add(lo);
                                  return pack(k);
                              });
    }
    MCDOSE_FORCEINLINE_FUNCTION static double decode(word_type w, double)
    {
        return unpack(w).value();
    }
};

/*!
 * FX: 64-bit integer fixed point, quantum q = 2^e MeV chosen from the run's
 * total energy (accum::fixed_point_quantum_exp2) so no voxel can overflow.
 * Integer addition is associative: bitwise identical for any order, thread
 * count or launch configuration. Error <= q/2 per deposit.
 */
struct FxPolicy
{
    static constexpr char const* name = "fx";
    static constexpr bool block_cached = false;
    using word_type = detail::word64;

    MCDOSE_FORCEINLINE_FUNCTION static void deposit(word_type* cell, double energy_MeV,
                                                    double scale_per_MeV)
    {
        detail::atomic_add_word(
            cell, static_cast<word_type>(accum::to_fixed_units(energy_MeV, scale_per_MeV)));
    }
    MCDOSE_FORCEINLINE_FUNCTION static double decode(word_type w, double quantum_MeV)
    {
        return double(static_cast<long long>(w)) * quantum_MeV;
    }
};
} // namespace mcdose
