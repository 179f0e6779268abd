//! \file dose/DoseData.cc
#include "dose/DoseData.hh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"

namespace mcdose
{
char const* to_cstring(StopReason r)
{
    switch (r)
    {
    case StopReason::histories:
        return "histories";
    case StopReason::target_uncertainty:
        return "target_uncertainty";
    case StopReason::time_limit:
        return "time_limit";
    case StopReason::interrupted:
        return "interrupted";
    }
    return "?";
}

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

EnergyVoxelTable energy_voxel_table(DoseGridData const& data, int threads)
{
    validate_dose_data(data);
    EnergyVoxelTable table;
    DoseGridData grids = data; // the values from the grids, not from a table the data carry
    grids.energy_table = nullptr;
    size_type const n = data.geometry.num_voxels();
    std::uint64_t const* mask = data.has_energy.data();
    size_type const words = data.has_energy.size();
    if (words == 0)
        return table;
    // Each piece of words fills its part of the table from its first index on.
    size_type const piece_words = 4096;
    std::vector<size_type> const first = mask_piece_offsets(data.has_energy, piece_words, threads);
    size_type const total = first.back();
    if (total > n / 16 || total > std::numeric_limits<std::uint32_t>::max())
        return table;
    // Their pages mapped on all cores first (core/HostMemory.hh): tens of MB.
    auto const allocate = [threads](auto& v, size_type count)
    {
        v.reserve(count);
        prefault_pages(v.data(), count * sizeof(v[0]), threads);
        v.resize(count);
    };
    allocate(table.before, words);
    allocate(table.dose, total);
    allocate(table.relative_sigma, total);
    std::atomic<bool> negative{false};
    parallel_for_each(
        first.size() - 1,
        [&](size_type p)
        {
            size_type k = first[p];
            bool below_zero = false;
            for (size_type w = p * piece_words; w < std::min(words, (p + 1) * piece_words); ++w)
            {
                table.before[w] = std::uint32_t(k);
                for_each_set_bit(mask[w], 64 * w,
                                 [&](size_type v)
                                 {
                                     below_zero = below_zero || grids.edep_MeV[v] < 0;
                                     table.dose[k] = voxel_dose_gy_per_particle(grids, v);
                                     table.relative_sigma[k] = voxel_relative_uncertainty(grids, v);
                                     ++k;
                                 });
            }
            if (below_zero)
                negative = true;
        },
        threads);
    if (negative)
        return EnergyVoxelTable{};
    return table;
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
    if (EnergyVoxelTable const* table = data.energy_table)
    {
        // The voxels without energy have dose 0, where the maximum starts.
        double m = 0;
        for (double d : table->dose)
            m = std::max(m, d);
        return m;
    }
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
