//! \file tally/accum/NarumiSum.hh
//! Float + int32 pair with a fixed binary point (after Narumi et al. 2008,
//! who accumulate MD forces on GPUs in a float/integer pair).
#pragma once

#include <cstdint>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "tally/accum/FixedPoint.hh"
#include "tally/accum/FloatOps.hh"

namespace mcdose::accum
{
/*!
 * Each term x is rounded once to m = round(x / q) units of the quantum
 * q = 2^quantum_exp2 and split at a fixed binary point B = 24 - LowerShift
 * bits above q: m = m_hi 2^B + m_lo with 0 <= m_lo < 2^B. The int32 word
 * accumulates m_hi; the float word accumulates m_lo. A float holds every
 * integer below 2^24 exactly, so after at most 2^LowerShift additions the
 * float word is still < 2^LowerShift * 2^B = 2^24 and every float addition
 * was exact. Every 2^LowerShift additions the whole multiples of 2^B are
 * carried from the float word into the int32 word (normalisation).
 *
 * Consequences: the pair always represents sum(m) exactly, so the result is
 * bitwise identical under any permutation of the terms; the only error is
 * the per-term rounding, |value() - S| <= n q / 2.
 * Preconditions: |x / q| < 2^62 per term; |sum(m)| < 2^31 * 2^B (the int32
 * word must not overflow: the range is 2^(31 + B) q).
 */
template <int LowerShift>
class NarumiSum
{
    static_assert(LowerShift >= 1 && LowerShift <= 23, "LowerShift in [1, 23]");

  public:
    static constexpr int lower_bits = 24 - LowerShift; //!< B
    static constexpr std::int64_t lower_base = std::int64_t(1) << lower_bits;
    static constexpr unsigned carry_period = 1u << LowerShift;

    MCDOSE_FUNCTION explicit NarumiSum(int quantum_exp2)
        : scale_(exp2_int(-quantum_exp2)), quantum_(exp2_int(quantum_exp2))
    {
    }

    MCDOSE_FORCEINLINE_FUNCTION void add(double x)
    {
        std::int64_t const m = to_fixed_units(x, scale_);
        std::int64_t const m_hi = m >> lower_bits; // floor division (arithmetic shift)
        std::int64_t const m_lo = m - m_hi * lower_base;
        MCDOSE_ASSERT(m_lo >= 0 && m_lo < lower_base);
        upper_ += static_cast<std::int32_t>(m_hi);
        lower_ = add_rn(lower_, static_cast<float>(m_lo)); // exact: stays < 2^24
        if (++count_ == carry_period)
            normalize();
    }

    //! Carry the whole multiples of 2^B from the float word to the int32 word.
    MCDOSE_FORCEINLINE_FUNCTION void normalize()
    {
        auto const lo = static_cast<std::int32_t>(lower_); // exact integer < 2^24
        upper_ += lo >> lower_bits;
        lower_ = static_cast<float>(lo & static_cast<std::int32_t>(lower_base - 1));
        count_ = 0;
    }

    //! Exact sum in units of q.
    MCDOSE_FORCEINLINE_FUNCTION std::int64_t units() const
    {
        return std::int64_t(upper_) * lower_base + static_cast<std::int64_t>(lower_);
    }
    MCDOSE_FORCEINLINE_FUNCTION double quantum() const { return quantum_; }
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(units()) * quantum_; }

    //! Largest |sum| representable: 2^(31 + B) q.
    MCDOSE_FORCEINLINE_FUNCTION double range() const
    {
        return exp2_int(31 + lower_bits) * quantum_;
    }
    static double error_bound(double n, double quantum) { return n * quantum / 2; }

  private:
    double scale_;
    double quantum_;
    std::int32_t upper_{0};
    float lower_{0};
    unsigned count_{0};
};
} // namespace mcdose::accum
