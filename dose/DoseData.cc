//! \file dose/DoseData.cc
#include "dose/DoseData.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/ParallelFor.hh"

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
    MCDOSE_VALIDATE(data.material_dose_factor.empty() ||
                        data.material_dose_factor.size() >= data.material_names.size(),
                    << "internal: " << data.material_dose_factor.size()
                    << " dose-to-water factors for " << data.material_names.size() << " materials");
    MCDOSE_VALIDATE(data.has_energy.empty() || data.has_energy.size() == mask_words(n),
                    << "internal: an energy mask of " << data.has_energy.size()
                    << " words for a grid of " << n << " voxels");
}

std::vector<double> dose_gy_per_particle(DoseGridData const& data)
{
    validate_dose_data(data);
    std::vector<double> dose(data.edep_MeV.size());
    for (size_type v = 0; v < dose.size(); ++v)
        dose[v] = voxel_dose_gy_per_particle(data, v);
    return dose;
}

std::vector<double> relative_uncertainty(DoseGridData const& data)
{
    validate_dose_data(data);
    std::vector<double> rel(data.edep_MeV.size());
    for (size_type v = 0; v < rel.size(); ++v)
        rel[v] = voxel_relative_uncertainty(data, v);
    return rel;
}

double max_dose_gy_per_particle(DoseGridData const& data)
{
    validate_dose_data(data);
    size_type const n = data.edep_MeV.size();
    std::vector<double> piece_max(parallel_pieces(n, 0), 0.0);
    parallel_for_pieces(n, 0,
                        [&](size_type begin, size_type end, size_type piece)
                        {
                            double m = 0;
                            for (size_type v = begin; v < end; ++v)
                                m = std::max(m, voxel_dose_gy_per_particle(data, v));
                            piece_max[piece] = m;
                        });
    return piece_max.empty() ? 0.0 : *std::max_element(piece_max.begin(), piece_max.end());
}

std::optional<double> mean_relative_uncertainty(DoseGridData const& data, double fraction)
{
    double const max_dose = max_dose_gy_per_particle(data);
    if (!(max_dose > 0))
        return std::nullopt;
    double const threshold = fraction * max_dose;
    // One thread, in voxel order: the mean is the same on every machine.
    double sum = 0;
    size_type count = 0;
    for (size_type v = 0; v < data.edep_MeV.size(); ++v)
    {
        if (voxel_dose_gy_per_particle(data, v) > threshold)
        {
            sum += data.edep_sigma_MeV[v] / data.edep_MeV[v];
            ++count;
        }
    }
    MCDOSE_ASSERT(count > 0);
    return sum / double(count);
}
} // namespace mcdose
