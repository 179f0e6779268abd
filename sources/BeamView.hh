//! \file sources/BeamView.hh
//! The collimated field of a beam source (sources/BeamGeometry.hh): rectangles ("cells") in
//! the isocentre plane, in the IEC 61217 beam-limiting-device coordinates (x along X_b, y
//! along Y_b) [cm]: the jaw opening, or the open pixels of an aperture image clipped to the
//! jaws. Particles leave the focal spot, a point at the source-axis distance (SAD) from the
//! isocentre, isotropically; the collimator passes those aimed into the field. So the point
//! where a particle crosses the isocentre plane has the density of the solid angle per unit
//! area, d Omega / dA = SAD / r^3, r^2 = SAD^2 + x^2 + y^2, times the cell's transmission.
//! Sampling is exact: a cell is drawn with Walker's alias method over the weights
//! transmission x (solid angle of the cell) (two deviates; the solid angles are computed
//! exactly on the host), then a point uniform in the cell is accepted with probability
//! (r_min / r)^3, r_min the smallest r over the cell (three deviates per try; at most
//! 1 - (100 / 103.9)^3 = 11 % of tries are rejected for a 40 x 40 cm^2 field at SAD 100).
//! A field of one cell (jaws without an aperture) is held in the view itself: no alias
//! draw and no table read.
#pragma once

#include <cmath>

#include "core/Array3.hh"
#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"

namespace mcdose
{
//! Most draws a source's rejection loop makes for one particle. The set-up refuses a field
//! whose expected draws exceed max_expected_source_draws (sources/Source.json.cc), so the
//! cap is not reached in practice (probability below e^-65); should it be, the loop takes
//! its last point of the field, so that no history can spin.
inline constexpr int max_source_draws = 1 << 16;
//! Largest expected number of draws per particle of a field the set-up accepts.
inline constexpr double max_expected_source_draws = 1000;

template <class Real>
struct ApertureView
{
    Span<Real const> cells_cm; //!< x0, x1, y0, y1 of each cell at the isocentre plane [cm]
    Span<Real const> keep;     //!< alias table over the cells: keep probability
    Span<int const> alias;     //!< and the other cell of each column
    bool one_cell{false};      //!< the field is the single cell `cell_cm` (tables unused)
    Real cell_cm[4]{};         //!< that cell: x0, x1, y0, y1 [cm]

    //! A point (x, y) [cm] in the isocentre plane with density proportional to the
    //! transmission times SAD / r^3.
    template <class Engine>
    MCDOSE_FUNCTION Array3<Real> operator()(Engine& rng, Real sad_cm) const
    {
        Real x0 = cell_cm[0], x1 = cell_cm[1], y0 = cell_cm[2], y1 = cell_cm[3];
        if (!one_cell)
        {
            MCDOSE_EXPECT(!keep.empty() && cells_cm.size() == 4 * keep.size());
            size_type const cell = sample_alias<Real>(rng, keep, alias);
            x0 = cells_cm[4 * cell];
            x1 = cells_cm[4 * cell + 1];
            y0 = cells_cm[4 * cell + 2];
            y1 = cells_cm[4 * cell + 3];
        }
        // The point of the cell nearest the central axis has the largest density.
        Real const xn = x0 > 0 ? x0 : (x1 < 0 ? x1 : Real(0));
        Real const yn = y0 > 0 ? y0 : (y1 < 0 ? y1 : Real(0));
        Real const sad2 = sad_cm * sad_cm;
        Real const r2_min = sad2 + xn * xn + yn * yn;
        Real const r6_min = r2_min * r2_min * r2_min;
        for (int draw = 1;; ++draw)
        {
            Real const x = x0 + (x1 - x0) * generate_canonical<Real>(rng);
            Real const y = y0 + (y1 - y0) * generate_canonical<Real>(rng);
            Real const r2 = sad2 + x * x + y * y;
            // u <= (r_min / r)^3, squared: no square root.
            Real const u = generate_canonical<Real>(rng);
            if (u * u * (r2 * r2 * r2) <= r6_min || draw == max_source_draws)
                return {{x, y, 0}};
        }
    }
};
} // namespace mcdose
