//! \file test/dose/DoseGridFixture.hh
//! The dose data of a test grid from its per-voxel vectors.
#pragma once

#include <vector>

#include "dose/DoseData.hh"

namespace mcdose
{
//! Views of the vectors (which must outlive the result) on grid `g`.
inline DoseGridData dose_grid_data(GridGeometry const& g, std::vector<double> const& edep,
                                   std::vector<double> const& sigma, std::vector<float> const& rho,
                                   std::vector<MaterialIndex> const& mat)
{
    DoseGridData d;
    d.geometry = g;
    d.edep_MeV = make_span(edep);
    d.edep_sigma_MeV = make_span(sigma);
    d.density_g_cm3 = make_span(rho);
    d.material = make_span(mat);
    return d;
}
} // namespace mcdose
