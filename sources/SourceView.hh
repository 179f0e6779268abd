//! \file sources/SourceView.hh
//! Primary-particle sampler shared by host and device: position, direction
//! and energy of one source particle, in the tracking (grid-local) frame.
//!
//! Shapes (the field is perpendicular to the central axis `direction`, with
//! axes `axis_u`, `axis_v`, see SourceParams.hh for how they are chosen):
//! - pencil: from `position_cm` along `direction`;
//! - parallel rectangle / circle: positions uniform over the field in the
//!   plane through `position_cm`, all along `direction`;
//! - point rectangle / circle: from `position_cm`, directions isotropic
//!   within the solid angle the field subtends at `field_distance_cm` (a
//!   point source behind a collimator). Circle: cos(theta) uniform on
//!   [cos(alpha), 1], tan(alpha) = R / D. Rectangle: directions isotropic in
//!   the cone circumscribing the field, rejected outside the rectangle
//!   (acceptance = solid angle of the field / that of the cone: the set-up refuses fields
//!   of acceptance below 1 / max_expected_source_draws, and the loop is bounded);
//! - isotropic point: directions uniform over 4 pi;
//! - volume: positions from the emission distribution over the voxels
//!   (EmissionView), directions uniform over 4 pi;
//! - beam: from the focal spot `position_cm` through a point of the field at the isocentre
//!   plane, `field_distance_cm` (the SAD) along `direction`, drawn by ApertureView in the
//!   (axis_u, axis_v) = IEC (X_b, Y_b) frame (sources/BeamGeometry.hh);
//! - phase space: the particle the history index selects (PhaseSpaceView), no
//!   random number drawn;
//! - plan: a treatment plan's beams delivered continuously through their jaws and leaves
//!   (PlanView), each particle weighted by its transmission.
//! Lengths in cm, energies in MeV.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/Particle.hh"
#include "core/Span.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "sources/BeamView.hh"
#include "sources/PhaseSpaceView.hh"
#include "sources/PlanView.hh"
#include "sources/SpectrumView.hh"

namespace mcdose
{
//! Emission geometry.
enum class SourceShape : int
{
    pencil,
    parallel_rectangle,
    parallel_circle,
    point_rectangle,
    point_circle,
    isotropic_point,
    volume,
    beam,
    phase_space,
    plan
};

//! Where a volume source's particles start: an emitting voxel drawn with Walker's alias
//! method over `voxel` (two deviates), then a point uniform within it (three), in the
//! grid's local frame (corner at 0, axes along the index axes).
template <class Real>
struct EmissionView
{
    Span<std::uint32_t const> voxel; //!< emitting voxels (linear index, i fastest)
    Span<Real const> keep;           //!< alias table over `voxel`: keep probability
    Span<int const> alias;           //!< and the other entry of each column
    unsigned nx{0}, ny{0};           //!< grid dimensions along i and j
    Array3<Real> spacing_cm{};

    template <class Engine>
    MCDOSE_FUNCTION Array3<Real> operator()(Engine& rng) const
    {
        MCDOSE_EXPECT(!voxel.empty() && keep.size() == voxel.size());
        std::uint32_t const v = voxel[sample_alias<Real>(rng, keep, alias)];
        unsigned const ijk[3] = {v % nx, (v / nx) % ny, v / (nx * ny)};
        Array3<Real> p;
        for (int c = 0; c < 3; ++c)
            p[c] = (Real(ijk[c]) + generate_canonical<Real>(rng)) * spacing_cm[c];
        return p;
    }
};

//! Source sampler (trivially copyable).
template <class Real>
struct SourceView
{
    ParticleType particle{ParticleType::photon};
    SourceShape shape{SourceShape::pencil};
    Array3<Real> position_cm{}; //!< pencil start, parallel field centre, or point
    Array3<Real> direction{};   //!< central axis (unit)
    Array3<Real> axis_u{};      //!< first field axis (unit, perpendicular to direction)
    Array3<Real> axis_v{};      //!< second field axis = direction x axis_u
    Real half_u_cm{0};          //!< rectangle half-size along axis_u [cm]
    Real half_v_cm{0};          //!< rectangle half-size along axis_v [cm]
    Real radius_cm{0};          //!< circle radius [cm]
    Real field_distance_cm{0};  //!< point sources: where the field is defined; beams: SAD [cm]
    Real cos_cone{1};           //!< point sources: cos of the sampling cone half-angle
    SpectrumView<Real> spectrum;
    EmissionView<Real> emission; //!< volume sources
    ApertureView<Real> aperture; //!< beams: the field at the isocentre plane
    PhaseSpaceView<Real> phase_space;
    PlanView<Real> plan; //!< rt_plan sources: the delivery (position, direction, weight)

    //! The source particle of history `history` (a phase space's particle, with
    //! its weight), else one sampled as below.
    template <class Engine>
    MCDOSE_FUNCTION Particle<Real> operator()(Engine& rng, std::uint64_t history) const
    {
        if (shape == SourceShape::phase_space)
            return phase_space(history);
        return (*this)(rng);
    }

