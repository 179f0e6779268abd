//! \file transport/geometry/VoxelNavigator.hh
//! Exact ray-voxel traversal of a regular grid (Amanatides & Woo, "A fast
//! voxel traversal algorithm for ray tracing", Eurographics 1987; the path
//! lengths are those of Siddon, Med. Phys. 12 (1985) 252).
//!
//! Robustness rules (why the loop always terminates and never skips a voxel):
//! - the current voxel is a *logical* index (`ijk`) updated only by +-1 on the
//!   axis whose plane is crossed, never recomputed from the position; hence
//!   consecutive voxels are face neighbours, and each axis index moves
//!   monotonically along a straight ray, so a ray crosses at most
//!   nx + ny + nz planes before it leaves;
//! - distances to planes are clamped at 0, so a position that rounding put
//!   slightly past a plane gives a zero-length step in the old voxel instead
//!   of a negative one;
//! - after a crossing the position is snapped onto the crossed plane, so
//!   rounding does not drift along that axis;
//! - the grid is the closed box for entry (a ray along a face is inside), and
//!   a ray whose chord has zero length (touching an edge or a corner) misses.
//! Lengths are in cm; directions are unit vectors.
#pragma once

#include <limits>

#include "core/Assert.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/VectorMath.hh"
#include "transport/geometry/VoxelGeometryView.hh"

namespace mcdose
{
//! Position, direction and current voxel of a track on the grid.
template <class Real>
struct VoxelTrackState
{
    Array3<Real> position_cm{};
    Array3<Real> direction{};
    Array3<int> ijk{{-1, -1, -1}}; //!< current voxel; meaningful only when inside
    bool inside{false};
};

//! Intersection of a ray with the grid's bounding box.
template <class Real>
struct GridIntersection
{
    bool hit{false};    //!< chord of positive length ahead of the start point
    Real enter_cm{0};   //!< distance to the entry point (<= 0: the start is inside)
    Real exit_cm{0};    //!< distance to the exit point
    int enter_axis{-1}; //!< axis of the entry face (-1 when starting inside)
};

//! Distance to the next voxel boundary along the direction, and its axis.
template <class Real>
struct VoxelBoundary
{
    Real distance_cm{0};
    int axis{-1};
};

//! Stateless navigator: all track data lives in VoxelTrackState.
template <class Real>
class VoxelNavigator
{
  public:
    MCDOSE_FUNCTION explicit VoxelNavigator(VoxelGeometryView<Real> const& grid) : grid_(grid) {}

    //! Slab intersection of the ray with the closed bounding box.
    MCDOSE_FUNCTION GridIntersection<Real> intersect_grid(Array3<Real> const& pos,
                                                          Array3<Real> const& dir) const
    {
        constexpr Real inf = std::numeric_limits<Real>::infinity();
        GridIntersection<Real> result;
        Real t_enter = -inf;
        Real t_exit = inf;
        for (int a = 0; a < 3; ++a)
        {
            Real const lo = grid_.plane_cm(a, 0);
            Real const hi = grid_.plane_cm(a, grid_.dims[a]);
            if (dir[a] == 0)
            {
                // Parallel to the faces of this axis: in the slab or never.
                if (!(pos[a] >= lo && pos[a] <= hi))
                    return result;
                continue;
            }
            Real const inv = Real(1) / dir[a];
            Real t_near = (lo - pos[a]) * inv;
            Real t_far = (hi - pos[a]) * inv;
            if (t_near > t_far)
            {
                Real const tmp = t_near;
                t_near = t_far;
                t_far = tmp;
            }
            if (t_near > t_enter)
            {
                t_enter = t_near;
                result.enter_axis = a;
            }
            t_exit = t_far < t_exit ? t_far : t_exit;
        }
        result.enter_cm = t_enter;
        result.exit_cm = t_exit;
        result.hit = t_exit > (t_enter > 0 ? t_enter : Real(0));
        if (t_enter <= 0)
            result.enter_axis = -1;
        return result;
    }

