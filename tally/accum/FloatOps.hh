//! \file tally/accum/FloatOps.hh
//! Correctly rounded add/subtract that the compiler may neither contract nor
//! reassociate, for the error-free transformations in tally/accum/.
//!
//! Why this exists: TwoSum and friends are exact only if every operation is
//! one IEEE-754 round-to-nearest operation, in program order.
//! - Reassociation (`-ffast-math`, `-fassociative-math`) turns `(s - a) - b`
//!   into zero; it is rejected below with `#error`.
//! - FMA contraction: nvcc contracts by default (`--fmad=true`). After
//!   inlining, a caller's product `acc.add(w * e)` can be fused into the first
//!   addition `s = hi + w*e` (one rounding), while the error term later uses
//!   the separately rounded product: TwoSum is then no longer error-free. The
//!   CUDA intrinsics `__fadd_rn`/`__dadd_rn`/`__fsub_rn`/`__dsub_rn` are
//!   documented never to be merged into an FMA, so the device pass uses them.
//! - The host pass relies on GCC's default `-ffp-contract=off` in ISO mode
//!   (`-std=c++17`, CMAKE_CXX_EXTENSIONS OFF) and on SSE arithmetic without
//!   excess precision (FLT_EVAL_METHOD == 0, checked below; x87 double
//!   rounding would break TwoSum).
#pragma once

#include <cfloat>

#include "core/Macros.hh"

#if defined(__FAST_MATH__)
#    error                                                                                         \
        "tally/accum: -ffast-math reassociates floating-point sums and destroys compensated summation; build without it"
#endif
#if !MCDOSE_DEVICE_COMPILE && defined(FLT_EVAL_METHOD)
static_assert(FLT_EVAL_METHOD == 0,
              "tally/accum needs float/double evaluated in their own precision "
              "(no x87 excess precision): build for SSE2 or newer");
#endif

namespace mcdose::accum
{
//! fl(a + b), round to nearest even, never contracted.
MCDOSE_FORCEINLINE_FUNCTION float add_rn(float a, float b)
{
#if MCDOSE_DEVICE_COMPILE
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
//! fl(a + b), round to nearest even, never contracted.
MCDOSE_FORCEINLINE_FUNCTION double add_rn(double a, double b)
{
#if MCDOSE_DEVICE_COMPILE
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
//! fl(a - b), round to nearest even, never contracted.
MCDOSE_FORCEINLINE_FUNCTION float sub_rn(float a, float b)
{
#if MCDOSE_DEVICE_COMPILE
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
//! fl(a - b), round to nearest even, never contracted.
MCDOSE_FORCEINLINE_FUNCTION double sub_rn(double a, double b)
{
#if MCDOSE_DEVICE_COMPILE
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

//! |x| without <cmath> (usable in constexpr-free device code alike).
template <class T>
MCDOSE_FORCEINLINE_FUNCTION T abs_value(T x)
{
    return x < T(0) ? -x : x;
}

//! Unit roundoff u = 2^-p of T (2^-24 for float, 2^-53 for double).
template <class T>
constexpr double unit_roundoff()
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double only");
    return sizeof(T) == 4 ? 5.9604644775390625e-08 : 1.1102230246251565e-16;
}

//! Higham's gamma_n = n u / (1 - n u) (Accuracy and Stability of Numerical
//! Algorithms, 2nd ed., eq. 3.8); +infinity when n u >= 1 (no bound).
template <class T>
inline double gamma_n(double n)
{
    double const nu = n * unit_roundoff<T>();
    return nu < 1 ? nu / (1 - nu) : __builtin_huge_val();
}
} // namespace mcdose::accum
