//! \file transport/engine/SourceParticles.cu
//! The kernel that samples a launch's source particles ahead of their transport
//! (SourceParticles.hh), for the product source in both precisions.
#include "core/DeviceCall.hh"
#include "sources/SourceView.hh"
#include "transport/engine/SourceParticles.hh"

namespace mcdose
{
namespace
{
template <class Real, class Source>
MCDOSE_KERNEL void source_particles_kernel(MCDOSE_GRID_CONSTANT Source const source,
                                           PhiloxView const rng, std::uint64_t first,
                                           Span<Particle<Real>> particles,
                                           Span<std::uint32_t> draws)
{
    size_type const i = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < particles.size())
        sample_source_particle_at(source, rng, first, particles, draws, i);
}
} // namespace

template <class Real, class Source>
void launch_source_particles(Source const& source, PhiloxView const& rng, std::uint64_t first,
                             Span<Particle<Real>> particles, Span<std::uint32_t> draws)
{
    MCDOSE_VALIDATE(draws.size() == particles.size(), << particles.size()
                                                      << " source particles but " << draws.size()
                                                      << " draw counts");
    if (particles.empty())
        return;
    constexpr unsigned threads = 256;
    auto const blocks = static_cast<unsigned>((particles.size() + threads - 1) / threads);
    source_particles_kernel<Real, Source>
        <<<blocks, threads>>>(source, rng, first, particles, draws);
    MCDOSE_CUDA_CHECK_LAUNCH();
}

template void launch_source_particles<float, SourceMixView<float>>(SourceMixView<float> const&,
                                                                   PhiloxView const&, std::uint64_t,
                                                                   Span<Particle<float>>,
                                                                   Span<std::uint32_t>);
template void launch_source_particles<double, SourceMixView<double>>(SourceMixView<double> const&,
                                                                     PhiloxView const&,
                                                                     std::uint64_t,
                                                                     Span<Particle<double>>,
                                                                     Span<std::uint32_t>);
} // namespace mcdose
