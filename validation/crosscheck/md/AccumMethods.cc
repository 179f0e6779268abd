//! \file validation/crosscheck/md/AccumMethods.cc
#include "AccumMethods.hh"

#include <cctype>
#include <cmath>

#include "core/Assert.hh"

namespace mcdose::crosscheck
{
char const* to_cstring(AccumMethod m)
{
    static char const* const names[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
    return names[int(m)];
}

char const* describe(AccumMethod m)
{
    switch (m)
    {
    case AccumMethod::A:
        return "float force, float sum";
    case AccumMethod::B:
        return "float force, double sum";
    case AccumMethod::C:
        return "float force, Takahashi-Iitaka double-float";
    case AccumMethod::D:
        return "float force, Nitadori 4-flop double-float";
    case AccumMethod::E:
        return "float force, modified Nitadori (LARGE offset)";
    case AccumMethod::F:
        return "float force, Narumi float+int32 (LOWER_SHIFT=7)";
    case AccumMethod::G:
        return "double force, double sum (reference)";
    case AccumMethod::H:
        return "float force, 64-bit fixed point";
    }
    return "?";
}

AccumMethod to_accum_method(std::string const& name)
{
    MCDOSE_VALIDATE(
        name.size() == 1 && std::toupper(name[0]) >= 'A' && std::toupper(name[0]) <= 'H',
        << "unknown accumulation method '" << name << "'; use one of A B C D E F G H");
    return AccumMethod(std::toupper(name[0]) - 'A');
}

AccumConfig make_accum_config(double force_bound)
{
    MCDOSE_VALIDATE(force_bound > 0 && std::isfinite(force_bound),
                    << "force bound must be positive and finite (got " << force_bound
                    << "); the system has no interacting pairs or overlapping particles");
    AccumConfig c;
    c.force_bound = force_bound;
    // E: |x| and |S_k| <= LARGE/2 (OffsetNitadoriSum's precondition).
    int e = 0;
    std::frexp(2 * force_bound, &e); // 2 bound < 2^e
    c.large_offset = std::ldexp(1.0f, e);
    // F: int32 word range 2^(31+B) q; keep a factor of 2 of headroom.
    c.narumi_quantum_exp2 =
        accum::fixed_point_quantum_exp2(force_bound, 31 + NarumiAccum::lower_bits - 1);
    // H: |units| <= 2^52, so that every per-particle result converts to double
    // exactly and the net force can be summed exactly (the zero-offset test);
    // the quantum is still 2^-52 of the bound, far below float rounding.
    c.fixed_quantum_exp2 = accum::fixed_point_quantum_exp2(force_bound, 52);
    return c;
}
} // namespace mcdose::crosscheck
