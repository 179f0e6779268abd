//! \file phantoms/VoxelGrid.cc
#include "phantoms/VoxelGrid.hh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "core/Assert.hh"
#include "core/DeviceBuffer.hh"
#include "core/ParallelFor.hh"

namespace mcdose
{
struct VoxelGridParams::DeviceCopy
{
    std::mutex mutex;
    bool uploaded{false};
    DeviceBuffer<MaterialIndex> material;
    DeviceBuffer<float> density;
};

VoxelGridParams::VoxelGridParams(GridGeometry geometry, std::vector<MaterialIndex> material,
                                 std::vector<float> density_g_cm3, size_type num_materials)
    : geometry_(geometry), material_(std::move(material)), density_(std::move(density_g_cm3)),
      num_materials_(num_materials), device_(std::make_unique<DeviceCopy>())
{
    validate_geometry(geometry_, "voxel grid");
    size_type const n = geometry_.num_voxels();
    MCDOSE_VALIDATE(num_materials_ > 0 &&
                        num_materials_ <= size_type(std::numeric_limits<MaterialIndex>::max()) + 1,
                    << "a phantom needs between 1 and 65536 materials (got " << num_materials_
                    << ")");
    MCDOSE_VALIDATE(material_.size() == n, << "voxel grid: " << material_.size()
                                           << " material indices for " << n << " voxels");
    MCDOSE_VALIDATE(density_.size() == n,
                    << "voxel grid: " << density_.size() << " densities for " << n << " voxels");
    // The first bad voxel, found on all cores: the least of each block's first.
    auto const bad = [this](size_type v) {
        return !(material_[v] < num_materials_) ||
               !(std::isfinite(density_[v]) && density_[v] >= 0);
    };
    size_type const v = parallel_block_sum(
        n, 0, n,
        [&](size_type begin, size_type end, size_type& first)
        {
            for (size_type u = begin; u < end; ++u)
            {
                if (bad(u))
                {
                    first = u;
                    return;
                }
            }
        },
        [](size_type& first, size_type const& block) { first = std::min(first, block); });
    if (v == n)
        return;
    MCDOSE_VALIDATE(material_[v] < num_materials_,
                    << "voxel " << v << " has material index " << material_[v]
                    << " but the phantom lists only " << num_materials_
                    << " materials; add the missing materials or fix the index image");
    MCDOSE_VALIDATE(std::isfinite(density_[v]) && density_[v] >= 0,
                    << "voxel " << v << " has density " << density_[v]
                    << " g/cm^3; densities must be finite and non-negative");
}

VoxelGridParams::~VoxelGridParams() = default;
VoxelGridParams::VoxelGridParams(VoxelGridParams&&) noexcept = default;
VoxelGridParams& VoxelGridParams::operator=(VoxelGridParams&&) noexcept = default;

std::vector<double> VoxelGridParams::voxel_masses_g() const
{
    double const volume = geometry_.voxel_volume_cm3();
    std::vector<double> mass(density_.size());
    for (size_type v = 0; v < density_.size(); ++v)
        mass[v] = double(density_[v]) * volume;
    return mass;
}

VoxelGridView VoxelGridParams::host_view() const
{
    return {geometry_, make_span(material_), make_span(density_)};
}

VoxelGridView VoxelGridParams::device_view() const
{
    MCDOSE_EXPECT(device_);
    DeviceCopy& dev = *device_;
    std::lock_guard<std::mutex> lock(dev.mutex);
    if (!dev.uploaded)
    {
        // A patient-size grid pinned where it is (core/DeviceMemory.hh).
        dev.material = DeviceBuffer<MaterialIndex>(material_.size());
        dev.material.copy_to_device_parallel(make_span(material_));
        dev.density = DeviceBuffer<float>(density_.size());
        dev.density.copy_to_device_parallel(make_span(density_));
        dev.uploaded = true;
    }
    return {geometry_, dev.material.device_span(), dev.density.device_span()};
}

void VoxelGridParams::free_device_copy() const
{
    MCDOSE_EXPECT(device_);
    DeviceCopy& dev = *device_;
    std::lock_guard<std::mutex> lock(dev.mutex);
    dev.material = DeviceBuffer<MaterialIndex>();
    dev.density = DeviceBuffer<float>();
    dev.uploaded = false;
}

std::vector<MaterialTotals> material_totals(Phantom const& phantom)
{
    auto const& grid = phantom.grid;
    std::vector<MaterialTotals> totals(phantom.material_names.size());
    for (size_type m = 0; m < totals.size(); ++m)
    {
        totals[m].name = phantom.material_names[m];
        totals[m].min_density_g_cm3 = std::numeric_limits<float>::infinity();
        totals[m].max_density_g_cm3 = 0;
    }
    double const volume = grid.geometry().voxel_volume_cm3();
    auto const& mat = grid.material();
    auto const& rho = grid.density_g_cm3();
    for (size_type v = 0; v < mat.size(); ++v)
    {
        MaterialTotals& t = totals[mat[v]];
        t.voxels += 1;
        t.mass_g += double(rho[v]) * volume;
        t.min_density_g_cm3 = std::min(t.min_density_g_cm3, rho[v]);
        t.max_density_g_cm3 = std::max(t.max_density_g_cm3, rho[v]);
    }
    for (auto& t : totals)
    {
        t.volume_cm3 = double(t.voxels) * volume;
        if (t.voxels == 0)
            t.min_density_g_cm3 = 0;
    }
    return totals;
}
} // namespace mcdose
