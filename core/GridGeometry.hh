//! \file core/GridGeometry.hh
//! Geometry of a rectilinear voxel grid: dimensions, spacing, origin and
//! orientation, with index helpers usable on host and device.
//!
//! Conventions (those of ITK, DICOM and MetaImage, so that outputs overlay on
//! the input CT in 3D Slicer):
//! - voxel (i, j, k) is stored at linear index i + nx * (j + ny * k)
//!   (i fastest);
//! - `origin_cm` is the physical position of the *centre* of voxel (0, 0, 0);
//! - `direction` is a row-major 3x3 orthonormal matrix whose column c is the
//!   physical direction of index axis c, so the centre of voxel (i, j, k) is
//!   origin + D * (i sx, j sy, k sz).
//! Lengths are in cm (images on disk are in mm; ImageIO converts).
//!
//! The *local frame* is the grid's own frame: axes along the index axes, the
//! grid's outer corner at 0, so the grid fills [0, n_c s_c) on axis c. The
//! transport can track in the local frame and avoid a rotation per step.
#pragma once

#include <cstdint>

#include "core/Array3.hh"
#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Returned by GridGeometry::find_voxel for a point outside the grid.
inline constexpr size_type outside_grid = static_cast<size_type>(-1);

//! Grid geometry (trivially copyable; the same object on host and device).
struct GridGeometry
{
    Int3 dims{{0, 0, 0}};                           //!< voxels along i, j, k
    Real3 spacing_cm{{0, 0, 0}};                    //!< voxel size along i, j, k [cm]
    Real3 origin_cm{{0, 0, 0}};                     //!< centre of voxel (0,0,0) [cm]
    double direction[9]{1, 0, 0, 0, 1, 0, 0, 0, 1}; //!< row-major, columns = index axes

    //! Number of voxels.
    MCDOSE_FORCEINLINE_FUNCTION size_type num_voxels() const
    {
        return size_type(dims[0]) * size_type(dims[1]) * size_type(dims[2]);
    }

    //! Volume of one voxel [cm^3].
    MCDOSE_FORCEINLINE_FUNCTION double voxel_volume_cm3() const
    {
        return spacing_cm[0] * spacing_cm[1] * spacing_cm[2];
    }

    //! Linear index of voxel (i, j, k) (i fastest).
    MCDOSE_FORCEINLINE_FUNCTION size_type linear_index(Int3 const& ijk) const
    {
        MCDOSE_EXPECT(ijk[0] >= 0 && ijk[0] < dims[0] && ijk[1] >= 0 && ijk[1] < dims[1] &&
                      ijk[2] >= 0 && ijk[2] < dims[2]);
        return size_type(ijk[0]) +
               size_type(dims[0]) * (size_type(ijk[1]) + size_type(dims[1]) * size_type(ijk[2]));
    }

    //! Voxel indices (i, j, k) of a linear index.
    MCDOSE_FORCEINLINE_FUNCTION Int3 ijk(size_type linear) const
    {
        MCDOSE_EXPECT(linear < num_voxels());
        size_type const nx = size_type(dims[0]);
        size_type const nxy = nx * size_type(dims[1]);
        return Int3{{int(linear % nx), int((linear % nxy) / nx), int(linear / nxy)}};
    }

    //! Local-frame coordinates [cm] of a physical point [cm].
    MCDOSE_FORCEINLINE_FUNCTION Real3 to_local(Real3 const& physical_cm) const
    {
        Real3 const d{{physical_cm[0] - origin_cm[0], physical_cm[1] - origin_cm[1],
                       physical_cm[2] - origin_cm[2]}};
        Real3 local;
        for (int c = 0; c < 3; ++c)
        {
            // D is orthonormal, so D^-1 = D^T: column c dotted with d.
            local[c] = direction[c] * d[0] + direction[3 + c] * d[1] + direction[6 + c] * d[2] +
                       0.5 * spacing_cm[c];
        }
        return local;
    }

    //! Physical point [cm] of local-frame coordinates [cm].
    MCDOSE_FORCEINLINE_FUNCTION Real3 to_physical(Real3 const& local_cm) const
    {
        Real3 const a{{local_cm[0] - 0.5 * spacing_cm[0], local_cm[1] - 0.5 * spacing_cm[1],
                       local_cm[2] - 0.5 * spacing_cm[2]}};
        Real3 p;
        for (int r = 0; r < 3; ++r)
        {
            p[r] = origin_cm[r] + direction[3 * r] * a[0] + direction[3 * r + 1] * a[1] +
                   direction[3 * r + 2] * a[2];
        }
        return p;
    }

    //! Physical direction [-] of a local-frame direction (a rotation only).
    MCDOSE_FORCEINLINE_FUNCTION Real3 direction_to_physical(Real3 const& local_dir) const
    {
        Real3 p;
        for (int r = 0; r < 3; ++r)
        {
            p[r] = direction[3 * r] * local_dir[0] + direction[3 * r + 1] * local_dir[1] +
                   direction[3 * r + 2] * local_dir[2];
        }
        return p;
    }

    //! Local-frame direction [-] of a physical direction.
    MCDOSE_FORCEINLINE_FUNCTION Real3 direction_to_local(Real3 const& physical_dir) const
    {
        Real3 l;
        for (int c = 0; c < 3; ++c)
        {
            l[c] = direction[c] * physical_dir[0] + direction[3 + c] * physical_dir[1] +
                   direction[6 + c] * physical_dir[2];
        }
        return l;
    }

    //! Physical centre [cm] of voxel (i, j, k).
    MCDOSE_FORCEINLINE_FUNCTION Real3 voxel_centre_cm(Int3 const& ijk) const
    {
        return to_physical(Real3{{(ijk[0] + 0.5) * spacing_cm[0], (ijk[1] + 0.5) * spacing_cm[1],
                                  (ijk[2] + 0.5) * spacing_cm[2]}});
    }

    //! Voxel holding a local-frame point, or false when outside. The grid is
    //! half-open: [0, n s) on each axis (a point on the upper face is outside).
    MCDOSE_FORCEINLINE_FUNCTION bool find_local(Real3 const& local_cm, Int3* ijk) const
    {
        for (int c = 0; c < 3; ++c)
        {
            // Compare before converting: a huge or NaN coordinate must not overflow int.
            double const u = local_cm[c] / spacing_cm[c];
            if (!(u >= 0 && u < double(dims[c])))
                return false;
            int idx = int(u);
            (*ijk)[c] = idx < dims[c] ? idx : dims[c] - 1; // rounding of u just below n
        }
        return true;
    }

    //! Linear index of the voxel holding a physical point [cm], or outside_grid.
    MCDOSE_FORCEINLINE_FUNCTION size_type find_voxel(Real3 const& physical_cm) const
    {
        Int3 ijk;
        if (!this->find_local(this->to_local(physical_cm), &ijk))
            return outside_grid;
        return this->linear_index(ijk);
    }
};

//! Geometry with identity orientation (convenience for shape phantoms and tests).
inline GridGeometry make_axis_aligned_geometry(Int3 dims, Real3 spacing_cm, Real3 origin_cm)
{
    GridGeometry g;
    g.dims = dims;
    g.spacing_cm = spacing_cm;
    g.origin_cm = origin_cm;
    return g;
}

//! Check that a geometry is usable (positive dimensions and spacing, finite
//! origin, orthonormal direction); throws RuntimeError naming `what` otherwise.
void validate_geometry(GridGeometry const& g, char const* what);
} // namespace mcdose
