//! \file sources/PlanView.hh
//! A treatment plan delivered continuously (sources/PlanSource.hh builds it): each history
//! draws a segment (the delivery between two control points of a beam) with probability
//! proportional to its monitor units times the solid angle of its jaw opening, then a point
//! of the segment uniform in monitor units, at which the gantry, collimator, jaws and leaves
//! are interpolated linearly (position-probability sampling: Liu, Verhaegen and Dong, Phys.
//! Med. Biol. 46 (2001) 2283; Heath and Seuntjens, Phys. Med. Biol. 48 (2003) 4045). The
//! particle leaves the focal spot towards a point of the jaw opening (sources/BeamView.hh)
//! and carries the transmission of the leaves it crosses (MlcView) and the ratio of the jaw
//! opening's solid angle to the segment's mean, so that every segment's fluence per monitor
//! unit is that of the same isotropic focal spot. Lengths in cm.
#pragma once

#include <cmath>

#include "core/Array3.hh"
#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/Macros.hh"
#include "core/Particle.hh"
#include "core/Span.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "sources/BeamView.hh"

namespace mcdose
{
//! The solid angle [sr] that the rectangle [x0, x1] x [y0, y1] in a plane at distance d
//! subtends at a point whose foot on the plane is the origin: with
//! F(x, y) = atan(x y / (d sqrt(d^2 + x^2 + y^2))),
//! Omega = F(x1, y1) - F(x0, y1) - F(x1, y0) + F(x0, y0).
template <class Real>
MCDOSE_FUNCTION Real rectangle_solid_angle(Real x0, Real x1, Real y0, Real y1, Real d)
{
    auto const f = [d](Real x, Real y)
    { return std::atan(x * y / (d * std::sqrt(d * d + x * x + y * y))); };
    return f(x1, y1) - f(x0, y1) - f(x1, y0) + f(x0, y0);
}

//! An interval [lo, hi] (empty when lo >= hi).
template <class Real>
struct Interval
{
    Real lo, hi;
    MCDOSE_FUNCTION Real length() const { return hi > lo ? hi - lo : Real(0); }
    MCDOSE_FUNCTION Interval meet(Interval o) const
    {
        return {lo > o.lo ? lo : o.lo, hi < o.hi ? hi : o.hi};
    }
};

//! The leaves of a multileaf collimator, as rays from the focal spot cross them. Positions
//! are given at the isocentre plane ("along" the leaf motion, "across" it). A leaf's sides
//! are focused on the focal spot, so a ray meets the leaf pair whose projected boundaries
//! hold its `across` coordinate; where it passes within `tg_half_cm` of a boundary between
//! two pairs, it crosses the tongue of one and the groove of the other, each over part of
//! the height, scaled so that two closed leaves transmit the interleaf transmission. A
//! leaf's end is a circular arc of radius `radius_cm` centred at mid-height, placed so that
//! the ray through its nominal position grazes the arc (the light-field edge). The material
//! a ray crosses is found exactly (line against slab and disc); its transmission is
//! exp(-mu L), mu taken from the measured leaf transmission through the full height.
template <class Real>
struct MlcView
{
    int pairs{0};                   //!< 0: no MLC
    bool along_y{false};            //!< MLCY: the leaves move along Y_b
    Span<Real const> boundaries_cm; //!< pairs + 1 projected boundaries, increasing
    Real sad_cm{100};
    Real half_height_cm{0};
    Real centre_cm{0};   //!< focal spot to mid-height
    Real radius_cm{0};   //!< leaf end
    Real tg_half_cm{0};  //!< half the tongue-and-groove width at the isocentre
    Real mu_per_cm{0};   //!< -ln(leaf transmission) / leaf height
    Real tg_fraction{1}; //!< ln(interleaf transmission) / ln(leaf transmission)

    //! Length along the beam axis (cm of height) that the ray x = m z crosses in a leaf
    //! whose nominal position at the isocentre is `p`, its body on the side x > tip.
    MCDOSE_FUNCTION Real leaf_height_crossed(Real m, Real p) const
    {
        Real const k = p / sad_cm;
        // Arc centre: the ray through p grazes the arc on its open side.
        Real const xc = k * centre_cm + radius_cm * std::sqrt(1 + k * k);
        Real const d0 = m * centre_cm - xc; // ray minus arc centre at mid-height
        Interval<Real> const slab{-half_height_cm, half_height_cm};
        // The body: d0 + m s >= 0, s the height from mid-height.
        Interval<Real> body{-Real(1e30), Real(1e30)};
        if (m > 0)
            body.lo = -d0 / m;
        else if (m < 0)
            body.hi = -d0 / m;
        else if (d0 < 0)
            body = {0, 0};
        // The disc: (d0 + m s)^2 + s^2 <= R^2.
        Real const a = 1 + m * m, b = d0 * m, c = d0 * d0 - radius_cm * radius_cm;
        Real const disc = b * b - a * c;
        Interval<Real> round{0, 0};
        if (disc > 0)
        {
            Real const r = std::sqrt(disc);
            round = {(-b - r) / a, (-b + r) / a};
        }
        Interval<Real> const sb = slab.meet(body), sr = slab.meet(round);
        return sb.length() + sr.length() - sb.meet(sr).length();
    }

