//! \file transport/engine/PlaneCrossingView.hh
//! Scoring a phase space: the particles that cross a plane lying outside the
//! voxel grid, in the direction of its normal, appended to a per-batch buffer
//! that the host drains between batches (study/PhaseSpaceOutput.hh).
//!
//! Outside the grid is vacuum: a particle there flies straight. So a plane
//! that does not cut the grid is crossed only on a straight segment in vacuum:
//! a source particle's path from where it starts to where it enters the grid
//! (the whole ray if it misses), or the ray of a particle leaving the grid.
//! HistoryTransport calls `record` at exactly those two places; the crossing
//! point is where the segment meets the plane. Every crossing is recorded once.
//!
//! Overflow: the slot index is an atomic counter that keeps counting past the
//! buffer's end; the host compares it with the capacity after the batch and,
//! if it was exceeded, grows the buffer and runs that piece of the batch again
//! (TransportDriver's after_batch hook), so no crossing is lost.
#pragma once

#include <cstdint>

#include "core/Array3.hh"
#include "core/Macros.hh"
#include "core/Particle.hh"
#include "core/Span.hh"
#include "core/VectorMath.hh"

namespace mcdose
{
//! One crossing: the particle at the crossing point, and the history it belongs to
//! (the host sorts by history, so the file does not depend on thread timing).
template <class Real>
struct PlaneCrossing
{
    Particle<Real> particle;
    std::uint64_t history{0};
};

template <class Real>
struct PlaneCrossingView
{
    Array3<Real> point_cm{}; //!< a point of the plane (tracking frame)
    Array3<Real> normal{};   //!< unit normal: crossings along it are recorded
    Span<PlaneCrossing<Real>> records;
    unsigned long long* count{nullptr}; //!< slots taken (may exceed records.size())

    MCDOSE_FORCEINLINE_FUNCTION bool enabled() const { return count != nullptr; }

    //! Record `p` if its straight path from p.position_cm, at most `max_cm` long,
    //! crosses the plane along the normal.
    MCDOSE_FUNCTION void record(Particle<Real> p, Real max_cm, std::uint64_t history) const
    {
        Real const cos_n = dot(p.direction, normal);
        if (!(cos_n > 0))
            return;
        Array3<Real> const to_plane{{point_cm[0] - p.position_cm[0], point_cm[1] - p.position_cm[1],
                                     point_cm[2] - p.position_cm[2]}};
        Real const t = dot(to_plane, normal) / cos_n;
        if (!(t > 0 && t <= max_cm))
            return;
        p.position_cm = axpy(t, p.direction, p.position_cm);
#if MCDOSE_DEVICE_COMPILE
        unsigned long long const slot = atomicAdd(count, 1ull);
#else
        unsigned long long const slot = __atomic_fetch_add(count, 1ull, __ATOMIC_RELAXED);
#endif
        if (slot < records.size())
            records[static_cast<size_type>(slot)] = {p, history};
    }
};
} // namespace mcdose
