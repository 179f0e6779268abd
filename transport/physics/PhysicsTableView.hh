//! \file transport/physics/PhysicsTableView.hh
//! Device-safe view of per-material tables on energy grids, with log–log interpolation.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"

namespace mcdose
{
//! Where one (material, quantity) table lives in the flat arrays.
struct TableRef
{
    std::uint32_t grid_offset{0};  //!< first energy in `energy_MeV`
    std::uint32_t value_offset{0}; //!< first value in `values`
    std::uint32_t size{0};         //!< number of points
};

//! Trivially copyable view of a set of tables: `refs[material * num_quantities + q]`.
struct PhysicsTableView
{
    Span<double const> energy_MeV; //!< concatenated energy grids (ascending per grid)
    Span<double const> values;     //!< concatenated values
    Span<TableRef const> refs;
    std::uint32_t num_materials{0};
    std::uint32_t num_quantities{0};

    MCDOSE_FORCEINLINE_FUNCTION TableRef ref(std::uint32_t material, std::uint32_t quantity) const
    {
        MCDOSE_EXPECT(material < num_materials && quantity < num_quantities);
        return refs[material * num_quantities + quantity];
    }
};

//! Interpolate table (material, quantity) at energy E [MeV]: log–log between grid
//! points where both values are positive, linear otherwise (zeros below thresholds);
//! clamped to the end values outside the grid. Binary search: O(log n).
MCDOSE_FUNCTION inline double interpolate(PhysicsTableView const& view, std::uint32_t material,
                                          std::uint32_t quantity, double energy_MeV)
{
    TableRef const r = view.ref(material, quantity);
    MCDOSE_EXPECT(r.size >= 2);
    double const* e = view.energy_MeV.data() + r.grid_offset;
    double const* v = view.values.data() + r.value_offset;
    if (energy_MeV <= e[0])
        return v[0];
    if (energy_MeV >= e[r.size - 1])
        return v[r.size - 1];
    std::uint32_t lo = 0;
    std::uint32_t hi = r.size - 1;
    while (hi - lo > 1)
    {
        std::uint32_t const mid = (lo + hi) / 2;
        if (e[mid] <= energy_MeV)
            lo = mid;
        else
            hi = mid;
    }
    double const v0 = v[lo];
    double const v1 = v[hi];
    if (v0 > 0 && v1 > 0)
    {
        double const t = std::log(energy_MeV / e[lo]) / std::log(e[hi] / e[lo]);
        return v0 * std::exp(t * std::log(v1 / v0));
    }
    double const t = (energy_MeV - e[lo]) / (e[hi] - e[lo]);
    return v0 + t * (v1 - v0);
}
} // namespace mcdose
