//! \file transport/engine/SourceParticles.hh
//! Source particles sampled ahead of their transport.
//!
//! A worker that ends a history starts the next one with its source particle. On a GPU the
//! other lanes of its warp wait while it samples (a point in a beam's field, an energy
//! from a spectrum), and since some lane starts a history in most turns of the transport
//! loop (TransportThread.hh), a source's sampling costs far more there than its arithmetic.
//! With a generator keyed by history (Philox) a history's source particle depends only on
//! its own words, so any thread may sample it: a kernel of its own samples the particles of
//! a launch's histories, one thread each and every lane busy, and the transport reads each
//! history's particle and resumes the history's words where the sampling left them. The
//! sampling ends on a block boundary (align_draws) either way, so a history uses the same
//! words, and the run gives the same result bit for bit, whether its particle was sampled
//! ahead or by the worker that transports it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/Macros.hh"
#include "core/Particle.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "rng/Rng.hh"

namespace mcdose
{
namespace detail
{
template <class Engine, class = void>
struct ResumesHistory : std::false_type
{
};
template <class Engine>
struct ResumesHistory<Engine, std::void_t<decltype(std::declval<Engine&>().resume_history(
                                  history_id_type{}, std::uint64_t{}))>> : std::true_type
{
};
} // namespace detail

//! Whether a history's words depend only on the history (Philox): then its source
//! particle can be sampled by another thread, ahead of its transport.
template <class Engine>
inline constexpr bool samples_sources_ahead_v = detail::ResumesHistory<Engine>::value;

//! Histories whose source particles are sampled at once: a launch of more runs its
//! transport in pieces of this many. Device memory: this many particles and draw counts
//! (study/MemoryPlan.cc).
inline constexpr std::uint64_t max_source_particles_ahead = std::uint64_t(1) << 22;

//! The source particle of `history` from the history's own words: the stream begun, the
//! source sampled, the rest of the block skipped, so that the transport's first draw
//! starts a block wherever the particle was sampled.
template <class Source, class Engine>
MCDOSE_FORCEINLINE_FUNCTION auto sample_source_particle(Source const& source, Engine& rng,
                                                        std::uint64_t history)
{
    rng.begin_history(history);
    auto const particle = source(rng, history);
    align_draws(rng);
    return particle;
}

//! The source particles of histories [first, first + particles.size()), each with the
//! words its sampling took from its history's stream (a multiple of 4).
template <class Real>
struct SourceParticlesView
{
    std::uint64_t first{0};
    Span<Particle<Real> const> particles;
    Span<std::uint32_t const> draws;

    MCDOSE_FORCEINLINE_FUNCTION bool holds(std::uint64_t history) const
    {
        return history - first < particles.size(); // unsigned: false below `first`
    }
};

//! The source particle a worker starts `history` with: read from `ahead` if it holds it
//! (the engine resumed after the sampling's words), else sampled here. The same particle
//! and words either way.
template <class Real, class Source, class Engine>
MCDOSE_FORCEINLINE_FUNCTION Particle<Real>
start_source_particle(SourceParticlesView<Real> const& ahead, Source const& source, Engine& rng,
                      std::uint64_t history)
{
    if constexpr (samples_sources_ahead_v<Engine>)
    {
        if (ahead.holds(history))
        {
            size_type const i = history - ahead.first;
            rng.resume_history(history, ahead.draws[i]);
            return ahead.particles[i];
        }
    }
    return sample_source_particle(source, rng, history);
}

//! Sample the particle of history first + i into particles[i] and draws[i] (one thread
//! of the sampling kernel, or one turn of a host loop).
template <class Real, class Source>
MCDOSE_FUNCTION void sample_source_particle_at(Source const& source, PhiloxView rng,
                                               std::uint64_t first, Span<Particle<Real>> particles,
                                               Span<std::uint32_t> draws, size_type i)
{
    MCDOSE_EXPECT(i < particles.size() && draws.size() == particles.size());
    PhiloxState state;
    rng.states = {&state, 1};
    std::uint64_t used = 0;
    {
        PhiloxEngine engine(rng, 0);
        particles[i] = sample_source_particle(source, engine, first + i);
        used = engine.draws();
    }
    MCDOSE_EXPECT(used <= 0xffffffffu);
    draws[i] = static_cast<std::uint32_t>(used);
}

#if MCDOSE_USE_CUDA
//! Sample the particles of histories [first, first + particles.size()) on the current
//! device (device memory; the kernel is queued on the default stream, before the
//! transport kernel that reads them).
template <class Real, class Source>
void launch_source_particles(Source const& source, PhiloxView const& rng, std::uint64_t first,
                             Span<Particle<Real>> particles, Span<std::uint32_t> draws);
#else
template <class Real, class Source>
void launch_source_particles(Source const&, PhiloxView const&, std::uint64_t, Span<Particle<Real>>,
                             Span<std::uint32_t>)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
