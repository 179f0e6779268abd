//! \file dose/DoseComparison.hh
//! Comparison of an evaluated dose distribution with a reference one:
//! dose-difference statistics and the 3D gamma index.
//!
//! Gamma (Low, Harms, Mutic and Purdy, Med. Phys. 25 (1998) 656, eq. 4-6):
//! for a reference point r_r with dose D_r,
//!   gamma(r_r) = min over r_e of sqrt(|r_e - r_r|^2 / dta^2 + (D_e(r_e) - D_r)^2 / dD^2),
//! dD = dose_fraction x the normalisation dose (global: the reference
//! maximum, or a dose given; local: D_r). The search follows Wendling et al.,
//! Med. Phys. 34 (2007) 1647: the evaluated distribution is interpolated
//! (trilinearly here) at points of a cubic lattice around r_r, of step
//! dta / samples_per_dta (default 5), visited in order of increasing distance; the
//! search stops when the distance term alone reaches the smallest gamma^2
//! found, or at the search radius. Beyond one dta the lattice step grows with
//! the distance (step x ceil(distance / dta)), so the relative accuracy of a
//! gamma above 1 stays that of one below. The best lattice point is then
//! refined by a pattern search down to 1/64 of the step (the minimum of a
//! smooth function between lattice points). The lattice is searched in
//! rings of dta / 2; a ring is skipped when the range of the evaluated dose
//! within its outer radius (from the minimum and maximum of blocks of 4^3
//! voxels) keeps its dose term alone above the best gamma^2 found. Gamma
//! above search_radius / dta is reported as that value (a lower bound).
//!
//! Evaluated points are the reference voxel centres of the region (the body or a
//! structure; the whole grid when none is given) with dose at or above threshold x the
//! normalisation dose that lie inside the evaluated grid's extent; grids that differ are
//! compared by trilinear interpolation of the evaluated grid at the reference voxel
//! centres. The normalisation dose is the region's near maximum (D0.03cc, the least dose
//! of its hottest 0.03 cm3) unless a dose is given: air or couch voxels outside the body
//! never set the scale.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dose/DoseReader.hh"

namespace mcdose
{
//! One gamma criterion, e.g. 3 %/3 mm global.
struct GammaCriterion
{
    double dose_fraction{0.03}; //!< dD as a fraction of the normalisation dose
    double dta_mm{3.0};         //!< distance to agreement [mm]
    bool local{false};          //!< dD relative to the reference dose at the point

    //! "3%/3mm global"
    std::string label() const;
};

//! Parse "3%/3mm" (also "3 % / 3 mm", "2.5%/2mm"); RuntimeError naming the
//! text and the expected form otherwise.
GammaCriterion parse_gamma_criterion(std::string const& text, bool local);

//! Settings shared by all criteria of one comparison.
struct ComparisonOptions
{
    //! Reference voxels below this fraction of the normalisation dose are not evaluated.
    double threshold_fraction{0.10};
    //! Global normalisation dose (in the grids' unit); default the region's near maximum.
    std::optional<double> normalisation_dose;
    //! Reference voxels compared (non-zero: inside), one per reference voxel; empty: all.
    std::vector<std::uint8_t> region;
    //! Search radius in units of the criterion's dta.
    double search_radius_dta{3.0};
    //! Lattice points per dta. Wendling et al. use dta / 10 with no
    //! refinement; with the refinement dta / 5 gives their pass rates
    //! (docs/history/benchmarks-2026.md) at about a fifth of the cost.
    int samples_per_dta{5};
    int threads{0}; //!< 0: all cores
};

//! Dose-difference statistics over the evaluated voxels (evaluated - reference).
struct DoseDifferenceStats
{
    std::size_t voxels{0};          //!< reference voxels compared
    std::size_t outside{0};         //!< above threshold but outside the evaluated grid
    double reference_max{0};        //!< largest reference dose (whole grid, reported apart)
    double region_near_max{0};      //!< D0.03cc of the reference in the region
    double normalisation_dose{0};   //!< what percentages are relative to
    double threshold_dose{0};       //!< threshold_fraction x normalisation_dose
    double mean_difference{0};      //!< mean of (evaluated - reference)
    double mean_abs_difference{0};  //!< mean of |evaluated - reference|
    double rms_difference{0};       //!< root mean square of the difference
    double max_abs_difference{0};   //!< largest |evaluated - reference|
    Real3 max_abs_at_cm{{0, 0, 0}}; //!< where (reference voxel centre)
    double mean_ratio{0};           //!< mean of evaluated / reference
};

//! Gamma of one criterion.
struct GammaResult
{
    GammaCriterion criterion;
    std::size_t evaluated{0};
    std::size_t passed{0}; //!< gamma <= 1
    double pass_rate{0};   //!< passed / evaluated
    double mean_gamma{0};
    double max_gamma{0};
    double gamma_p95{0}; //!< 95th percentile
    double cap{0};       //!< search_radius / dta: gamma values are at most this
    //! Per reference voxel; -1 where not evaluated (below threshold or outside).
    std::vector<float> map;
};

//! Refuse grids that cannot be compared: no reference voxel centre inside
//! the evaluated grid (names both extents), or units that differ (names both).
void check_comparable(DoseGrid const& reference, DoseGrid const& evaluated);

//! Refuse a grid with NaN or infinite doses (a comparison would pass them silently):
//! RuntimeError naming the file, the count and the first voxel.
void check_finite(DoseGrid const& grid);

//! Near maximum of `grid` in `region` (empty: the whole grid): D0.03cc, the least dose of
//! the hottest 0.03 cm3 (the voxel's volume when that is larger).
double near_max(DoseGrid const& grid, std::vector<std::uint8_t> const& region);

//! The dose a comparison's percentages and threshold are relative to: the one given, else
//! the reference's near maximum in the region.
double normalisation_dose(DoseGrid const& reference, ComparisonOptions const& options);

//! Dose difference at the reference voxel centres.
DoseDifferenceStats dose_difference(DoseGrid const& reference, DoseGrid const& evaluated,
                                    ComparisonOptions const& options);

//! Gamma index of `evaluated` against `reference` for one criterion.
GammaResult gamma_index(DoseGrid const& reference, DoseGrid const& evaluated,
                        GammaCriterion const& criterion, ComparisonOptions const& options);
} // namespace mcdose
