//! \file tally/accum/TwoSum.hh
//! Error-free transformations of a sum: s + e == a + b exactly.
//!
//! - two_sum: Knuth, TAOCP vol. 2 (3rd ed.) §4.2.2, Theorem B (after Møller
//!   1965): 6 flops, any order of |a| and |b|.
//! - fast_two_sum: Dekker 1971 (Numer. Math. 18:224, "Fast2Sum"): 3 flops,
//!   precondition |a| >= |b| (more precisely exponent(a) >= exponent(b), or
//!   a == 0).
//!
//! Both hold in binary floating point with round-to-nearest when no overflow
//! occurs (|a| + |b| below the largest finite value); underflow is harmless
//! for addition. Every operation goes through add_rn/sub_rn (FloatOps.hh) so
//! that neither nvcc nor g++ may contract or reassociate it.
#pragma once

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "tally/accum/FloatOps.hh"

namespace mcdose::accum
{
//! Rounded sum and its exact rounding error: sum + error == a + b.
template <class T>
struct SumAndError
{
    T sum;
    T error;
};

//! Knuth's TwoSum: exact for any a, b (no precondition besides no overflow).
template <class T>
MCDOSE_FORCEINLINE_FUNCTION SumAndError<T> two_sum(T a, T b)
{
    T const s = add_rn(a, b);
    T const b_virtual = sub_rn(s, a);
    T const a_virtual = sub_rn(s, b_virtual);
    T const b_roundoff = sub_rn(b, b_virtual);
    T const a_roundoff = sub_rn(a, a_virtual);
    return {s, add_rn(a_roundoff, b_roundoff)};
}

//! Dekker's FastTwoSum: exact if |a| >= |b| or a == 0 (checked in debug builds).
template <class T>
MCDOSE_FORCEINLINE_FUNCTION SumAndError<T> fast_two_sum(T a, T b)
{
    MCDOSE_EXPECT(a == T(0) || !(abs_value(a) < abs_value(b)));
    T const s = add_rn(a, b);
    T const b_virtual = sub_rn(s, a);
    return {s, sub_rn(b, b_virtual)};
}
} // namespace mcdose::accum
