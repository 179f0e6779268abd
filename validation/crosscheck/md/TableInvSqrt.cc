//! \file validation/crosscheck/md/TableInvSqrt.cc
#include "TableInvSqrt.hh"

#include <cmath>

namespace mcdose::crosscheck
{
InvSqrtTables make_inv_sqrt_tables()
{
    using B = Float32Bits;
    InvSqrtTables t;
    // x = 2^(E-127) m, m in [1, 2). With E odd (E-127 even) x^-1/2 = 2^(-(E-127)/2) m^-1/2,
    // m^-1/2 in (2^-1/2, 1]; with E even x^-1/2 = 2^(-(E-128)/2) (2m)^-1/2, (2m)^-1/2 in
    // (1/2, 2^-1/2]. Both mantissas lie in [1/2, 1), i.e. binary exponent -1, so the
    // result exponent field is 127 - 1 - (E-127)/2 (E odd) or 127 - 1 - (E-128)/2 (E even).
    t.exponent.resize(B::exponent_entries);
    for (int e = 0; e < int(B::exponent_entries); ++e)
    {
        int const result_exp = (e % 2 == 1) ? 126 - (e - 127) / 2 : 126 - (e - 128) / 2;
        bool const in_domain = e >= 1 && e <= 254; // normal floats only
        t.exponent[e] = in_domain ? std::uint32_t(result_exp) << B::exponent_shift : 0u;
    }
    t.fraction.resize(B::fraction_entries);
    double const cell = std::ldexp(1.0, -B::table_fraction_bits);
    for (std::uint32_t k = 0; k < B::fraction_entries; ++k)
    {
        std::uint32_t const j = k & ((1u << B::table_fraction_bits) - 1);
        bool const exponent_odd = (k >> B::table_fraction_bits) & 1u;
        // Mantissa cell [a, b) of the argument whose inverse root is wanted.
        double const scale = exponent_odd ? 1.0 : 2.0;
        double const a = scale * (1 + j * cell), b = scale * (1 + (j + 1) * cell);
        double const fa = 1 / std::sqrt(a), fb = 1 / std::sqrt(b);
        // Minimax constant for relative error over [fb, fa]: v/fb - 1 = 1 - v/fa.
        double const v = 2 / (1 / fa + 1 / fb); // in [1/2, 1)
        // Fraction bits of v as a float with exponent -1: (2v - 1) 2^23, rounded.
        double const frac = std::rint((2 * v - 1) * std::ldexp(1.0, B::exponent_shift));
        t.fraction[k] = std::uint32_t(frac) & B::fraction_mask;
    }
    return t;
}
} // namespace mcdose::crosscheck
