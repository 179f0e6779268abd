//! \file sources/PhaseSpaceView.hh
//! A phase-space source on the device (or CPU threads): the particles of the
//! current batch piece, read from the file by the host (sources/PhaseSpaceSource.hh)
//! and already placed in the tracking frame. Kernels never see the file: history h
//! starts particle h / recycle of the file's transported particles, so each
//! particle starts `recycle` consecutive histories, and the host loads, before
//! each piece of a batch, the particles its histories use.
#pragma once

#include <cstdint>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Particle.hh"
#include "core/Span.hh"

namespace mcdose
{
template <class Real>
struct PhaseSpaceView
{
    Span<Particle<Real> const> particles; //!< particles first_particle, first_particle + 1, ...
    std::uint64_t first_particle{0};      //!< index (among transported ones) of particles[0]
    std::uint32_t recycle{1};             //!< histories per particle

    //! The particle history `history` starts (with its weight and type).
    MCDOSE_FUNCTION Particle<Real> operator()(std::uint64_t history) const
    {
        std::uint64_t const k = history / recycle - first_particle;
        MCDOSE_EXPECT(history / recycle >= first_particle && k < particles.size());
        return particles[static_cast<size_type>(k)];
    }
};
} // namespace mcdose
