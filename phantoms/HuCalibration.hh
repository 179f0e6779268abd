//! \file phantoms/HuCalibration.hh
//! Conversion of CT numbers (Hounsfield units) to (material, mass density).
//!
//! Two piecewise tables, following Schneider, Bortfeld and Schlegel,
//! "Correlation between CT numbers and tissue parameters needed for Monte
//! Carlo simulations of clinical dose distributions", Phys. Med. Biol. 45
//! (2000) 459-478:
//! - a density curve: mass density [g/cm^3] linear between control points
//!   (HU strictly increasing; two points 1 HU apart make a step);
//! - material bins: bin b assigns its catalogue material to HU in
//!   [hu_lo_b, hu_lo_{b+1}) (the last bin runs to the top of the curve).
#pragma once

#include <string>
#include <vector>

#include "phantoms/VoxelGrid.hh"

namespace mcdose
{
//! One control point of the HU -> density curve.
struct HuDensityPoint
{
    double hu{0};
    double density_g_cm3{0};
};

//! Lower edge of a HU bin and the catalogue material assigned to it.
struct HuMaterialBin
{
    double hu_lo{0};
    std::string material;
};

//! What to do with a CT number outside [hu_min, hu_max] of the density curve.
enum class HuOutOfRange
{
    error, //!< stop with an error naming the voxel and the value (default)
    clamp  //!< use the nearest end of the curve
};

//! A HU calibration (user-provided or the built-in default).
struct HuCalibration
{
    std::vector<HuDensityPoint> density_curve;
    std::vector<HuMaterialBin> material_bins;
    HuOutOfRange out_of_range{HuOutOfRange::error};

    double hu_min() const { return density_curve.front().hu; }
    double hu_max() const { return density_curve.back().hu; }
};

//! Built-in default: the Schneider et al. (2000) density curve with coarse
//! tissue bins mapped onto catalogue names (see docs/study-reference.md).
HuCalibration schneider2000_calibration();

//! Throw RuntimeError describing the first inconsistency (fewer than two
//! density points, HU not increasing, negative density, bins not increasing,
//! first bin above hu_min, empty material name).
void validate_calibration(HuCalibration const& cal);

//! Fast lookup built from a validated calibration.
class HuConverter
{
  public:
    struct Result
    {
        MaterialIndex material{0}; //!< index into material_names()
        float density_g_cm3{0};
    };

    explicit HuConverter(HuCalibration cal);

    //! Distinct catalogue names of the bins, in bin order.
    std::vector<std::string> const& material_names() const { return names_; }
    HuCalibration const& calibration() const { return cal_; }

    //! Convert one CT number; false when it lies outside the curve and the
    //! calibration says `error`.
    bool convert(double hu, Result* result) const;

  private:
    HuCalibration cal_;
    std::vector<std::string> names_;
    std::vector<MaterialIndex> bin_material_;
};
} // namespace mcdose
