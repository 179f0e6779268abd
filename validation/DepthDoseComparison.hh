//! \file validation/DepthDoseComparison.hh
//! Compare a laterally integrated depth dose (mcdose's depth-dose CSV) with a
//! reference (validation/<case>/reference_*.csv), bin by bin, with the stated
//! tolerance, and print a readable table of the differences.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "dose/DepthDoseCurve.hh"

namespace mcdose
{
//! Read a CSV with header columns including z_lo_cm, z_hi_cm, edep_MeV,
//! edep_sigma_MeV (other columns ignored). Throws RuntimeError naming the file.
DepthDoseCurve read_depth_dose_csv(std::string const& path);

struct DepthDoseComparisonOptions
{
    double z_min_cm{0};            //!< compare bins with z_lo >= z_min (beyond the build-up)
    double z_max_cm{1e30};         //!< and z_hi <= z_max (e.g. before a distal fall-off)
    double tolerance_of_max{0.02}; //!< |test - ref| <= tol * max(ref)
    double sigmas{4};              //!< statistical allowance added: sigmas * combined sigma
};

struct DepthDoseComparison
{
    double ref_max_MeV{0}, test_max_MeV{0};
    double ref_depth_of_max_cm{0}, test_depth_of_max_cm{0};
    double ref_total_MeV{0}, test_total_MeV{0};
    int bins_compared{0}, bins_failed{0};
    double worst_diff_of_max{0};    //!< max |test - ref| / max(ref) over compared bins
    double mean_abs_diff_of_max{0}; //!< mean |test - ref| / max(ref) over compared bins
    double worst_z_cm{0};
    bool passed() const { return bins_failed == 0 && bins_compared > 0; }
};

//! Depth [cm] beyond the maximum where the curve falls to 50 % of its maximum
//! (linear interpolation between bin centres); throws if it never does.
double depth_dose_r50_cm(DepthDoseCurve const& curve);

//! Practical range Rp [cm] (ICRU Report 35): where the tangent at the
//! inflection point of the distal fall-off meets the bremsstrahlung
//! background. The tangent is the least-squares line through the bins of the
//! fall-off between 70 % and 30 % of the maximum; the background is the mean
//! of the bins 0.5-2.5 cm beyond the depth where the curve first falls below
//! 5 % of its maximum.
double depth_dose_practical_range_cm(DepthDoseCurve const& curve);

//! Compare bin by bin (the grids must be the same). Writes a table to `report`.
DepthDoseComparison compare_depth_dose(DepthDoseCurve const& test, DepthDoseCurve const& reference,
                                       DepthDoseComparisonOptions const& options,
                                       std::ostream& report);
} // namespace mcdose
