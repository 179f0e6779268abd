//! \file tally/accum/FixedPoint.hh
//! 64-bit integer fixed-point accumulation (as in AMBER's SPFP, Le Grand,
//! Götz & Walker 2013, Comput. Phys. Commun. 184:374, which accumulates
//! forces as 64-bit integers scaled by 2^40).
//!
//! A value x is stored as the integer m = round(x / q), q = 2^quantum_exp2
//! (a power of two, so the scaling is exact and only the rounding to an
//! integer loses information). Integer addition is associative, so the sum
//! is bitwise identical for any order, thread count or launch configuration.
//! Error: |sum - S| <= n q / 2 (one rounding per term, none in the sum).
//! Precondition: |sum of m| < 2^63 at every step; choose the quantum with
//! fixed_point_quantum_exp2() from an upper bound on the total.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/Assert.hh"
#include "core/Macros.hh"

namespace mcdose::accum
{
//! round(x * scale) to the nearest integer, ties to even (scale = 2^-e).
//! Precondition: |x * scale| < 2^63.
MCDOSE_FORCEINLINE_FUNCTION std::int64_t to_fixed_units(double x, double scale)
{
#if MCDOSE_DEVICE_COMPILE
    return __double2ll_rn(x * scale);
#else
    // llrint honours the current rounding mode, which is round-to-nearest
    // unless the program changed it (mcdose never does).
    return std::llrint(x * scale);
#endif
}

//! Exact power of two 2^e as a double (|e| <= 1000), without <cmath> on device.
MCDOSE_FORCEINLINE_FUNCTION double exp2_int(int e)
{
    double r = 1;
    double const f = e < 0 ? 0.5 : 2.0;
    for (int i = 0, n = e < 0 ? -e : e; i < n; ++i)
        r *= f;
    return r;
}

//! Smallest exponent e such that max_abs_total / 2^e <= 2^headroom_bits:
//! the finest quantum for which a sum bounded by max_abs_total cannot
//! overflow int64. The default 2^62 leaves a factor of 2 for the per-term
//! rounding (at most n/2 units for n terms) and for negative terms.
inline int fixed_point_quantum_exp2(double max_abs_total, int headroom_bits = 62)
{
    MCDOSE_EXPECT(max_abs_total > 0 && headroom_bits > 0 && headroom_bits < 63);
    int exp2 = 0;
    double const mantissa = std::frexp(max_abs_total, &exp2); // total = mantissa * 2^exp2
    // total <= 2^exp2 (== 2^(exp2-1) exactly when mantissa == 0.5)
    int const ceil_log2 = (mantissa == 0.5) ? exp2 - 1 : exp2;
    return ceil_log2 - headroom_bits;
}

/*!
 * 64-bit fixed-point sum with quantum q = 2^quantum_exp2. Stored as uint64
 * so that wrap-around is defined; read back as two's-complement int64.
 */
class FixedPointSum
{
  public:
    MCDOSE_FUNCTION explicit FixedPointSum(int quantum_exp2)
        : scale_(exp2_int(-quantum_exp2)), quantum_(exp2_int(quantum_exp2))
    {
    }

    MCDOSE_FORCEINLINE_FUNCTION void add(double x)
    {
        units_ += static_cast<std::uint64_t>(to_fixed_units(x, scale_));
    }
    //! Merge another partial sum (associative: any merge order, same bits).
    MCDOSE_FORCEINLINE_FUNCTION void merge(FixedPointSum const& other)
    {
        MCDOSE_EXPECT(other.quantum_ == quantum_);
        units_ += other.units_;
    }
    MCDOSE_FORCEINLINE_FUNCTION std::int64_t units() const
    {
        return static_cast<std::int64_t>(units_);
    }
    MCDOSE_FORCEINLINE_FUNCTION double quantum() const { return quantum_; }
    //! units * q (one rounding to double when |units| > 2^53).
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(units()) * quantum_; }

    //! Bound on |units * q - S| for n terms.
    static double error_bound(double n, double quantum) { return n * quantum / 2; }

  private:
    double scale_;
    double quantum_;
    std::uint64_t units_{0};
};
} // namespace mcdose::accum
