//! \file validation/crosscheck/md/MdForces.cu
//! GPU launch of the all-pairs force loop: one thread per particle i.
#include "MdForces.hh"

#include "core/DeviceCall.hh"
#include "validation/crosscheck/DeviceTimer.hh"

namespace mcdose::crosscheck
{
namespace
{
template <class Traits>
MCDOSE_KERNEL void force_kernel(ForceOnParticle<Traits> force, Span<double> fx, Span<double> fy,
                                Span<double> fz)
{
    size_type const i = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= fx.size())
        return;
    auto const f = force(i);
    fx[i] = f.x;
    fy[i] = f.y;
    fz[i] = f.z;
}

} // namespace

namespace
{
template <class Traits>
ForceResult device_force_loop(DeviceLJSystem const& sys, ExclusionMode exclusions,
                              AccumConfig const& config)
{
    LJView const view = sys.view();
    MCDOSE_VALIDATE(exclusions == ExclusionMode::none || !view.excl_offset.empty(),
                    << "exclusion mode '" << to_cstring(exclusions)
                    << "' needs a bonded system; use the chain system");
    size_type const n = sys.size();
    DeviceBuffer<double> fx(n), fy(n), fz(n);
    ForceResult result;
    ForceOnParticle<Traits> const force{view, config, exclusions, {}};
    unsigned const threads = 128;
    unsigned const blocks = unsigned((n + threads - 1) / threads);
    DeviceTimer timer;
    force_kernel<<<blocks, threads>>>(force, fx.device_span(), fy.device_span(), fz.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    result.seconds = timer.stop_seconds();
    result.fx = fx.to_host();
    result.fy = fy.to_host();
    result.fz = fz.to_host();
    result.interactions = count_interactions(n, view.excl_index.size(), exclusions);
    return result;
}
} // namespace

ForceResult compute_forces_device(DeviceLJSystem const& sys, ForceRequest const& req)
{
    return dispatch_accum_method(req.method,
                                 [&](auto tag) {
                                     return device_force_loop<AccumTraits<decltype(tag)::value>>(
                                         sys, req.exclusions, req.config);
                                 });
}

double measure_force_bound_device(DeviceLJSystem const& sys, ExclusionMode exclusions)
{
    return max_component(device_force_loop<AbsBoundTraits>(sys, exclusions, AccumConfig{}));
}

ForceResult exact_float_forces_device(DeviceLJSystem const& sys, ExclusionMode exclusions)
{
    return device_force_loop<ExactFloatForceTraits>(sys, exclusions, AccumConfig{});
}
} // namespace mcdose::crosscheck
