//! \file test/tally/ExactSum.hh
//! Exact reference arithmetic for the accumulator tests: floating-point
//! values as __int128 multiples of 2^unit_exp2.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace mcdose::test
{
using int128 = __int128;

//! x as an exact integer multiple of 2^unit_exp2 (throws if x is not one,
//! or does not fit).
inline int128 to_units(long double x, int unit_exp2)
{
    if (x == 0)
        return 0;
    int e = 0;
    long double const m = std::frexp(x, &e);                      // x = m 2^e, 0.5 <= |m| < 1
    auto const mi = static_cast<std::int64_t>(std::ldexp(m, 63)); // exact for 64-bit mantissas
    int const shift = e - 63 - unit_exp2;
    if (shift >= 0)
    {
        if (shift > 60)
            throw std::range_error("to_units: value too large for 128 bits");
        // Multiply rather than shift: a left shift of a negative value is undefined.
        return int128(mi) * (int128(1) << shift);
    }
    if (shift < -63 || (mi & ((std::int64_t(1) << -shift) - 1)) != 0)
        throw std::range_error("to_units: value is not a multiple of the unit");
    return int128(mi >> -shift);
}

//! units * 2^unit_exp2 in long double (one rounding).
inline long double from_units(int128 u, int unit_exp2)
{
    bool const neg = u < 0;
    if (neg)
        u = -u;
    auto const hi = static_cast<std::uint64_t>(u >> 64);
    auto const lo = static_cast<std::uint64_t>(u);
    long double const v = std::ldexp(static_cast<long double>(hi), 64) + lo;
    return std::ldexp(neg ? -v : v, unit_exp2);
}

//! Exact sum of values that are multiples of 2^unit_exp2.
class ExactSum
{
  public:
    explicit ExactSum(int unit_exp2) : unit_exp2_(unit_exp2) {}
    void add(long double x) { units_ += to_units(x, unit_exp2_); }
    int128 units() const { return units_; }
    long double value() const { return from_units(units_, unit_exp2_); }
    //! (hi + lo) - exact, with hi a multiple of the unit: exact part in
    //! integers, the small remainder in long double.
    long double error_of(long double hi, long double lo = 0) const
    {
        return from_units(to_units(hi, unit_exp2_) - units_, unit_exp2_) + lo;
    }

  private:
    int unit_exp2_;
    int128 units_{0};
};
} // namespace mcdose::test
