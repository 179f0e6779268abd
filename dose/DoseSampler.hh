//! \file dose/DoseSampler.hh
//! Trilinear interpolation of a dose grid at any point, in the grid's
//! continuous index space (voxel centres at whole numbers), for the
//! resampling and the gamma search of dose/DoseComparison.hh.
#pragma once

#include <algorithm>
#include <vector>

#include "core/GridGeometry.hh"

namespace mcdose
{
//! Samples values on `geometry` (i fastest). A point is inside when it lies
//! in the grid's extent (voxel faces); within half a voxel of the faces the
//! value of the outermost voxel centres is taken (no extrapolation).
class DoseSampler
{
  public:
    DoseSampler(GridGeometry const& geometry, std::vector<double> const& values)
        : g_(geometry), values_(values.data())
    {
    }

    GridGeometry const& geometry() const { return g_; }

    //! Continuous index of a physical point [cm].
    Real3 index_of(Real3 const& physical_cm) const
    {
        Real3 const local = g_.to_local(physical_cm);
        return Real3{{local[0] / g_.spacing_cm[0] - 0.5, local[1] / g_.spacing_cm[1] - 0.5,
                      local[2] / g_.spacing_cm[2] - 0.5}};
    }

    //! Continuous-index displacement of a physical displacement [cm].
    Real3 index_delta(Real3 const& physical_cm) const
    {
        Real3 const d = g_.direction_to_local(physical_cm);
        return Real3{{d[0] / g_.spacing_cm[0], d[1] / g_.spacing_cm[1], d[2] / g_.spacing_cm[2]}};
    }

    //! Whether continuous index `u` lies in the grid's extent.
    bool inside(Real3 const& u) const
    {
        for (int c = 0; c < 3; ++c)
        {
            if (!(u[c] >= -0.5 && u[c] <= g_.dims[c] - 0.5))
                return false;
        }
        return true;
    }

    //! Trilinear value at continuous index `u`; false (and *value untouched) outside.
    bool sample(Real3 const& u, double* value) const
    {
        if (!this->inside(u))
            return false;
        size_type i0[3], i1[3];
        double f[3];
        for (int c = 0; c < 3; ++c)
        {
            int const n = g_.dims[c];
            double const x = std::min(std::max(u[c], 0.0), double(n - 1));
            int const lo = std::min(int(x), std::max(n - 2, 0));
            i0[c] = size_type(lo);
            i1[c] = size_type(std::min(lo + 1, n - 1));
            f[c] = x - lo;
        }
        size_type const nx = size_type(g_.dims[0]);
        size_type const nxy = nx * size_type(g_.dims[1]);
        auto const at = [&](size_type i, size_type j, size_type k)
        { return values_[i + nx * j + nxy * k]; };
        double const c00 = at(i0[0], i0[1], i0[2]) * (1 - f[0]) + at(i1[0], i0[1], i0[2]) * f[0];
        double const c10 = at(i0[0], i1[1], i0[2]) * (1 - f[0]) + at(i1[0], i1[1], i0[2]) * f[0];
        double const c01 = at(i0[0], i0[1], i1[2]) * (1 - f[0]) + at(i1[0], i0[1], i1[2]) * f[0];
        double const c11 = at(i0[0], i1[1], i1[2]) * (1 - f[0]) + at(i1[0], i1[1], i1[2]) * f[0];
        double const c0 = c00 * (1 - f[1]) + c10 * f[1];
        double const c1 = c01 * (1 - f[1]) + c11 * f[1];
        *value = c0 * (1 - f[2]) + c1 * f[2];
        return true;
    }

  private:
    GridGeometry g_;
    double const* values_;
};
} // namespace mcdose
