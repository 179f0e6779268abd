//! \file test/transport/interactors/TransportDevice.test.cu
//! Kernels only: each thread handles items i = thread, thread + stride, ...
#include "TransportDevice.test.hh"

#include "core/Device.hh"
#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"

namespace mcdose::test
{
namespace
{
unsigned const block_size = 128;
unsigned const grid_size = 64; // fewer threads than items: exercises the stride loop

template <class Real>
MCDOSE_KERNEL void traverse_kernel(VoxelGeometryView<Real> grid, Span<Ray<Real> const> rays,
                                   Span<RayResult<Real>> out)
{
    size_type const stride = size_type(gridDim.x) * blockDim.x;
    for (size_type i = blockIdx.x * blockDim.x + threadIdx.x; i < rays.size(); i += stride)
        out[i] = traverse_ray(grid, rays[i]);
}

template <class Real>
MCDOSE_KERNEL void source_kernel(SourceView<Real> source, PhiloxView rng, Span<Particle<Real>> out)
{
    size_type const thread = blockIdx.x * blockDim.x + threadIdx.x;
    size_type const stride = size_type(gridDim.x) * blockDim.x;
    for (size_type i = thread; i < out.size(); i += stride)
        out[i] = sample_source(source, rng, thread, i);
}

template <class Real>
MCDOSE_KERNEL void compton_kernel(Real energy_MeV, PhiloxView rng, Span<Interaction<Real>> out)
{
    size_type const thread = blockIdx.x * blockDim.x + threadIdx.x;
    size_type const stride = size_type(gridDim.x) * blockDim.x;
    for (size_type i = thread; i < out.size(); i += stride)
        out[i] = sample_compton(energy_MeV, rng, thread, i);
}

//! Philox states for every launched thread, on the device.
DeviceBuffer<PhiloxState> make_device_states(PhiloxRngParams const& params)
{
    return DeviceBuffer<PhiloxState>(
        make_initial_states(params, size_type(grid_size) * block_size));
}
} // namespace

template <class Real>
std::vector<RayResult<Real>> device_traverse(VoxelGeometryView<Real> const& grid,
                                             std::vector<Ray<Real>> const& rays)
{
    DeviceBuffer<Ray<Real>> d_rays(rays);
    DeviceBuffer<RayResult<Real>> d_out(rays.size());
    traverse_kernel<Real>
        <<<grid_size, block_size>>>(grid, std::as_const(d_rays).device_span(), d_out.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return d_out.to_host();
}

template <class Real>
std::vector<Particle<Real>> device_sample_source(SourceView<Real> const& device_source,
                                                 PhiloxRngParams const& params, size_type n)
{
    auto states = make_device_states(params);
    DeviceBuffer<Particle<Real>> d_out(n);
    source_kernel<Real><<<grid_size, block_size>>>(
        device_source, make_view(params, states.device_span()), d_out.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return d_out.to_host();
}

template <class Real>
std::vector<Interaction<Real>> device_compton(Real energy_MeV, PhiloxRngParams const& params,
                                              size_type n)
{
    auto states = make_device_states(params);
    DeviceBuffer<Interaction<Real>> d_out(n);
    compton_kernel<Real><<<grid_size, block_size>>>(
        energy_MeV, make_view(params, states.device_span()), d_out.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return d_out.to_host();
}

#define MCDOSE_INSTANTIATE(REAL)                                                                   \
    template std::vector<RayResult<REAL>> device_traverse(VoxelGeometryView<REAL> const&,          \
                                                          std::vector<Ray<REAL>> const&);          \
    template std::vector<Particle<REAL>> device_sample_source(SourceView<REAL> const&,             \
                                                              PhiloxRngParams const&, size_type);  \
    template std::vector<Interaction<REAL>> device_compton(REAL, PhiloxRngParams const&, size_type);
MCDOSE_INSTANTIATE(float)
MCDOSE_INSTANTIATE(double)
#undef MCDOSE_INSTANTIATE
} // namespace mcdose::test
