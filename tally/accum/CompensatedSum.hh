//! \file tally/accum/CompensatedSum.hh
//! Running sums in one precision with a running correction term.
//!
//! Notation for the bounds: u = unit roundoff of T (2^-24 float, 2^-53
//! double), n = number of terms added, S = exact sum of the terms,
//! A = sum of |terms|, gamma_n = n u / (1 - n u). The bounds assume no
//! overflow; they are returned by `error_bound(n, A, |S|)` for tests and
//! cross-check studies. Only add_rn/sub_rn are used (FloatOps.hh), so the
//! compiler cannot optimise the compensation away.
#pragma once

#include "core/Macros.hh"
#include "tally/accum/FloatOps.hh"
#include "tally/accum/TwoSum.hh"

namespace mcdose::accum
{
//---------------------------------------------------------------------------//
/*!
 * Kahan's compensated summation (Kahan 1965, CACM 8:40; analysis in Knuth,
 * TAOCP vol. 2 §4.2.2 ex. 19, and Goldberg 1991 Theorem 8):
 *   y = x - c;  t = s + y;  c = (t - s) - y;  s = t.
 * Error bound (Goldberg Thm 8, Higham eq. 4.8 with the O(n u^2) term written
 * out): |sum() - S| <= (2u + 2 n u^2) A. 4 flops per term. No precondition
 * on the order or sign of the terms. value() = s - c applies the pending
 * correction once more (in double) and is usually closer still.
 */
template <class T>
class KahanSum
{
  public:
    using value_type = T;

    //! Empty sum.
    KahanSum() = default;
    //! Resume from a stored (sum, correction) pair, e.g. one packed in a 64-bit word.
    MCDOSE_FORCEINLINE_FUNCTION KahanSum(T sum, T correction) : s_(sum), c_(correction) {}

    MCDOSE_FORCEINLINE_FUNCTION void add(T x)
    {
        T const y = sub_rn(x, c_);
        T const t = add_rn(s_, y);
        c_ = sub_rn(sub_rn(t, s_), y);
        s_ = t;
    }
    //! Rounded sum (the correction is the negated missing part, applied once).
    MCDOSE_FORCEINLINE_FUNCTION T sum() const { return s_; }
    //! Sum and correction folded in double (exact for T = float).
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(s_) - double(c_); }
    MCDOSE_FORCEINLINE_FUNCTION T correction() const { return c_; }

    //! |sum() - S| bound for n terms with A = sum |x_i|.
    static double error_bound(double n, double abs_sum, double /* abs_exact */)
    {
        double const u = unit_roundoff<T>();
        return (2 * u + 2 * n * u * u) * abs_sum;
    }

  private:
    T s_{0};
    T c_{0};
};

//---------------------------------------------------------------------------//
/*!
 * Neumaier's improved Kahan-Babuska summation (Neumaier 1974, ZAMM 54:39):
 * a branch picks the larger operand so the correction is always exact
 * (FastTwoSum), which also handles terms larger than the running sum:
 *   t = s + x;  c += (|s| >= |x|) ? (s - t) + x : (x - t) + s;  s = t.
 * Result s + c. Error bound (Ogita, Rump & Oishi 2005, SIAM J. Sci. Comput.
 * 26:1955, Prop. 4.5 for the equivalent Sum2): |(s + c) - S| <= u|S| +
 * gamma_{n-1}^2 A. 4 flops and one compare per term. The correction c is a
 * plain recursive sum of the errors, so in float beyond ~10^6 terms the
 * bound is vacuous and c's own rounding dominates (measured 1.1e-6 relative
 * for 10^7 float terms, where Kahan gave 1.2e-8: test/tally/Accum.test.cc).
 */
template <class T>
class NeumaierSum
{
  public:
    using value_type = T;

    MCDOSE_FORCEINLINE_FUNCTION void add(T x)
    {
        T const t = add_rn(s_, x);
        T const e =
            abs_value(s_) >= abs_value(x) ? add_rn(sub_rn(s_, t), x) : add_rn(sub_rn(x, t), s_);
        c_ = add_rn(c_, e);
        s_ = t;
    }
    //! s + c rounded to T (the algorithm's result).
    MCDOSE_FORCEINLINE_FUNCTION T sum() const { return add_rn(s_, c_); }
    //! s + c in double (exact for T = float).
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(s_) + double(c_); }

    //! |sum() - S| bound (the u|S| term is the final rounding of s + c).
    static double error_bound(double n, double abs_sum, double abs_exact)
    {
        double const g = gamma_n<T>(n - 1);
        return unit_roundoff<T>() * abs_exact + g * g * abs_sum;
    }

  private:
    T s_{0};
    T c_{0};
};
} // namespace mcdose::accum
