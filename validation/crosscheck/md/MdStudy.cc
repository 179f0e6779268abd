//! \file validation/crosscheck/md/MdStudy.cc
#include "MdStudy.hh"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/Assert.hh"
#include "tally/accum/CompensatedSum.hh"

namespace mcdose::crosscheck
{
ForceMetrics compare_forces(ForceResult const& forces, ForceResult const& reference)
{
    size_type const n = reference.fx.size();
    MCDOSE_EXPECT(forces.fx.size() == n);
    ForceMetrics m;
    // The net force is a sum of cancelling terms: a compensated sum keeps its
    // own rounding (~1e-16 of sum |F|) far below any method's offset.
    accum::NeumaierSum<double> net_x, net_y, net_z;
    double sum_abs = 0, sum_abs_ref = 0, sum_abs_err = 0;
    for (size_type i = 0; i < n; ++i)
    {
        double const f = std::hypot(forces.fx[i], forces.fy[i], forces.fz[i]);
        double const fref = std::hypot(reference.fx[i], reference.fy[i], reference.fz[i]);
        double const err =
            std::hypot(forces.fx[i] - reference.fx[i], forces.fy[i] - reference.fy[i],
                       forces.fz[i] - reference.fz[i]);
        net_x.add(forces.fx[i]);
        net_y.add(forces.fy[i]);
        net_z.add(forces.fz[i]);
        sum_abs += f;
        sum_abs_ref += fref;
        sum_abs_err += err;
        if (fref > 0)
            m.max_rel_error = std::max(m.max_rel_error, err / fref);
    }
    m.avg_error = sum_abs_ref > 0 ? sum_abs_err / sum_abs_ref : 0;
    double const net = std::hypot(net_x.value(), net_y.value(), net_z.value());
    m.offset = sum_abs > 0 ? net / sum_abs : 0;
    return m;
}

ForceMetrics compare_forces(ForceResult const& forces, ForceResult const& reference,
                            ForceResult const& exact_float)
{
    ForceMetrics m = compare_forces(forces, reference);
    m.accum_error = compare_forces(forces, exact_float).avg_error;
    return m;
}

std::vector<MdRecord> run_md_study(LJSystem const& sys, std::string const& system_name,
                                   std::vector<ExclusionMode> const& modes,
                                   MdStudyOptions const& opts)
{
    MCDOSE_VALIDATE(opts.backend == Backend::cpu || opts.backend == Backend::gpu,
                    << "the MD study needs backend cpu or gpu (resolve 'auto' first)");
    std::vector<AccumMethod> methods = opts.methods;
    if (methods.empty())
    {
        for (int k = 0; k < num_accum_methods; ++k)
            methods.push_back(AccumMethod(k));
    }
    std::unique_ptr<DeviceLJSystem> device;
    if (opts.backend == Backend::gpu)
        device = std::make_unique<DeviceLJSystem>(sys);
    auto compute = [&](ForceRequest const& req)
    {
        return device ? compute_forces_device(*device, req)
                      : compute_forces_host(sys, req, {}, opts.threads);
    };
    auto config_for = [&](ExclusionMode mode)
    {
        return make_accum_config(device ? measure_force_bound_device(*device, mode)
                                        : measure_force_bound_host(sys, mode, opts.threads));
    };

    bool const bonded = !sys.excl_offset.empty();
    ForceRequest ref_req;
    ref_req.method = AccumMethod::G;
    ref_req.exclusions = bonded ? ExclusionMode::on_the_fly : ExclusionMode::none;
    ref_req.config = config_for(ref_req.exclusions);
    ForceResult const reference = compute(ref_req);
    ForceResult const exact_float =
        device ? exact_float_forces_device(*device, ref_req.exclusions)
               : exact_float_forces_host(sys, ref_req.exclusions, opts.threads);

    std::vector<MdRecord> records;
    for (ExclusionMode mode : modes)
    {
        MCDOSE_VALIDATE(bonded || mode == ExclusionMode::none,
                        << "exclusion mode '" << to_cstring(mode)
                        << "' needs the bonded chain system");
        ForceRequest req;
        req.exclusions = mode;
        req.config = config_for(mode);
        for (AccumMethod method : methods)
        {
            req.method = method;
            ForceResult const result = compute(req);
            MdRecord rec;
            rec.system = system_name;
            rec.exclusions = mode;
            rec.method = method;
            rec.backend = opts.backend;
            rec.particles = sys.size();
            rec.seconds = result.seconds;
            rec.interactions_per_s = result.seconds > 0 ? result.interactions / result.seconds : 0;
            rec.metrics = compare_forces(result, reference, exact_float);
            records.push_back(rec);
        }
    }
    return records;
}
} // namespace mcdose::crosscheck
