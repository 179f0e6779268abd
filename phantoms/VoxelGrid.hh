//! \file phantoms/VoxelGrid.hh
//! Voxel phantom data: per-voxel material index and mass density on a grid.
//! Params / view model (see ARCHITECTURE.md): `VoxelGridParams` owns the host
//! arrays and, lazily, a device copy; `VoxelGridView` is the trivially
//! copyable view (spans) that kernels receive by value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/GridGeometry.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Index of a voxel's material in the phantom's list of material names.
using MaterialIndex = std::uint16_t;

//! Read-only voxel data for host or device code.
struct VoxelGridView
{
    GridGeometry geometry;
    Span<MaterialIndex const> material; //!< per voxel
    Span<float const> density_g_cm3;    //!< per voxel mass density [g/cm^3]

    //! Mass of voxel `v` [g] (density times voxel volume).
    MCDOSE_FORCEINLINE_FUNCTION double voxel_mass_g(size_type v) const
    {
        return double(density_g_cm3[v]) * geometry.voxel_volume_cm3();
    }
};

//! Host-owned voxel grid with a lazily created device copy.
class VoxelGridParams
{
  public:
    //! Validates sizes (one value per voxel), material indices (< num_materials)
    //! and densities (finite, >= 0); throws RuntimeError naming the fault.
    VoxelGridParams(GridGeometry geometry, std::vector<MaterialIndex> material,
                    std::vector<float> density_g_cm3, size_type num_materials);
    ~VoxelGridParams();
    VoxelGridParams(VoxelGridParams&&) noexcept;
    VoxelGridParams& operator=(VoxelGridParams&&) noexcept;

    GridGeometry const& geometry() const { return geometry_; }
    size_type num_voxels() const { return geometry_.num_voxels(); }
    size_type num_materials() const { return num_materials_; }
    std::vector<MaterialIndex> const& material() const { return material_; }
    std::vector<float> const& density_g_cm3() const { return density_; }

    //! Mass of each voxel [g].
    std::vector<double> voxel_masses_g() const;

    //! View of the host arrays.
    VoxelGridView host_view() const;

    //! View of the device arrays, uploaded on the first call (thread-safe).
    //! Throws "built without CUDA" in a CPU-only build.
    VoxelGridView device_view() const;
    //! Free the device copy (with its device current), for a run done with it; a later
    //! device_view uploads it again.
    void free_device_copy() const;

  private:
    struct DeviceCopy;

    GridGeometry geometry_;
    std::vector<MaterialIndex> material_;
    std::vector<float> density_;
    size_type num_materials_{0};
    std::unique_ptr<DeviceCopy> device_;
};

//! Totals for one material of a phantom.
struct MaterialTotals
{
    std::string name;
    size_type voxels{0};
    double volume_cm3{0};
    double mass_g{0};
    float min_density_g_cm3{0};
    float max_density_g_cm3{0};
};

//! A voxel phantom: the catalogue names of its materials and its grid.
struct Phantom
{
    std::vector<std::string> material_names; //!< MaterialIndex -> catalogue name
    VoxelGridParams grid;
    //! DICOM Frame of Reference UID of the CT the phantom was made from (empty
    //! for other images and shapes): a structure set must reference it.
    std::string frame_of_reference_uid{};
};

//! Voxels, volume and mass of each material (same order as material_names).
std::vector<MaterialTotals> material_totals(Phantom const& phantom);
} // namespace mcdose