    //! One source particle (weight 1) of a sampled shape.
    template <class Engine>
    MCDOSE_FUNCTION Particle<Real> operator()(Engine& rng) const
    {
        Particle<Real> p;
        p.type = particle;
        p.weight = 1;
        p.position_cm = position_cm;
        p.direction = direction;
        switch (shape)
        {
        case SourceShape::pencil:
            break;
        case SourceShape::parallel_rectangle:
        {
            Real const a = (2 * generate_canonical<Real>(rng) - 1) * half_u_cm;
            Real const b = (2 * generate_canonical<Real>(rng) - 1) * half_v_cm;
            p.position_cm = axpy(b, axis_v, axpy(a, axis_u, position_cm));
            break;
        }
        case SourceShape::parallel_circle:
        {
            Real const r = radius_cm * std::sqrt(generate_canonical<Real>(rng));
            auto const [s, c] = sample_azimuth_sincos<Real>(rng);
            p.position_cm = axpy(r * s, axis_v, axpy(r * c, axis_u, position_cm));
            break;
        }
        case SourceShape::point_circle:
            p.direction = this->cone_direction(rng).direction;
            break;
        case SourceShape::point_rectangle:
        {
            p.direction = this->rectangle_direction(rng);
            break;
        }
        case SourceShape::volume:
        {
            p.position_cm = emission(rng);
            auto const d = sample_isotropic<Real>(rng);
            p.direction = {{d.u, d.v, d.w}};
            break;
        }
        case SourceShape::beam:
        {
            Array3<Real> const at = aperture(rng, field_distance_cm);
            Array3<Real> const to = axpy(at[1], axis_v, axpy(at[0], axis_u, Array3<Real>{}));
            p.direction = normalized(axpy(field_distance_cm, direction, to));
            break;
        }
        case SourceShape::plan:
            plan(rng, p);
            break;
        case SourceShape::isotropic_point:
        {
            auto const d = sample_isotropic<Real>(rng);
            p.direction = {{d.u, d.v, d.w}};
            break;
        }
        case SourceShape::phase_space:
            MCDOSE_ASSERT_UNREACHABLE(); // selected by history: operator()(rng, history)
        }
        p.energy_MeV = spectrum(rng);
        return p;
    }

  private:
    //! point_rectangle: a cone direction that meets the field (bounded: max_source_draws,
    //! then toward a uniform point of the field).
    template <class Engine>
    MCDOSE_FUNCTION Array3<Real> rectangle_direction(Engine& rng) const
    {
        for (int draw = 1; draw < max_source_draws; ++draw)
        {
            auto const c = this->cone_direction(rng);
            // Where the ray meets the field plane, in field coordinates.
            Real const scale = field_distance_cm / c.cos_theta;
            if (std::fabs(scale * dot(c.direction, axis_u)) <= half_u_cm &&
                std::fabs(scale * dot(c.direction, axis_v)) <= half_v_cm)
                return c.direction;
        }
        Real const a = (2 * generate_canonical<Real>(rng) - 1) * half_u_cm;
        Real const b = (2 * generate_canonical<Real>(rng) - 1) * half_v_cm;
        Array3<Real> const at{{field_distance_cm * direction[0], field_distance_cm * direction[1],
                               field_distance_cm * direction[2]}};
        return normalized(axpy(b, axis_v, axpy(a, axis_u, at)));
    }

    struct ConeSample
    {
        Array3<Real> direction;
        Real cos_theta;
    };

    //! Direction isotropic within the cone of half-angle acos(cos_cone) about
    //! the axis: cos(theta) uniform on [cos_cone, 1], azimuth in the (u, v) frame.
    template <class Engine>
    MCDOSE_FUNCTION ConeSample cone_direction(Engine& rng) const
    {
        Real const cos_theta = 1 - (1 - cos_cone) * generate_canonical<Real>(rng);
        Real const sin_theta = std::sqrt((1 - cos_theta) * (1 + cos_theta));
        auto const [s, c] = sample_azimuth_sincos<Real>(rng);
        Array3<Real> d = axpy(sin_theta * c, axis_u,
                              Array3<Real>{{cos_theta * direction[0], cos_theta * direction[1],
                                            cos_theta * direction[2]}});
        d = axpy(sin_theta * s, axis_v, d);
        return {normalized(d), cos_theta};
    }
};

//! Several sources of one study: each history draws its source with the
//! selection probabilities `cdf` (cumulative, last = 1), then samples it. A
//! single source consumes no extra random number, so one-source runs are
//! unchanged by the mixture. (A phase-space source is always alone:
//! SourceMixParams refuses it in a mix.)
template <class Real>
struct SourceMixView
{
    Span<SourceView<Real> const> sources;
    Span<Real const> cdf;

    //! The source particle of history `history` (TransportThread.hh).
    template <class Engine>
    MCDOSE_FUNCTION Particle<Real> operator()(Engine& rng, std::uint64_t history) const
    {
        MCDOSE_EXPECT(!sources.empty() && cdf.size() == sources.size());
        size_type k = 0;
        if (sources.size() > 1)
        {
            Real const xi = generate_canonical<Real>(rng);
            while (k + 1 < sources.size() && xi > cdf[k])
                ++k;
        }
        return sources[k](rng, history);
    }

    //! One source particle of sources that do not depend on the history
    //! (every kind but a phase space), for tests that drive HistoryTransport.
    template <class Engine>
    MCDOSE_FUNCTION Particle<Real> operator()(Engine& rng) const
    {
        return (*this)(rng, 0);
    }
};
} // namespace mcdose
