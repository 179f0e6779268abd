//! \file validation/crosscheck/md/MdForces.hh
//! All-pairs LJ forces with one accumulation method on the CPU (std::threads)
//! or the GPU (one thread per particle). Both run ForceOnParticle<M>.
#pragma once

#include <cstdint>
#include <vector>

#include "AccumMethods.hh"
#include "ForceKernel.hh"
#include "LJSystem.hh"
#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/DeviceBuffer.hh"

namespace mcdose::crosscheck
{
//! Per-particle forces [eps/sigma] and the time the force loop took.
struct ForceResult
{
    std::vector<double> fx, fy, fz;
    double seconds{0};      //!< wall time of the force loop (GPU: kernel time by events)
    double interactions{0}; //!< pair-force evaluations
};

//! What to compute.
struct ForceRequest
{
    AccumMethod method{AccumMethod::G};
    ExclusionMode exclusions{ExclusionMode::none};
    AccumConfig config;
};

//! CPU: `threads` = 0 uses every hardware thread. A non-empty `j_order` (a
//! permutation of 0..N-1) sets the order of the j loop.
ForceResult compute_forces_host(LJSystem const& sys, ForceRequest const& req,
                                std::vector<std::uint32_t> const& j_order = {},
                                unsigned threads = 0);

//! Largest per-component sum_j |f_ij| over all particles [eps/sigma]: bounds
//! every term and partial sum of the force loop (subtracted exclusions
//! included), so it sets the ranges of the fixed-point methods.
double measure_force_bound_host(LJSystem const& sys, ExclusionMode exclusions,
                                unsigned threads = 0);
//! The float pair forces summed (practically) exactly: the reference of the
//! accumulation error (ExactFloatForceTraits).
ForceResult exact_float_forces_host(LJSystem const& sys, ExclusionMode exclusions,
                                    unsigned threads = 0);

//! Largest entry of the three force components (used on |f| sums).
double max_component(ForceResult const& r);

//! The system uploaded once to the GPU, reused by every method.
class DeviceLJSystem
{
  public:
    explicit DeviceLJSystem(LJSystem const& sys);
    LJView view() const;
    size_type size() const { return x_.size(); }

  private:
    DeviceBuffer<float> x_, y_, z_, sigma2_, eps24_;
    DeviceBuffer<std::int32_t> type_;
    DeviceBuffer<std::uint32_t> excl_offset_, excl_index_;
    int num_types_{0};
    double box_length_{0};
};

#if MCDOSE_USE_CUDA
//! GPU: one thread per particle, natural j order; kernel time by CUDA events.
ForceResult compute_forces_device(DeviceLJSystem const& sys, ForceRequest const& req);
double measure_force_bound_device(DeviceLJSystem const& sys, ExclusionMode exclusions);
ForceResult exact_float_forces_device(DeviceLJSystem const& sys, ExclusionMode exclusions);
#else
inline ForceResult exact_float_forces_device(DeviceLJSystem const&, ExclusionMode)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline double measure_force_bound_device(DeviceLJSystem const&, ExclusionMode)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline ForceResult compute_forces_device(DeviceLJSystem const&, ForceRequest const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif

//! Pair-force evaluations of one force computation (both directions of each
//! pair are evaluated: the loops are per particle, as on GRAPE hardware).
double count_interactions(size_type num_particles, size_type num_excluded, ExclusionMode mode);
} // namespace mcdose::crosscheck
