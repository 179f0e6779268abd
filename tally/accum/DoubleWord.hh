//! \file tally/accum/DoubleWord.hh
//! Accumulate single values of type T into an unevaluated pair (hi, lo) of T,
//! i.e. about twice T's precision ("double-float" for T = float, "double-
//! double" for T = double).
//!
//! Notation as in CompensatedSum.hh: u unit roundoff of T, n terms, A = sum of
//! |terms|, S exact sum. No overflow assumed. All operations go through
//! add_rn/sub_rn so nvcc cannot contract them into FMAs.
#pragma once

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "tally/accum/FloatOps.hh"
#include "tally/accum/TwoSum.hh"

namespace mcdose::accum
{
//---------------------------------------------------------------------------//
/*!
 * Takahashi & Iitaka double-word accumulation (10 flops): TwoSum of the high
 * word and the term, add the low word to the error, renormalise by
 * FastTwoSum:
 *   (s, e) = TwoSum(hi, x);  v = lo + e;  (hi, lo) = FastTwoSum(s, v).
 * This is "DWPlusFP" of Joldes, Muller & Popescu 2017 (ACM Trans. Math.
 * Softw. 44(2), Alg. 4 and its theorem): each step has relative error <= 2u^2 with respect to the
 * exact hi + lo + x. Summed over the steps, with partial sums bounded by A:
 *   |(hi + lo) - S| <= 2 n u^2 A (1 + 2 n u^2).
 * No precondition on order or sign (TwoSum first, so |x| > |hi| is fine).
 */
template <class T>
class DoubleWordSum
{
  public:
    using value_type = T;

    //! Empty sum.
    DoubleWordSum() = default;
    //! Resume from a stored normalised pair (|lo| <= ulp(hi)/2).
    MCDOSE_FORCEINLINE_FUNCTION DoubleWordSum(T hi, T lo) : hi_(hi), lo_(lo) {}

    MCDOSE_FORCEINLINE_FUNCTION void add(T x)
    {
        SumAndError<T> const s = two_sum(hi_, x);
        T const v = add_rn(lo_, s.error);
        SumAndError<T> const r = fast_two_sum(s.sum, v);
        hi_ = r.sum;
        lo_ = r.error;
    }
    MCDOSE_FORCEINLINE_FUNCTION T hi() const { return hi_; }
    MCDOSE_FORCEINLINE_FUNCTION T lo() const { return lo_; }
    //! hi + lo in double (exact for T = float; rounded once for T = double).
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(hi_) + double(lo_); }

    //! Bound on |(hi + lo) - S| (exact pair, before value()'s final rounding).
    static double error_bound(double n, double abs_sum, double /* abs_exact */)
    {
        double const u2 = unit_roundoff<T>() * unit_roundoff<T>();
        return 2 * n * u2 * abs_sum * (1 + 2 * n * u2);
    }

  private:
    T hi_{0};
    T lo_{0};
};

//---------------------------------------------------------------------------//
/*!
 * Nitadori's 4-flop variant (K. Nitadori's "pseudo double" accumulation for
 * single-precision N-body force sums): FastTwoSum into the high word, the
 * error added to the low word, no renormalisation:
 *   t = hi + x;  lo += x - (t - hi);  hi = t.
 * Precondition for every term: |hi| >= |x| (checked in debug builds; the first
 * term into an empty sum is always fine); otherwise the error term is not
 * exact. Then hi + lo_exact == S exactly and only lo's own rounding remains:
 *   |(hi + lo) - S| <= gamma_{n-1} sum|e_k| <= gamma_{n-1} n u (1 + u) A,
 * i.e. O(n^2 u^2) A: fine for double, weak for float beyond ~10^6 terms
 * (the lo word then needs periodic folding, or use DoubleWordSum).
 */
template <class T>
class NitadoriSum
{
  public:
    using value_type = T;

    MCDOSE_FORCEINLINE_FUNCTION void add(T x)
    {
        MCDOSE_EXPECT(hi_ == T(0) || !(abs_value(hi_) < abs_value(x)));
        T const t = add_rn(hi_, x);
        lo_ = add_rn(lo_, sub_rn(x, sub_rn(t, hi_)));
        hi_ = t;
    }
    MCDOSE_FORCEINLINE_FUNCTION T hi() const { return hi_; }
    MCDOSE_FORCEINLINE_FUNCTION T lo() const { return lo_; }
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(hi_) + double(lo_); }

    //! Bound on |(hi + lo) - S| when the precondition held for every term.
    static double error_bound(double n, double abs_sum, double /* abs_exact */)
    {
        double const u = unit_roundoff<T>();
        return gamma_n<T>(n - 1) * n * u * (1 + u) * abs_sum;
    }

  private:
    T hi_{0};
    T lo_{0};
};

//---------------------------------------------------------------------------//
/*!
 * Modified Nitadori accumulation with a LARGE offset: hi starts at
 * `large` (a power of two) so that the FastTwoSum precondition |hi| >= |x|
 * holds for every term without a compare; for non-negative terms hi stays in
 * the binade [large, 2 large), so its ulp 2u*large is fixed: hi behaves as a
 * fixed-point register and lo collects the sub-ulp remainders.
 * Preconditions: `large` is a power of two; every |x| <= large/2 and every
 * partial sum |S_k| <= large/2 (so hi stays in [large/2, 3 large/2]).
 * Result (hi - large) + lo; hi - large is exact (Sterbenz). Each remainder
 * |e_k| <= u large, so
 *   |result - S| <= gamma_{n-1} n u large  (+ 2^-53 |S| for value() in double).
 * Choose `large` as small as the bound on |S_k| allows: terms below the
 * fixed ulp 2u*large go entirely to lo, whose own float sum then stagnates
 * (measured: 0.4% error for 10^7 float terms of mean 0.1 with large = 2^22,
 * see test/tally/Accum.test.cc). In double the bound is tight and useful.
 */
template <class T>
class OffsetNitadoriSum
{
  public:
    using value_type = T;

    //! Start the high word at `large` (power of two > 2 max(|x|, |S_k|)).
    MCDOSE_FUNCTION explicit OffsetNitadoriSum(T large) : large_(large), hi_(large) {}

    MCDOSE_FORCEINLINE_FUNCTION void add(T x)
    {
        MCDOSE_EXPECT(abs_value(x) <= large_ / 2);
        T const t = add_rn(hi_, x);
        lo_ = add_rn(lo_, sub_rn(x, sub_rn(t, hi_)));
        hi_ = t;
        MCDOSE_ASSERT(hi_ >= large_ / 2 && hi_ <= large_ + large_ / 2);
    }
    MCDOSE_FORCEINLINE_FUNCTION T large() const { return large_; }
    //! (hi - large) + lo in double (hi - large exact; sum exact for float).
    MCDOSE_FORCEINLINE_FUNCTION double value() const
    {
        return double(sub_rn(hi_, large_)) + double(lo_);
    }

    //! Bound on |value() - S|, including value()'s final rounding to double.
    static double error_bound(double n, double large, double abs_exact)
    {
        return gamma_n<T>(n - 1) * n * unit_roundoff<T>() * large +
               unit_roundoff<double>() * abs_exact;
    }

  private:
    T large_;
    T hi_;
    T lo_{0};
};
} // namespace mcdose::accum
