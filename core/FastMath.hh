//! \file core/FastMath.hh
//! Elementary functions of the transport's sampling code. In single precision
//! in device code they are the special-function-unit approximations (CUDA C++
//! Programming Guide, "Intrinsic Functions"): __logf (absolute error <= 2^-21.41
//! on [0.5, 2], <= 3 ulp elsewhere), __expf (<= 2 + floor(|1.173 x|) ulp) and
//! __sincosf (absolute error <= 2^-21.41 on [-pi, pi]; the argument is reduced
//! to that range first), __fdividef (2 ulp). These replace inlined libm
//! sequences that made up a sixth of the transport kernel's code, which does
//! not fit the instruction cache (docs/history/benchmarks-log.md, "Where the GPU time
//! goes"). Their errors are far below the float transport's own (tables
//! interpolated to 1e-3, sampling in 24-bit uniforms). In double precision and
//! on the host they are the standard functions, so CPU results do not change;
//! double log/exp/expm1/sincospi are called out of line (one copy in the kernel).
#pragma once

#include <cmath>

#include "core/Constants.hh"
#include "core/Macros.hh"

namespace mcdose
{
MCDOSE_FORCEINLINE_FUNCTION float fast_log(float x)
{
#if MCDOSE_DEVICE_COMPILE
    return __logf(x);
#else
    return std::log(x);
#endif
}

inline MCDOSE_FUNCTION MCDOSE_NOINLINE double fast_log(double x)
{
    return std::log(x);
}

MCDOSE_FORCEINLINE_FUNCTION float fast_exp(float x)
{
#if MCDOSE_DEVICE_COMPILE
    return __expf(x);
#else
    return std::exp(x);
#endif
}

inline MCDOSE_FUNCTION MCDOSE_NOINLINE double fast_exp(double x)
{
    return std::exp(x);
}

//! e^x - 1 for x <= 0 (the multiple-scattering moments 1 - e^(-s/lambda)).
//! Single precision on the device: for |x| < 1/8 the Taylor series to x^5/120
//! (truncation < x^6/720 / |x| <= 4.3e-8 relative, below a float ulp), else
//! __expf(x) - 1: for |x| < 0.85 __expf is within 2 ulp of e^x (<= 1.2e-7)
//! and the subtraction is exact (Sterbenz), so relative to |e^x - 1| >= 0.1175
//! the error is <= 1.02e-6; further out it is smaller (e^x < 0.43). The libm
//! expm1f it replaces was inlined at both call sites of the charged step.
//! Double on the device, out of line: for |x| < 2^-5 the Taylor series to
//! x^9/9! (truncation < x^9/10! <= 7.8e-21 relative), else fast_exp(x) - 1
//! (exp within 1 ulp; exact subtraction for |x| < 0.69, so relative to
//! |e^x - 1| >= 0.0308 the error is <= 3.6e-15; smaller further out). CUDA's
//! double expm1 was the kernel's most executed source line (8.7 % of its
//! instructions, H100 profile in docs/history/benchmarks-log.md). The host keeps std::expm1.
MCDOSE_FORCEINLINE_FUNCTION float fast_expm1(float x)
{
#if MCDOSE_DEVICE_COMPILE
    if (fabsf(x) < 0.125f)
        return x * (1.0f + x * (0.5f + x * (1.0f / 6 + x * (1.0f / 24 + x * (1.0f / 120)))));
    return __expf(x) - 1.0f;
#else
    return std::expm1(x);
#endif
}

inline MCDOSE_FUNCTION MCDOSE_NOINLINE double fast_expm1(double x)
{
#if MCDOSE_DEVICE_COMPILE
    if (fabs(x) < 0.03125)
    {
        // Horner over 1/k!, k = 9 down to 1.
        double p = 1.0 / 362880;
        p = p * x + 1.0 / 40320;
        p = p * x + 1.0 / 5040;
        p = p * x + 1.0 / 720;
        p = p * x + 1.0 / 120;
        p = p * x + 1.0 / 24;
        p = p * x + 1.0 / 6;
        p = p * x + 1.0 / 2;
        p = p * x + 1;
        return p * x;
    }
    return fast_exp(x) - 1;
#else
    return std::expm1(x);
#endif
}

//! x / y; in single precision on the device __fdividef (2 ulp for |y| in
//! [2^-126, 2^126]: the division without the IEEE slow path and its branch).
MCDOSE_FORCEINLINE_FUNCTION float fast_div(float x, float y)
{
#if MCDOSE_DEVICE_COMPILE
    return __fdividef(x, y);
#else
    return x / y;
#endif
}

MCDOSE_FORCEINLINE_FUNCTION double fast_div(double x, double y)
{
    return x / y;
}

//! sin and cos of one angle.
template <class Real>
struct SinCos
{
    Real s, c;
};

//! sin(2 pi t) and cos(2 pi t): the azimuth of a uniform t in (0, 1], which is
//! how every caller gets its angle. In single precision on the device
//! __sincosf of 2 pi (t - rint(t)), in [-pi, pi], where it meets its stated
//! error bound.
MCDOSE_FORCEINLINE_FUNCTION SinCos<float> fast_sincos_turns(float t)
{
#if MCDOSE_DEVICE_COMPILE
    SinCos<float> r;
    __sincosf(float(constants::two_pi) * (t - rintf(t)), &r.s, &r.c);
    return r;
#else
    float const x = float(constants::two_pi) * t;
    return {std::sin(x), std::cos(x)};
#endif
}

//! In double, out of line and returned by value (in registers: out-parameters
//! of an out-of-line call would put the caller's variables in local memory).
//! On the device sincospi(2 t) (CUDA Math API: 2 ulp, like sincos): its
//! argument reduction is exact and short, where sincos(2 pi t) first rounds
//! 2 pi t and carries the Payne-Hanek reduction for huge arguments (code the
//! instruction-cache-bound kernel has to fetch, docs/history/benchmarks-log.md).
inline MCDOSE_FUNCTION MCDOSE_NOINLINE SinCos<double> fast_sincos_turns(double t)
{
#if MCDOSE_DEVICE_COMPILE
    SinCos<double> r;
    ::sincospi(2 * t, &r.s, &r.c);
    return r;
#else
    double const x = constants::two_pi * t;
    return {std::sin(x), std::cos(x)};
#endif
}
} // namespace mcdose
