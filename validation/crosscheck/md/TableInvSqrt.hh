//! \file validation/crosscheck/md/TableInvSqrt.hh
//! Table-driven single-precision 1/sqrt(x) as in GROMACS 3/4 (Lindahl, Hess &
//! van der Spoel 2001, J. Mol. Model. 7:306, "software inverse square root"):
//! the result's exponent bits come from a table indexed by the 8 exponent bits
//! of x, its fraction bits from a table indexed by the exponent's lowest bit
//! and the top 11 fraction bits of x, followed by one Newton-Raphson step
//! y <- y (3 - x y^2) / 2 (Press et al., Numerical Recipes, sec. 9.4).
//!
//! Design accuracy (derived in docs/crosscheck.md): the table value is the
//! minimax constant of the cell, relative error |e0| <= 2^-13 (1 + 2^-12);
//! Newton-Raphson squares it, e1 = -(3/2) e0^2 - e0^3/2, |e1| <= 1.5 2^-26
//! = 2.2e-8; the float evaluation of the step adds at most ~3 u (u = 2^-24),
//! so |y/x^-1/2 - 1| <= 2.0e-7 is the claim the exhaustive scan checks.
//! Domain: positive normal floats (x >= FLT_MIN); zero, subnormals, infinities
//! and NaN are outside it, as in GROMACS.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/Macros.hh"
#include "core/Span.hh"

namespace mcdose::crosscheck
{
//! Bit layout of IEEE-754 binary32.
struct Float32Bits
{
    static constexpr std::uint32_t exponent_mask = 0x7f800000u;
    static constexpr std::uint32_t fraction_mask = 0x007fffffu;
    static constexpr std::uint32_t exponent_lsb = 0x00800000u;
    static constexpr int exponent_shift = 23;
    static constexpr int table_fraction_bits = 11; //!< fraction bits that index the table
    static constexpr int fraction_shift = exponent_shift - table_fraction_bits;
    static constexpr std::uint32_t exponent_entries = 256;
    static constexpr std::uint32_t fraction_entries = 2u << table_fraction_bits; // + exponent LSB
};

MCDOSE_FORCEINLINE_FUNCTION std::uint32_t float_to_bits(float x)
{
    std::uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
MCDOSE_FORCEINLINE_FUNCTION float bits_to_float(std::uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

//! Device-visible view of the two tables.
struct InvSqrtTableView
{
    Span<std::uint32_t const> exponent; //!< result exponent bits per input exponent
    Span<std::uint32_t const> fraction; //!< result fraction bits per (exponent LSB, 11 bits)
};

//! Tables (host-owned).
struct InvSqrtTables
{
    std::vector<std::uint32_t> exponent;
    std::vector<std::uint32_t> fraction;
    InvSqrtTableView view() const { return {make_span(exponent), make_span(fraction)}; }
};
//! Build the tables (minimax constant per fraction cell, computed in double).
InvSqrtTables make_inv_sqrt_tables();

//! Table lookup only: the starting value y0 ~ x^-1/2 (|e0| <= 2^-13).
MCDOSE_FORCEINLINE_FUNCTION float inv_sqrt_table_seed(InvSqrtTableView const& t, float x)
{
    std::uint32_t const b = float_to_bits(x);
    std::uint32_t const e = (b & Float32Bits::exponent_mask) >> Float32Bits::exponent_shift;
    std::uint32_t const f = (b & (Float32Bits::fraction_mask | Float32Bits::exponent_lsb)) >>
                            Float32Bits::fraction_shift;
    return bits_to_float(t.exponent[e] | t.fraction[f]);
}

//! Table seed plus one Newton-Raphson step, all in float.
MCDOSE_FORCEINLINE_FUNCTION float inv_sqrt_table(InvSqrtTableView const& t, float x)
{
    float const y = inv_sqrt_table_seed(t, x);
    return y * (1.5f - 0.5f * x * y * y);
}
} // namespace mcdose::crosscheck
