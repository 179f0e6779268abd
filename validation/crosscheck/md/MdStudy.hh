//! \file validation/crosscheck/md/MdStudy.hh
//! Metrics of the force-accumulation study (after Narumi et al.
//! 2008) and a driver that runs every method on one backend.
#pragma once

#include <string>
#include <vector>

#include "AccumMethods.hh"
#include "ForceKernel.hh"
#include "LJSystem.hh"
#include "MdForces.hh"
#include "core/Types.hh"

namespace mcdose::crosscheck
{
//! Accuracy of one force computation against a reference.
struct ForceMetrics
{
    double avg_error{0};     //!< sum_i |F_i - F_ref,i| / sum_i |F_ref,i|
    double offset{0};        //!< |sum_i F_i| / sum_i |F_i| (Newton III: exact value 0)
    double max_rel_error{0}; //!< max_i |F_i - F_ref,i| / |F_ref,i|
    //! sum_i |F_i - F_exact,i| / sum_i |F_exact,i| against the float pair forces
    //! summed exactly: the accumulation error alone (0 for method G, which has
    //! double pair forces, is not meaningful and is reported as the force error).
    double accum_error{0};
};

//! Compare `forces` with `reference` (vectors of equal size); accum_error
//! is left 0.
ForceMetrics compare_forces(ForceResult const& forces, ForceResult const& reference);
//! As above, with accum_error against `exact_float` (exact_float_forces_*).
ForceMetrics compare_forces(ForceResult const& forces, ForceResult const& reference,
                            ForceResult const& exact_float);

//! One row of the study.
struct MdRecord
{
    std::string system; //!< "cloud" or "chains"
    ExclusionMode exclusions{ExclusionMode::none};
    AccumMethod method{AccumMethod::G};
    Backend backend{Backend::cpu};
    size_type particles{0};
    double seconds{0};
    double interactions_per_s{0};
    ForceMetrics metrics;
};

struct MdStudyOptions
{
    Backend backend{Backend::cpu};    //!< cpu or gpu (resolve `automatic` before)
    std::vector<AccumMethod> methods; //!< empty: all eight
    unsigned threads{0};              //!< CPU threads (0: all)
};

/*!
 * Run the methods on `sys` for each exclusion mode. The reference of every
 * row is method G with exclusions applied on the fly (the correct physics),
 * computed on the same backend; the accumulation error is measured against
 * the float pair forces summed exactly, with exclusions on the fly. The fixed-point ranges come
 * from the measured bound on partial sums (measure_force_bound_*) for each mode.
 */
std::vector<MdRecord> run_md_study(LJSystem const& sys, std::string const& system_name,
                                   std::vector<ExclusionMode> const& modes,
                                   MdStudyOptions const& opts);
} // namespace mcdose::crosscheck
