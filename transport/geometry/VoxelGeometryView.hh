//! \file transport/geometry/VoxelGeometryView.hh
//! Minimal description of a regular voxel grid for particle tracking.
//!
//! The grid is axis-aligned in the tracking frame: voxel (i, j, k) fills
//!   [corner + i s_x, corner + (i+1) s_x) x [.. j ..) x [.. k ..)   [cm].
//! `corner_cm` is the *outer corner* of voxel (0, 0, 0), not its centre (the
//! ITK/DICOM origin that core/GridGeometry.hh stores). In the phantom's
//! local frame (core/GridGeometry.hh) the corner is (0, 0, 0); build the
//! view with `make_voxel_geometry(dims, spacing, {0, 0, 0})` there.
#pragma once

#include <cmath>

#include "core/Array3.hh"
#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Voxel grid geometry in the tracking frame (trivially copyable).
template <class Real>
struct VoxelGeometryView
{
    Array3<int> dims{};        //!< voxels along x, y, z
    Array3<Real> spacing_cm{}; //!< voxel size along x, y, z [cm]
    Array3<Real> corner_cm{};  //!< outer (low) corner of voxel (0, 0, 0) [cm]

    //! Position [cm] of the plane between voxels index-1 and index on `axis`
    //! (plane 0 is the grid's low face, plane dims[axis] its high face). Every
    //! caller computes planes with this one expression so that a position
    //! snapped onto a plane compares equal to it later.
    MCDOSE_FORCEINLINE_FUNCTION Real plane_cm(int axis, int index) const
    {
        return corner_cm[axis] + Real(index) * spacing_cm[axis];
    }

    //! Number of voxels.
    MCDOSE_FORCEINLINE_FUNCTION size_type num_voxels() const
    {
        return size_type(dims[0]) * size_type(dims[1]) * size_type(dims[2]);
    }

    //! Linear index i + nx (j + ny k) (the phantoms' order, i fastest).
    MCDOSE_FORCEINLINE_FUNCTION size_type linear_index(Array3<int> const& ijk) const
    {
        MCDOSE_EXPECT(ijk[0] >= 0 && ijk[0] < dims[0] && ijk[1] >= 0 && ijk[1] < dims[1] &&
                      ijk[2] >= 0 && ijk[2] < dims[2]);
        return size_type(ijk[0]) +
               size_type(dims[0]) * (size_type(ijk[1]) + size_type(dims[1]) * size_type(ijk[2]));
    }
};

//! Build a view, validating the user-facing values (throws RuntimeError).
template <class Real>
VoxelGeometryView<Real> make_voxel_geometry(Array3<int> dims, Array3<double> spacing_cm,
                                            Array3<double> corner_cm)
{
    VoxelGeometryView<Real> g;
    char const* const axis_name[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a)
    {
        MCDOSE_VALIDATE(dims[a] > 0, << "voxel grid 'dims' along " << axis_name[a]
                                     << " must be positive (got " << dims[a] << ")");
        MCDOSE_VALIDATE(std::isfinite(spacing_cm[a]) && spacing_cm[a] > 0,
                        << "voxel grid 'spacing_cm' along " << axis_name[a]
                        << " must be a positive length in cm (got " << spacing_cm[a] << ")");
        MCDOSE_VALIDATE(std::isfinite(corner_cm[a]), << "voxel grid corner along " << axis_name[a]
                                                     << " must be finite (got " << corner_cm[a]
                                                     << ")");
        g.dims[a] = dims[a];
        g.spacing_cm[a] = static_cast<Real>(spacing_cm[a]);
        g.corner_cm[a] = static_cast<Real>(corner_cm[a]);
    }
    return g;
}
} // namespace mcdose