    //! Place a track on the grid: if it starts outside, move it to the entry
    //! point (on the entry face). Returns the distance moved outside the grid
    //! [cm] (0 when it starts inside); `state.inside` is false if it misses.
    MCDOSE_FUNCTION Real initialize(VoxelTrackState<Real>& state) const
    {
        auto const x = this->intersect_grid(state.position_cm, state.direction);
        state.inside = x.hit;
        if (!x.hit)
            return 0;
        Real moved = 0;
        if (x.enter_axis >= 0)
        {
            moved = x.enter_cm;
            state.position_cm = axpy(moved, state.direction, state.position_cm);
        }
        for (int a = 0; a < 3; ++a)
        {
            if (a == x.enter_axis)
            {
                bool const up = state.direction[a] > 0;
                state.position_cm[a] = grid_.plane_cm(a, up ? 0 : grid_.dims[a]);
                state.ijk[a] = up ? 0 : grid_.dims[a] - 1;
            }
            else
            {
                state.ijk[a] = this->locate(a, state.position_cm[a], state.direction[a]);
            }
        }
        return moved;
    }

    //! Distance to the next plane crossed from the current voxel.
    MCDOSE_FUNCTION VoxelBoundary<Real> find_next_boundary(VoxelTrackState<Real> const& state) const
    {
        MCDOSE_EXPECT(state.inside);
        VoxelBoundary<Real> result;
        result.distance_cm = std::numeric_limits<Real>::infinity();
        for (int a = 0; a < 3; ++a)
        {
            Real const d = state.direction[a];
            if (d == 0)
                continue;
            Real const plane = grid_.plane_cm(a, state.ijk[a] + (d > 0 ? 1 : 0));
            // Fast division in float device code (core/FastMath.hh): 2 ulp here
            // is far below the float position's own rounding, and a point
            // left a rounding beyond the plane crosses at distance 0 next.
            Real t = fast_div(plane - state.position_cm[a], d);
            t = t > 0 ? t : Real(0);
            if (t < result.distance_cm)
            {
                result.distance_cm = t;
                result.axis = a;
            }
        }
        MCDOSE_ENSURE(result.axis >= 0); // direction must not be the zero vector
        return result;
    }

    //! Move inside the current voxel by `step_cm` (< the boundary distance).
    MCDOSE_FUNCTION void move_internal(VoxelTrackState<Real>& state, Real step_cm) const
    {
        MCDOSE_EXPECT(state.inside && step_cm >= 0);
        state.position_cm = axpy(step_cm, state.direction, state.position_cm);
    }

    //! Move onto the boundary and into the neighbouring voxel. Returns false
    //! (and sets `state.inside` false) when that leaves the grid.
    MCDOSE_FUNCTION bool cross_boundary(VoxelTrackState<Real>& state,
                                        VoxelBoundary<Real> const& boundary) const
    {
        MCDOSE_EXPECT(state.inside && boundary.axis >= 0 && boundary.axis < 3);
        int const a = boundary.axis;
        bool const up = state.direction[a] > 0;
        state.position_cm = axpy(boundary.distance_cm, state.direction, state.position_cm);
        state.position_cm[a] = grid_.plane_cm(a, state.ijk[a] + (up ? 1 : 0));
        state.ijk[a] += up ? 1 : -1;
        state.inside = state.ijk[a] >= 0 && state.ijk[a] < grid_.dims[a];
        return state.inside;
    }

    //! Linear index of the current voxel.
    MCDOSE_FORCEINLINE_FUNCTION size_type voxel(VoxelTrackState<Real> const& state) const
    {
        MCDOSE_EXPECT(state.inside);
        return grid_.linear_index(state.ijk);
    }

    //! Index along `axis` of the voxel holding coordinate `x` [cm], clamped
    //! to the grid; on a plane, the voxel the direction points into.
    MCDOSE_FUNCTION int locate(int axis, Real x, Real dir) const
    {
        Real const u = (x - grid_.corner_cm[axis]) / grid_.spacing_cm[axis];
        int const n = grid_.dims[axis];
        if (!(u > 0))
            return 0; // also NaN-safe
        if (!(u < Real(n)))
            return n - 1;
        int idx = static_cast<int>(u);
        if (idx >= n)
            idx = n - 1;
        if (dir < 0 && idx > 0 && Real(idx) == u)
            --idx;
        return idx;
    }

    MCDOSE_FORCEINLINE_FUNCTION VoxelGeometryView<Real> const& grid() const { return grid_; }

  private:
    VoxelGeometryView<Real> grid_;
};
} // namespace mcdose
