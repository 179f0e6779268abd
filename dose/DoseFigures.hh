//! \file dose/DoseFigures.hh
//! Dose-volume figures of a run, plain data for the writers: the summary over
//! the body (near-maximum, mean uncertainty of the high-dose voxels, dose in
//! low-density voxels) and the DVH figures of each structure (dose/Dvh.hh
//! computes them). Doses are in the report's unit (Gy, or Gy per source
//! particle when the sources give no particle count).
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/Types.hh"

namespace mcdose
{
//! A figure with its statistical uncertainty (1 sigma, same unit; NaN when
//! the run has fewer than 2 batches).
struct FigureWithSigma
{
    double value{0};
    double sigma{std::nan("")};
};

//! Volume receiving at least `dose`.
struct VolumeAtDose
{
    double dose{0};
    FigureWithSigma volume_cm3;
    FigureWithSigma volume_percent;
};

//! ICRU 83 dose-volume figures of one structure and its cumulative DVH.
struct DvhFigures
{
    std::string name;
    std::string origin; //!< where the structure came from
    double volume_cm3{0};
    size_type voxels{0}; //!< voxels at least partly inside
    FigureWithSigma d_mean;
    FigureWithSigma d_min;
    FigureWithSigma d_003cc; //!< near-maximum: the least dose of the hottest 0.03 cm^3
    FigureWithSigma d98;     //!< near-minimum: least dose of the hottest 98 % of the volume
    FigureWithSigma d95;
    FigureWithSigma d50; //!< median
    FigureWithSigma d2;  //!< near-maximum (ICRU 83)
    std::vector<VolumeAtDose> v_at;
    //! Cumulative DVH: volume_cm3[b] receives at least dose[b] (dose ascending from 0).
    std::vector<double> curve_dose;
    std::vector<double> curve_volume_cm3;
};

//! What the summary and the stopping rule look at: a region (the body or a
//! structure) without its low-density voxels.
struct RegionSummary
{
    std::string region{"body"};
    double near_max{0};                  //!< D0.03cc of the region
    std::optional<double> mean_relative; //!< over voxels above dose_fraction * near_max
    double dose_fraction{0.5};
    size_type voxels_counted{0}; //!< voxels in that mean
    double low_density_threshold_g_cm3{0};
    size_type low_density_voxels{0}; //!< voxels of the region below the threshold
    double low_density_max{0};       //!< largest dose among them
    double outside_max{0};           //!< largest dose outside the region (any density)
};

//! Everything the writers report about doses to structures.
struct DoseReport
{
    std::string dose_unit{"Gy per particle"}; //!< "Gy" or "Gy per particle"
    std::optional<RegionSummary> summary;     //!< absent when no structures were built
    std::vector<DvhFigures> dvhs;
};

//! The definitions printed next to the figures (one place, so that text, JSON
//! and docs say the same).
inline constexpr char near_max_definition[] =
    "D0.03cc: least dose of the hottest 0.03 cm3 of the region, voxels below the low-density "
    "threshold left out";
inline constexpr char mean_uncertainty_definition[] =
    "mean relative 1-sigma uncertainty over the region's voxels with dose above the fraction of "
    "D0.03cc (DOSXYZnrc / AAPM TG-105 convention)";
} // namespace mcdose
