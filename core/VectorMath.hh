//! \file core/VectorMath.hh
//! Small vector helpers on Array3<Real> for the transport (host and device):
//! dot product, normalisation and the rotation of a unit direction by a polar
//! and an azimuthal angle (the step every interaction and source needs).
#pragma once

#include <cmath>

#include "core/Array3.hh"
#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"

namespace mcdose
{
template <class Real>
MCDOSE_FORCEINLINE_FUNCTION Real dot(Array3<Real> const& a, Array3<Real> const& b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

template <class Real>
MCDOSE_FORCEINLINE_FUNCTION Array3<Real> cross(Array3<Real> const& a, Array3<Real> const& b)
{
    return {{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}};
}

//! a + s * b
template <class Real>
MCDOSE_FORCEINLINE_FUNCTION Array3<Real> axpy(Real s, Array3<Real> const& b, Array3<Real> const& a)
{
    return {{a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]}};
}

//! Unit vector along `a` (a must be non-zero).
template <class Real>
MCDOSE_FORCEINLINE_FUNCTION Array3<Real> normalized(Array3<Real> const& a)
{
    Real const norm = std::sqrt(dot(a, a));
    MCDOSE_EXPECT(norm > 0);
    Real const inv = Real(1) / norm;
    return {{a[0] * inv, a[1] * inv, a[2] * inv}};
}

//! Direction obtained by turning the unit vector `u` by the polar angle theta
//! (given as cos theta) and the azimuth phi (given as cos phi, sin phi) about
//! `u` itself. This is the classical change of frame used by every MC code
//! (e.g. PENELOPE-2018 manual, Eq. 1.131): with s = sqrt(1 - u_z^2),
//!   u'_x = u_x cos t + sin t (u_x u_z cos p - u_y sin p) / s
//!   u'_y = u_y cos t + sin t (u_y u_z cos p + u_x sin p) / s
//!   u'_z = u_z cos t - s sin t cos p,
//! and, when u is (anti)parallel to z, u' = (sin t cos p, sin t sin p, sign(u_z) cos t).
//! The result is renormalised so that float rounding does not accumulate
//! over many collisions.
template <class Real>
MCDOSE_FUNCTION Array3<Real> rotate(Array3<Real> const& u, Real cos_theta, Real cos_phi,
                                    Real sin_phi)
{
    MCDOSE_EXPECT(cos_theta >= -1 && cos_theta <= 1);
    Real const sin_theta = std::sqrt((1 - cos_theta) * (1 + cos_theta));
    Real const s2 = (1 - u[2]) * (1 + u[2]);
    Array3<Real> r;
    // Below this s^2 the division by s loses more digits than u_x, u_y carry.
    constexpr Real tiny = sizeof(Real) == 4 ? Real(1e-10) : Real(1e-20);
    if (s2 > tiny)
    {
        Real const s = std::sqrt(s2);
        Real const a = sin_theta / s;
        r[0] = u[0] * cos_theta + a * (u[0] * u[2] * cos_phi - u[1] * sin_phi);
        r[1] = u[1] * cos_theta + a * (u[1] * u[2] * cos_phi + u[0] * sin_phi);
        r[2] = u[2] * cos_theta - s * sin_theta * cos_phi;
    }
    else
    {
        Real const sign = u[2] < 0 ? Real(-1) : Real(1);
        r[0] = sin_theta * cos_phi;
        r[1] = sin_theta * sin_phi;
        r[2] = sign * cos_theta;
    }
    return normalized(r);
}

//! Rotation with phi = 2 pi xi for a uniform xi in (0, 1].
template <class Real>
MCDOSE_FORCEINLINE_FUNCTION Array3<Real> rotate_azimuth_fraction(Array3<Real> const& u,
                                                                 Real cos_theta, Real xi)
{
    auto const phi = fast_sincos_turns(xi);
    return rotate(u, cos_theta, phi.c, phi.s);
}
} // namespace mcdose
