//! \file phantoms/HuCalibration.cc
#include "phantoms/HuCalibration.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"

namespace mcdose
{
HuCalibration schneider2000_calibration()
{
    HuCalibration cal;
    // Density curve: Schneider, Bortfeld & Schlegel 2000 (Phys. Med. Biol. 45:459),
    // mass-density relation: straight lines between reference tissues of
    // their tissue table, H the CT number in HU, rho in g/cm^3:
    //   -1000 <= H <= -98  air (0.00121 at -1000) to adipose tissue 3 (0.93 at -98)  [eq. 17]
    //     -98 <= H <=  14  rho = 1.018 + 0.893e-3 H (adipose 3 - adrenal gland)     [eq. 21]
    //      14 <  H <   23  rho = 1.03
    //      23 <= H <= 100  rho = 1.003 + 1.169e-3 H (small intestine - connective)  [eq. 23]
    //     100 <  H         rho = 1.017 + 0.592e-3 H (marrow - cortical bone)        [eq. 19]
    // CAUTION: only the paper's abstract could be read when this was checked;
    // the equations, their numbers and the reference tissues are as several
    // independent implementations quote them (they agree with each other, and
    // the lines pass within 0.0008 g/cm^3 of the tissue densities). Unconfirmed
    // against the paper itself; see docs/study-reference.md.
    // Each line is linear, so the points below lie on it and the curve equals
    // the equations at every integer HU (a step between two segments is
    // spread over the 1 HU between two integers). An earlier version took the
    // points from GATE's Schneider2000DensitiesTable, which places each
    // segment's first value 1 HU late (e.g. eq. 21 at -98 put at -97) and ends
    // the bone line at (3000, 2.8), 0.007 g/cm^3 above eq. 19.
    // Two extensions of ours: flat air down to -1024 (the lowest CT number of
    // 12-bit scanners) and eq. 19 continued from the paper's last tissue bin
    // (1500..1600 HU) to 3071 (the 12-bit top).
    auto const eq21 = [](double h) { return 1.018 + 0.893e-3 * h; };
    auto const eq23 = [](double h) { return 1.003 + 1.169e-3 * h; };
    auto const eq19 = [](double h) { return 1.017 + 0.592e-3 * h; };
    cal.density_curve = {{-1024, 0.00121}, {-1000, 0.00121}, {-98, 0.93},       {-97, eq21(-97)},
                         {14, eq21(14)},   {15, 1.03},       {22, 1.03},        {23, eq23(23)},
                         {100, eq23(100)}, {101, eq19(101)}, {3071, eq19(3071)}};
    // Tissue bins: the edges -950, -120, -22 and 120 are edges of Schneider's
    // tissue segmentation (their table 6: air below -950, lung -950..-120,
    // adipose/adrenal/intestine mixtures -120..18, soft and connective tissue
    // 19..120, marrow/bone mixtures 120..1600 in steps of 100 HU), merged onto
    // the catalogue's reference tissues. The -22 split puts the mixtures that
    // are mostly adipose in "adipose" and the rest in "soft_tissue"; every
    // marrow/bone mixture gets cortical bone's composition (table 6, as GATE
    // transcribes it: 4.5 % Ca at 120 HU rising to 22.5 % at 1500 HU; the
    // catalogue's ICRP cortical bone has 21 %), a coarse approximation of
    // spongy bone.
    cal.material_bins = {{-1024, "air"},
                         {-950, "lung_icrp"},
                         {-120, "adipose_icrp"},
                         {-22, "soft_tissue_icru44"},
                         {120, "bone_cortical_icrp"}};
    cal.out_of_range = HuOutOfRange::error;
    return cal;
}

void validate_calibration(HuCalibration const& cal)
{
    auto const& curve = cal.density_curve;
    MCDOSE_VALIDATE(curve.size() >= 2, << "the HU density curve needs at least two points (got "
                                       << curve.size() << ")");
    for (std::size_t i = 0; i < curve.size(); ++i)
    {
        MCDOSE_VALIDATE(std::isfinite(curve[i].hu) && std::isfinite(curve[i].density_g_cm3) &&
                            curve[i].density_g_cm3 >= 0,
                        << "density curve point " << i << " (HU " << curve[i].hu << ", density "
                        << curve[i].density_g_cm3
                        << " g/cm^3) is invalid; densities must be finite and >= 0");
        MCDOSE_VALIDATE(i == 0 || curve[i].hu > curve[i - 1].hu,
                        << "density curve HU values must increase strictly (point " << i
                        << " has HU " << curve[i].hu << " after " << curve[i - 1].hu
                        << "); for a step use two points 1 HU apart");
    }
    auto const& bins = cal.material_bins;
    MCDOSE_VALIDATE(!bins.empty(), << "the HU calibration needs at least one material bin");
    MCDOSE_VALIDATE(bins.front().hu_lo <= cal.hu_min(),
                    << "the first material bin starts at HU " << bins.front().hu_lo
                    << " but the density curve starts at " << cal.hu_min()
                    << "; lower the first bin's hu_lo so that every HU on the curve has a "
                       "material");
    for (std::size_t b = 0; b < bins.size(); ++b)
    {
        MCDOSE_VALIDATE(!bins[b].material.empty(), << "material bin " << b << " has no material");
        MCDOSE_VALIDATE(std::isfinite(bins[b].hu_lo),
                        << "material bin " << b << " has a non-finite hu_lo");
        MCDOSE_VALIDATE(b == 0 || bins[b].hu_lo > bins[b - 1].hu_lo,
                        << "material bins must have strictly increasing hu_lo (bin " << b
                        << " starts at " << bins[b].hu_lo << " after " << bins[b - 1].hu_lo << ")");
        MCDOSE_VALIDATE(bins[b].hu_lo <= cal.hu_max(),
                        << "material bin " << b << " ('" << bins[b].material << "') starts at HU "
                        << bins[b].hu_lo << ", above the top of the density curve (" << cal.hu_max()
                        << "); extend the curve or remove the bin");
    }
}

HuConverter::HuConverter(HuCalibration cal) : cal_(std::move(cal))
{
    validate_calibration(cal_);
    for (auto const& bin : cal_.material_bins)
    {
        auto it = std::find(names_.begin(), names_.end(), bin.material);
        if (it == names_.end())
        {
            names_.push_back(bin.material);
            it = names_.end() - 1;
        }
        bin_material_.push_back(static_cast<MaterialIndex>(it - names_.begin()));
    }
}

bool HuConverter::convert(double hu, Result* result) const
{
    auto const& curve = cal_.density_curve;
    if (!(hu >= cal_.hu_min() && hu <= cal_.hu_max()))
    {
        if (cal_.out_of_range == HuOutOfRange::error || std::isnan(hu))
            return false;
        hu = std::min(std::max(hu, cal_.hu_min()), cal_.hu_max());
    }
    // Density: linear interpolation in the segment [curve[i-1], curve[i]] holding hu.
    auto upper = std::upper_bound(curve.begin(), curve.end(), hu,
                                  [](double h, HuDensityPoint const& p) { return h < p.hu; });
    if (upper == curve.end())
        --upper; // hu == hu_max
    auto const lower = upper - 1;
    double const t = (hu - lower->hu) / (upper->hu - lower->hu);
    result->density_g_cm3 = static_cast<float>(lower->density_g_cm3 +
                                               t * (upper->density_g_cm3 - lower->density_g_cm3));

    // Material: last bin whose lower edge is <= hu.
    auto const& bins = cal_.material_bins;
    auto bin = std::upper_bound(bins.begin(), bins.end(), hu,
                                [](double h, HuMaterialBin const& b) { return h < b.hu_lo; });
    MCDOSE_ASSERT(bin != bins.begin());
    result->material = bin_material_[static_cast<std::size_t>(bin - bins.begin()) - 1];
    return true;
}
} // namespace mcdose
