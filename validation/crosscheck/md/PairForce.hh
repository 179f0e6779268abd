//! \file validation/crosscheck/md/PairForce.hh
//! Lennard-Jones pair force in the r^-2 form used by GRAPE-style codes
//! (Narumi et al. 2008): with d = r_i - r_j,
//!   r^-2 = 1 / |d|^2,  q = (sigma^2 r^-2)^3,  p = 24 eps r^-2 q (2q - 1),  f_ij = p d,
//! i.e. f = 24 eps / r^2 [2 (sigma/r)^12 - (sigma/r)^6] d (reduced units).
//! Exactly antisymmetric in T arithmetic: d_ji = -d_ij exactly, |d|^2 is the same
//! bits, hence f_ji = -f_ij bit for bit (the basis of the zero-offset results).
#pragma once

#include <cmath>

#include "LJSystem.hh"
#include "core/Macros.hh"

namespace mcdose::crosscheck
{
template <class T>
struct Vec3
{
    T x, y, z;
};

MCDOSE_FORCEINLINE_FUNCTION float round_to_integer(float v)
{
    return rintf(v);
}
MCDOSE_FORCEINLINE_FUNCTION double round_to_integer(double v)
{
    return rint(v);
}

//! Minimum-image component (box <= 0: open box). rint is odd, so the image of
//! -d is exactly minus the image of d.
template <class T>
MCDOSE_FORCEINLINE_FUNCTION T minimum_image(T d, T box, T inv_box)
{
    return box > T(0) ? d - box * round_to_integer(d * inv_box) : d;
}

//! Force for the separation (dx, dy, dz) = r_i - r_j and pair parameters
//! sigma^2, 24 eps, in the r^-2 form.
template <class T>
MCDOSE_FORCEINLINE_FUNCTION Vec3<T> lj_force(T dx, T dy, T dz, T sigma2, T eps24)
{
    T const r2inv = T(1) / (dx * dx + dy * dy + dz * dz);
    T const s2 = sigma2 * r2inv;
    T const q = s2 * s2 * s2;
    T const p = eps24 * r2inv * q * (T(2) * q - T(1));
    return {p * dx, p * dy, p * dz};
}

//! Force on i from j in precision T, reading the float inputs of the view.
template <class T>
MCDOSE_FORCEINLINE_FUNCTION Vec3<T> lj_pair_force(LJView const& v, size_type i, size_type j)
{
    T const box = v.box_length > 0 ? T(v.box_length) : T(0);
    T const inv_box = box > T(0) ? T(1) / box : T(0);
    T const dx = minimum_image<T>(T(v.x[i]) - T(v.x[j]), box, inv_box);
    T const dy = minimum_image<T>(T(v.y[i]) - T(v.y[j]), box, inv_box);
    T const dz = minimum_image<T>(T(v.z[i]) - T(v.z[j]), box, inv_box);
    int const pair = v.type[i] * v.num_types + v.type[j];
    return lj_force<T>(dx, dy, dz, T(v.sigma2[pair]), T(v.eps24[pair]));
}
} // namespace mcdose::crosscheck
