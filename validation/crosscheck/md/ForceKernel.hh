//! \file validation/crosscheck/md/ForceKernel.hh
//! The per-particle force loop shared by the CPU threads and the GPU kernel:
//! particle i sums f_ij over all j != i (no cutoff) with one accumulation
//! method, in a given j order, handling exclusions on the fly or subtracting
//! them afterwards.
#pragma once

#include "AccumMethods.hh"
#include "LJSystem.hh"
#include "PairForce.hh"
#include "core/Macros.hh"

namespace mcdose::crosscheck
{
//! How excluded (bonded 1-2, 1-3) pairs are treated.
enum class ExclusionMode
{
    none,          //!< no exclusions (all pairs interact)
    on_the_fly,    //!< skip excluded j inside the pair loop
    subtract_after //!< sum all pairs, then add -f_ij of each excluded pair
};

char const* to_cstring(ExclusionMode m);

//! Per-particle force with the accumulation of `Traits` (force_real,
//! accumulator); `j_order` (optional) permutes the j loop.
template <class Traits>
struct ForceOnParticle
{
    using Real = typename Traits::force_real;
    using Acc = typename Traits::accumulator;

    LJView system;
    AccumConfig config;
    ExclusionMode exclusions{ExclusionMode::none};
    Span<std::uint32_t const> j_order;

    MCDOSE_FUNCTION bool is_excluded(size_type i, size_type j) const
    {
        for (auto k = system.excl_offset[i]; k < system.excl_offset[i + 1]; ++k)
        {
            if (system.excl_index[k] == j)
                return true;
        }
        return false;
    }

    //! Force on particle i [eps/sigma], converted to double.
    MCDOSE_FUNCTION Vec3<double> operator()(size_type i) const
    {
        Acc fx(config), fy(config), fz(config);
        size_type const n = system.x.size();
        bool const skip_excluded = exclusions == ExclusionMode::on_the_fly;
        for (size_type jj = 0; jj < n; ++jj)
        {
            size_type const j = j_order.empty() ? jj : j_order[jj];
            if (j == i || (skip_excluded && is_excluded(i, j)))
                continue;
            Vec3<Real> const f = lj_pair_force<Real>(system, i, j);
            fx.add(f.x);
            fy.add(f.y);
            fz.add(f.z);
        }
        if (exclusions == ExclusionMode::subtract_after)
        {
            // The same pair force, negated: exact methods cancel it bit for bit.
            for (auto k = system.excl_offset[i]; k < system.excl_offset[i + 1]; ++k)
            {
                Vec3<Real> const f = lj_pair_force<Real>(system, i, system.excl_index[k]);
                fx.add(-f.x);
                fy.add(-f.y);
                fz.add(-f.z);
            }
        }
        return {fx.value(), fy.value(), fz.value()};
    }
};
} // namespace mcdose::crosscheck