    //! Height crossed in leaf pair `i` with banks at `b1` < `b2` by the ray through `along`.
    MCDOSE_FUNCTION Real pair_height(Real along, Real b1, Real b2) const
    {
        Real const m = along / sad_cm;
        return this->leaf_height_crossed(m, b2) + this->leaf_height_crossed(-m, -b1);
    }

    //! Transmission of the ray through (x, y) at the isocentre plane; `leaves0` and `leaves1`
    //! the positions (2 pairs values, bank 1 first) at the segment's control points, mixed
    //! as (1 - t) leaves0 + t leaves1.
    MCDOSE_FUNCTION Real transmission(Real x, Real y, Real const* leaves0, Real const* leaves1,
                                      Real t) const
    {
        if (pairs == 0)
            return 1;
        Real const along = along_y ? y : x, across = along_y ? x : y;
        if (!(across >= boundaries_cm[0] && across < boundaries_cm[pairs]))
            return 1; // beside the MLC: the jaws collimate
        int lo = 0, hi = pairs;
        while (hi - lo > 1)
        {
            int const mid = (lo + hi) / 2;
            (across < boundaries_cm[mid] ? hi : lo) = mid;
        }
        auto position = [&](int j) { return (1 - t) * leaves0[j] + t * leaves1[j]; };
        auto height = [&](int i)
        { return this->pair_height(along, position(i), position(pairs + i)); };
        Real crossed = 0;
        int neighbour = -1;
        if (lo > 0 && across - boundaries_cm[lo] < tg_half_cm)
            neighbour = lo - 1;
        else if (lo + 1 < pairs && boundaries_cm[lo + 1] - across < tg_half_cm)
            neighbour = lo + 1;
        if (neighbour < 0)
            crossed = height(lo);
        else
            crossed = tg_fraction * (height(lo) + height(neighbour)) / 2;
        if (crossed <= 0)
            return 1;
        // Along the ray, a height dz is crossed over dz / cos(theta).
        Real const stretch = std::sqrt(1 + (x * x + y * y) / (sad_cm * sad_cm));
        return std::exp(-mu_per_cm * crossed * stretch);
    }
};

//! The delivery of a plan's beams, sampled continuously.
template <class Real>
struct PlanView
{
    //! Per segment (control points k and k + 1 of one beam): the beam and k (global index).
    Span<int const> segment_beam;
    Span<int const> segment_point;
    Span<Real const> segment_omega; //!< the segment's mean jaw solid angle [sr]
    Span<Real const> keep;          //!< alias table over the segments
    Span<int const> alias;
    //! Per control point: gantry and collimator [deg, unwrapped so that the linear mix
    //! turns the way the plan does], jaws x1, x2, y1, y2 [cm at the isocentre], then the
    //! leaf positions (2 pairs) [cm].
    Span<Real const> points;
    int point_stride{0};
    //! Per beam: the matrix from the IEC fixed system to the tracking frame (9, row-major),
    //! the isocentre in the tracking frame (3) and the SAD.
    Span<Real const> beams;
    static constexpr int beam_stride = 13;
    MlcView<Real> mlc;

    //! Position, direction and weight of one particle.
    template <class Engine>
    MCDOSE_FUNCTION void operator()(Engine& rng, Particle<Real>& p) const
    {
        MCDOSE_EXPECT(!keep.empty());
        size_type const s = sample_alias<Real>(rng, keep, alias);
        Real const t = generate_canonical<Real>(rng);
        Real const* a = &points[size_type(segment_point[s]) * point_stride];
        Real const* b = a + point_stride;
        auto mix = [t, a, b](int j) { return (1 - t) * a[j] + t * b[j]; };
        Real const* beam = &beams[size_type(segment_beam[s]) * beam_stride];
        Real const sad = beam[12];
        ApertureView<Real> jaws;
        jaws.one_cell = true;
        for (int c = 0; c < 4; ++c)
            jaws.cell_cm[c] = mix(2 + c);
        Array3<Real> const at = jaws(rng, sad);
        Real const omega = rectangle_solid_angle<Real>(jaws.cell_cm[0], jaws.cell_cm[1],
                                                       jaws.cell_cm[2], jaws.cell_cm[3], sad);
        p.weight = omega / segment_omega[s] * mlc.transmission(at[0], at[1], a + 6, b + 6, t);
        // Gantry system rotated by the collimator: the axes X_b, Y_b, Z_b in the fixed system.
        Real const g = mix(0) * Real(constants::pi / 180), c = mix(1) * Real(constants::pi / 180);
        Real const cg = std::cos(g), sg = std::sin(g), cc = std::cos(c), sc = std::sin(c);
        Array3<Real> const xb{{cg * cc, sc, -sg * cc}}, yb{{-cg * sc, cc, sg * sc}},
            zb{{sg, 0, cg}};
        auto to_local = [beam](Array3<Real> const& v)
        {
            return Array3<Real>{{beam[0] * v[0] + beam[1] * v[1] + beam[2] * v[2],
                                 beam[3] * v[0] + beam[4] * v[1] + beam[5] * v[2],
                                 beam[6] * v[0] + beam[7] * v[1] + beam[8] * v[2]}};
        };
        Array3<Real> const z = to_local(zb);
        p.position_cm = axpy(sad, z, Array3<Real>{{beam[9], beam[10], beam[11]}});
        p.direction = normalized(
            axpy(-sad, z, axpy(at[1], to_local(yb), axpy(at[0], to_local(xb), Array3<Real>{}))));
    }
};
} // namespace mcdose
