//! \file transport/interactors/TableLookup.hh
//! Interval search and linear interpolation on tabulated grids (host and
//! device), shared by the samplers that read tables.
#pragma once

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/Macros.hh"
#include "core/Span.hh"

namespace mcdose
{
//! Index i of the interval [grid[i], grid[i+1]) holding x, for a
//! non-decreasing grid of at least two points; x below the grid gives 0 and
//! x at or above the last point gives size - 2 (bisection, O(log n)).
template <class Real>
MCDOSE_FUNCTION size_type find_interval(Span<Real const> grid, Real x)
{
    MCDOSE_EXPECT(grid.size() >= 2);
    size_type lo = 0;
    size_type hi = grid.size() - 1; // invariant: grid[lo] <= x < grid[hi] (or clamped)
    while (hi - lo > 1)
    {
        size_type const mid = lo + (hi - lo) / 2;
        if (x < grid[mid])
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

//! y(x) interpolated linearly on (grid, values); clamped to the end values
//! outside the grid.
template <class Real>
MCDOSE_FUNCTION Real interpolate_linear(Span<Real const> grid, Span<Real const> values, Real x)
{
    MCDOSE_EXPECT(grid.size() == values.size());
    if (!(x > grid[0]))
        return values[0];
    if (!(x < grid[grid.size() - 1]))
        return values[values.size() - 1];
    size_type const i = find_interval(grid, x);
    Real const f = (x - grid[i]) / (grid[i + 1] - grid[i]);
    return values[i] + f * (values[i + 1] - values[i]);
}

//! h c [MeV Angstrom] = 2 pi hbar c, derived from core/Constants.hh
//! (1 cm = 1e8 Angstrom): converts a photon energy to 1/lambda for the
//! momentum-transfer variable x = sin(theta/2) / lambda of the form-factor
//! and incoherent-scattering tables.
inline constexpr double hc_MeV_A = constants::two_pi * constants::hbar_c_MeV_cm * 1e8;
} // namespace mcdose
