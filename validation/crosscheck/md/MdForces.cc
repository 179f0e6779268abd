//! \file validation/crosscheck/md/MdForces.cc
#include "MdForces.hh"

#include "validation/crosscheck/HostThreads.hh"

#include <atomic>
#include <chrono>
#include <thread>

namespace mcdose::crosscheck
{
char const* to_cstring(ExclusionMode m)
{
    switch (m)
    {
    case ExclusionMode::none:
        return "none";
    case ExclusionMode::on_the_fly:
        return "on_the_fly";
    case ExclusionMode::subtract_after:
        return "subtract_after";
    }
    return "?";
}

double count_interactions(size_type num_particles, size_type num_excluded, ExclusionMode mode)
{
    double const n = double(num_particles);
    double const excluded = double(num_excluded);
    switch (mode)
    {
    case ExclusionMode::none:
        return n * (n - 1);
    case ExclusionMode::on_the_fly:
        return n * (n - 1) - excluded;
    case ExclusionMode::subtract_after:
        return n * (n - 1) + excluded;
    }
    return 0;
}

namespace
{
//! Threaded CPU loop over particles with the accumulation of Traits.
template <class Traits>
ForceResult host_force_loop(LJSystem const& sys, ExclusionMode exclusions,
                            AccumConfig const& config, std::vector<std::uint32_t> const& j_order,
                            unsigned threads)
{
    MCDOSE_VALIDATE(j_order.empty() || j_order.size() == sys.size(),
                    << "j order has " << j_order.size() << " entries for " << sys.size()
                    << " particles; pass a permutation of all particles");
    MCDOSE_VALIDATE(exclusions == ExclusionMode::none || !sys.excl_offset.empty(),
                    << "exclusion mode '" << to_cstring(exclusions)
                    << "' needs a bonded system; use the chain system");
    size_type const n = sys.size();
    ForceResult result;
    result.fx.resize(n);
    result.fy.resize(n);
    result.fz.resize(n);
    threads = resolve_threads(threads);
    ForceOnParticle<Traits> const force{
        make_host_view(sys), config, exclusions, {j_order.data(), j_order.size()}};

    auto const start = std::chrono::steady_clock::now();
    // Particles are handed out in small blocks by an atomic counter (the CPU
    // analogue of the GPU's thread index).
    std::atomic<size_type> next{0};
    size_type const block = 16;
    auto worker = [&](unsigned)
    {
        for (size_type b = next.fetch_add(block); b < n; b = next.fetch_add(block))
        {
            for (size_type i = b; i < std::min(n, b + block); ++i)
            {
                auto const f = force(i);
                result.fx[i] = f.x;
                result.fy[i] = f.y;
                result.fz[i] = f.z;
            }
        }
    };
    run_on_threads(threads, worker);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.interactions = count_interactions(n, sys.excl_index.size(), exclusions);
    return result;
}
} // namespace

ForceResult compute_forces_host(LJSystem const& sys, ForceRequest const& req,
                                std::vector<std::uint32_t> const& j_order, unsigned threads)
{
    return dispatch_accum_method(req.method,
                                 [&](auto tag)
                                 {
                                     return host_force_loop<AccumTraits<decltype(tag)::value>>(
                                         sys, req.exclusions, req.config, j_order, threads);
                                 });
}

double max_component(ForceResult const& r)
{
    double m = 0;
    for (auto const* v : {&r.fx, &r.fy, &r.fz})
        for (double f : *v)
            m = std::max(m, f);
    return m;
}

double measure_force_bound_host(LJSystem const& sys, ExclusionMode exclusions, unsigned threads)
{
    return max_component(
        host_force_loop<AbsBoundTraits>(sys, exclusions, AccumConfig{}, {}, threads));
}

ForceResult exact_float_forces_host(LJSystem const& sys, ExclusionMode exclusions, unsigned threads)
{
    return host_force_loop<ExactFloatForceTraits>(sys, exclusions, AccumConfig{}, {}, threads);
}

DeviceLJSystem::DeviceLJSystem(LJSystem const& sys)
    : x_(sys.x), y_(sys.y), z_(sys.z), sigma2_(sys.sigma2), eps24_(sys.eps24), type_(sys.type),
      num_types_(sys.num_types), box_length_(sys.box_length)
{
    if (!sys.excl_offset.empty())
    {
        excl_offset_ = DeviceBuffer<std::uint32_t>(sys.excl_offset);
        excl_index_ = DeviceBuffer<std::uint32_t>(sys.excl_index);
    }
}

LJView DeviceLJSystem::view() const
{
    LJView v;
    v.x = x_.device_span();
    v.y = y_.device_span();
    v.z = z_.device_span();
    v.type = type_.device_span();
    v.sigma2 = sigma2_.device_span();
    v.eps24 = eps24_.device_span();
    v.excl_offset = excl_offset_.device_span();
    v.excl_index = excl_index_.device_span();
    v.num_types = num_types_;
    v.box_length = float(box_length_);
    return v;
}
} // namespace mcdose::crosscheck
