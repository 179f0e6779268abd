//! \file core/GridGeometry.cc
#include "core/GridGeometry.hh"

#include <cmath>

#include "core/Assert.hh"

namespace mcdose
{
void validate_geometry(GridGeometry const& g, char const* what)
{
    char const axis[] = "xyz";
    for (int c = 0; c < 3; ++c)
    {
        MCDOSE_VALIDATE(g.dims[c] > 0, << what << ": dimension " << axis[c] << " is " << g.dims[c]
                                       << "; give at least one voxel along each axis");
        MCDOSE_VALIDATE(std::isfinite(g.spacing_cm[c]) && g.spacing_cm[c] > 0,
                        << what << ": spacing " << axis[c] << " is " << g.spacing_cm[c]
                        << " cm; voxel sizes must be positive and finite");
        MCDOSE_VALIDATE(std::isfinite(g.origin_cm[c]),
                        << what << ": origin " << axis[c] << " is not finite");
    }
    MCDOSE_VALIDATE(
        g.num_voxels() / size_type(g.dims[0]) / size_type(g.dims[1]) == size_type(g.dims[2]),
        << what << ": grid too large");
    // Orthonormal direction: D^T D = I within single-precision round-off of
    // the image headers it usually comes from.
    for (int a = 0; a < 3; ++a)
    {
        for (int b = 0; b < 3; ++b)
        {
            double dot = 0;
            for (int r = 0; r < 3; ++r)
                dot += g.direction[3 * r + a] * g.direction[3 * r + b];
            MCDOSE_VALIDATE(std::fabs(dot - (a == b ? 1.0 : 0.0)) < 1e-5,
                            << what << ": direction matrix is not orthonormal (columns " << a
                            << " and " << b << " have dot product " << dot
                            << "); sheared or scaled image orientations are not supported");
        }
    }
}
} // namespace mcdose
