//! \file transport/interactors/RayleighData.hh
//! Data the Rayleigh sampler (RayleighInteractor.hh) reads: per material, the
//! squared molecular form factor tabulated on a grid of x^2, with its
//! running integral, so that x^2 can be sampled from F^2 exactly for the
//! piecewise-linear F^2 the table represents.
//!
//! Variable: momentum transfer x = sin(theta/2) / lambda [1/Angstrom] (the
//! variable of Hubbell et al., J. Phys. Chem. Ref. Data 4 (1975) 471, and of
//! xraylib's FF_Rayl(Z, q)). For a photon of energy E,
//!   x^2 = (E / hc)^2 (1 - cos theta) / 2,   hc = 12.398 keV Angstrom.
//! Molecular form factor (independent-atom approximation):
//!   F^2(x) = sum_i n_i F(x, Z_i)^2 over the atoms of one "molecule" of the
//! material (n_i atoms of element Z_i; any normalisation of the n_i works,
//! the sampler uses only the shape).
#pragma once

#include <cmath>
#include <vector>

#include "core/Assert.hh"
#include "core/Span.hh"

namespace mcdose
{
//! One material's table (device-ready when the spans point to device memory).
template <class Real>
struct RayleighTableView
{
    //! Grid of x^2 [1/Angstrom^2]: x2[0] = 0, strictly increasing. It should
    //! reach (E_max / hc)^2 for the highest photon energy E_max; beyond the
    //! last point F^2 is taken as 0 (F falls like x^-4 there).
    Span<Real const> x2_per_A2;
    //! F^2 at the grid points [-] (F^2(0) = sum_i n_i Z_i^2), >= 0.
    Span<Real const> f2;
    //! Running integral A_k = int_0^{x2_k} F^2 d(x^2) [1/Angstrom^2] by the
    //! trapezoidal rule (exact for F^2 linear between grid points); A_0 = 0.
    //! Build it with `rayleigh_cumulative` below.
    Span<Real const> cumulative;
};

//! Tables of all materials, indexed by the phantom's material index.
template <class Real>
struct RayleighData
{
    Span<RayleighTableView<Real> const> materials;
};

//! Running integral of F^2 over x^2 (trapezoidal), validating the table.
//! `what` names the material in error messages.
inline std::vector<double> rayleigh_cumulative(std::vector<double> const& x2_per_A2,
                                               std::vector<double> const& f2, char const* what)
{
    MCDOSE_VALIDATE(x2_per_A2.size() >= 2 && x2_per_A2.size() == f2.size(),
                    << "Rayleigh table of '" << what << "': need >= 2 points and as many F^2 ("
                    << f2.size() << ") as x^2 values (" << x2_per_A2.size() << ")");
    MCDOSE_VALIDATE(x2_per_A2[0] == 0, << "Rayleigh table of '" << what
                                       << "': the x^2 grid must start at 0 (got " << x2_per_A2[0]
                                       << ")");
    std::vector<double> cumulative(x2_per_A2.size(), 0.0);
    for (std::size_t k = 0; k < x2_per_A2.size(); ++k)
    {
        MCDOSE_VALIDATE(std::isfinite(f2[k]) && f2[k] >= 0,
                        << "Rayleigh table of '" << what << "': F^2 at point " << k
                        << " must be finite and >= 0 (got " << f2[k] << ")");
        if (k == 0)
            continue;
        MCDOSE_VALIDATE(x2_per_A2[k] > x2_per_A2[k - 1],
                        << "Rayleigh table of '" << what
                        << "': the x^2 grid must increase strictly (point " << k << ")");
        cumulative[k] =
            cumulative[k - 1] + 0.5 * (f2[k] + f2[k - 1]) * (x2_per_A2[k] - x2_per_A2[k - 1]);
    }
    MCDOSE_VALIDATE(cumulative.back() > 0,
                    << "Rayleigh table of '" << what << "': F^2 is zero everywhere");
    return cumulative;
}
} // namespace mcdose
