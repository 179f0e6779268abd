//! \file transport/LogGrid.hh
//! Uniform grid in ln(E) for O(1) table lookups in the transport loop (no
//! binary search, one log per lookup). Tables on it are interpolated
//! linearly in ln(E); with the default 400 points per decade
//! (Delta ln E = 5.8e-3) the interpolation error of a smooth coefficient
//! such as mu ~ E^-3 is (Delta ln E)^2 / 8 * 9 ~ 4e-5 relative, and an
//! absorption edge is smeared over one 0.58 % wide bin.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/Assert.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"

namespace mcdose
{
template <class Real>
struct LogGridView
{
    Real ln_emin{0};   //!< ln(E_0 / MeV)
    Real inv_delta{0}; //!< 1 / Delta ln E
    unsigned size{0};  //!< number of grid points (>= 2)

    //! Bin i and fraction f in [0, 1] of energy E [MeV] (clamped at the ends).
    MCDOSE_FORCEINLINE_FUNCTION void find(Real energy_MeV, unsigned& i, Real& f) const
    {
        MCDOSE_EXPECT(size >= 2 && energy_MeV > 0);
        Real const u = (fast_log(energy_MeV) - ln_emin) * inv_delta;
        if (!(u > 0))
        {
            i = 0;
            f = 0;
        }
        else if (u >= Real(size - 1))
        {
            i = size - 2;
            f = 1;
        }
        else
        {
            i = static_cast<unsigned>(u); // < size - 1, since u < size - 1
            f = u - Real(i);
        }
    }
};

//! The grid E_k = exp(ln_emin + k delta), k < size, in precision Real.
template <class Real>
LogGridView<Real> make_log_grid(double ln_emin, double delta, std::size_t size)
{
    LogGridView<Real> g;
    g.ln_emin = Real(ln_emin);
    g.inv_delta = Real(1 / delta);
    g.size = static_cast<unsigned>(size);
    return g;
}

//! Linear interpolation of `values[i]`, `values[i + 1]` (strided by `stride`).
template <class Real>
MCDOSE_FORCEINLINE_FUNCTION Real lerp_table(Real const* values, unsigned i, Real f,
                                            unsigned stride = 1)
{
    Real const a = values[i * stride];
    Real const b = values[(i + 1) * stride];
    return a + f * (b - a);
}
} // namespace mcdose
