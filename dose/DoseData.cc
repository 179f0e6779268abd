//! \file dose/DoseData.cc
#include "dose/DoseData.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"

namespace mcdose
{
void validate_dose_data(DoseGridData const& data)
{
    size_type const n = data.geometry.num_voxels();
    MCDOSE_VALIDATE(data.edep_MeV.size() == n && data.edep_sigma_MeV.size() == n &&
                        data.density_g_cm3.size() == n && data.material.size() == n,
                    << "dose output arrays do not match the grid of " << n << " voxels (edep "
                    << data.edep_MeV.size() << ", sigma " << data.edep_sigma_MeV.size()
                    << ", density " << data.density_g_cm3.size() << ", material "
                    << data.material.size() << ")");
}

std::vector<double> dose_gy_per_particle(DoseGridData const& data)
{
    validate_dose_data(data);
    double const volume_cm3 = data.geometry.voxel_volume_cm3();
    std::vector<double> dose(data.edep_MeV.size());
    for (size_type v = 0; v < dose.size(); ++v)
    {
        double const mass_g = double(data.density_g_cm3[v]) * volume_cm3;
        // D = E / m; 1 MeV/g = gray_per_MeV_g Gy.
        dose[v] = mass_g > 0 ? data.edep_MeV[v] / mass_g * constants::gray_per_MeV_g : 0.0;
    }
    return dose;
}

std::vector<double> relative_uncertainty(DoseGridData const& data)
{
    validate_dose_data(data);
    std::vector<double> rel(data.edep_MeV.size());
    for (size_type v = 0; v < rel.size(); ++v)
    {
        double const e = data.edep_MeV[v];
        rel[v] = e > 0 ? data.edep_sigma_MeV[v] / e : 1.0;
    }
    return rel;
}

std::optional<double> mean_relative_uncertainty(DoseGridData const& data, double fraction)
{
    auto const dose = dose_gy_per_particle(data);
    double const max_dose = dose.empty() ? 0.0 : *std::max_element(dose.begin(), dose.end());
    if (!(max_dose > 0))
        return std::nullopt;
    double const threshold = fraction * max_dose;
    double sum = 0;
    size_type count = 0;
    for (size_type v = 0; v < dose.size(); ++v)
    {
        if (dose[v] > threshold)
        {
            sum += data.edep_sigma_MeV[v] / data.edep_MeV[v];
            ++count;
        }
    }
    MCDOSE_ASSERT(count > 0);
    return sum / double(count);
}
} // namespace mcdose
