//! \file validation/crosscheck/md/InvSqrtScan.hh
//! Maximum relative error of single-precision inverse square roots over a
//! range of float32 inputs (all positive normal floats for the full scan):
//! the GROMACS-style table method (TableInvSqrt.hh), its table seed alone,
//! 1/sqrtf and, on the GPU, the rsqrtf intrinsic. Reference: 1/sqrt in double
//! (relative error <= 2^-52, negligible).
#pragma once

#include <cmath>
#include <cstdint>

#include "TableInvSqrt.hh"
#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/Macros.hh"
#include "core/Types.hh"

namespace mcdose::crosscheck
{
//! Bit patterns of the positive normal floats: [FLT_MIN, FLT_MAX].
inline constexpr std::uint32_t first_normal_float_bits = 0x00800000u;
inline constexpr std::uint32_t last_normal_float_bits = 0x7f7fffffu;
//! Claimed accuracy of the table method (derivation in TableInvSqrt.hh).
inline constexpr double inv_sqrt_table_claimed_rel_error = 2.0e-7;

//! Relative errors at one input.
struct InvSqrtErrors
{
    double table{0};    //!< table + Newton-Raphson
    double seed{0};     //!< table only
    double division{0}; //!< 1.0f / sqrtf(x)
};

MCDOSE_FORCEINLINE_FUNCTION double relative_error(float y, double ref)
{
    double const d = (double(y) - ref) / ref;
    return d < 0 ? -d : d;
}

//! Errors of the portable methods at x (shared by the host and device scans).
MCDOSE_FORCEINLINE_FUNCTION InvSqrtErrors inv_sqrt_errors(InvSqrtTableView const& t, float x)
{
    double const ref = 1.0 / sqrt(double(x));
    InvSqrtErrors e;
    e.table = relative_error(inv_sqrt_table(t, x), ref);
    e.seed = relative_error(inv_sqrt_table_seed(t, x), ref);
    e.division = relative_error(1.0f / sqrtf(x), ref);
    return e;
}

//! Result of a scan over bit patterns first, first + stride, ..., <= last.
struct InvSqrtScanResult
{
    Backend backend{Backend::cpu};
    std::uint64_t inputs{0};
    double max_table{0};
    double max_seed{0};
    double max_division{0};
    double max_rsqrtf{-1};      //!< GPU intrinsic; -1 when not measured (CPU)
    float worst_table_input{0}; //!< CPU only (0 on the GPU)
    double seconds{0};
};

//! CPU scan with `threads` std::threads (0: all hardware threads).
InvSqrtScanResult scan_inv_sqrt_host(std::uint32_t first_bits, std::uint32_t last_bits,
                                     std::uint32_t stride = 1, unsigned threads = 0);

#if MCDOSE_USE_CUDA
//! GPU scan (also measures rsqrtf).
InvSqrtScanResult scan_inv_sqrt_device(std::uint32_t first_bits, std::uint32_t last_bits,
                                       std::uint32_t stride = 1);
#else
inline InvSqrtScanResult scan_inv_sqrt_device(std::uint32_t, std::uint32_t, std::uint32_t = 1)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::crosscheck
