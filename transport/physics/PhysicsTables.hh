//! \file transport/physics/PhysicsTables.hh
//! Per-material photon and electron/positron tables (params: host data + lazy device copy).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "phantoms/materials/Material.hh"
#include "transport/physics/PhysicsTableView.hh"

namespace mcdose
{
//! Photon table columns [cm^2/g].
enum class PhotonQuantity : std::uint32_t
{
    mu,            //!< total attenuation mu/rho
    mu_en,         //!< energy absorption mu_en/rho
    photo,         //!< photoelectric
    incoherent,    //!< bound Compton
    coherent,      //!< Rayleigh
    pair_nuclear,  //!< pair production, nuclear field
    pair_electron, //!< triplet production
    size_
};

//! Electron/positron table columns (energies: kinetic, MeV).
enum class ElectronQuantity : std::uint32_t
{
    s_col_electron,          //!< MeV cm^2/g
    s_col_positron,          //!< MeV cm^2/g
    s_rad,                   //!< MeV cm^2/g (e- and e+)
    csda_range_electron,     //!< g/cm^2
    radiation_yield,         //!< [-]
    density_effect,          //!< delta [-]
    restricted_col_electron, //!< MeV cm^2/g, losses below electron_cut_MeV
    restricted_col_positron, //!< MeV cm^2/g
    restricted_rad,          //!< MeV cm^2/g, photons below photon_cut_MeV
    hard_moller,             //!< cm^2/g, secondaries above electron_cut_MeV
    hard_bhabha,             //!< cm^2/g
    hard_brems,              //!< cm^2/g, photons above photon_cut_MeV
    transport_xs_electron,   //!< elastic transport cross section sigma_1 [cm^2/g]
    transport_xs_positron,   //!< [cm^2/g]
    size_
};

char const* to_cstring(PhotonQuantity q);
char const* to_cstring(ElectronQuantity q);

//! Options of the table build.
struct PhysicsTableOptions
{
    double min_energy_MeV{1e-3};
    double max_energy_MeV{50};
    int photon_points_per_decade{100}; //!< plus edge points
    int electron_points_per_decade{60};
    double electron_cut_MeV{0.01}; //!< class II threshold for delta rays (kinetic)
    double photon_cut_MeV{0.01};   //!< class II threshold for bremsstrahlung photons
};

//! Flat host arrays of one table set.
struct TableData
{
    std::vector<double> energy_MeV;
    std::vector<double> values;
    std::vector<TableRef> refs;
    std::uint32_t num_materials{0};
    std::uint32_t num_quantities{0};

    PhysicsTableView host_view() const;
};

//! Owns the photon and electron tables of a list of materials. Build time for ten
//! materials: see docs/physics.md (`mcdose materials --all --timing`).
class PhysicsTables
{
  public:
    PhysicsTables(std::vector<Material> materials, PhysicsTableOptions const& options = {});
    ~PhysicsTables();
    PhysicsTables(PhysicsTables&&) noexcept;
    PhysicsTables& operator=(PhysicsTables&&) noexcept;

    std::vector<Material> const& materials() const { return materials_; }
    PhysicsTableOptions const& options() const { return options_; }
    //! Index of a material by name (throws with the closest name).
    std::uint32_t material_index(std::string const& name) const;

    TableData const& photon_data() const { return photon_; }
    TableData const& electron_data() const { return electron_; }
    PhysicsTableView photon_host_view() const { return photon_.host_view(); }
    PhysicsTableView electron_host_view() const { return electron_.host_view(); }
    //! Device views (copied to the device on first use; throws without CUDA).
    PhysicsTableView photon_device_view() const;
    PhysicsTableView electron_device_view() const;

    double photon(std::uint32_t material, PhotonQuantity q, double energy_MeV) const
    {
        return interpolate(photon_host_view(), material, static_cast<std::uint32_t>(q), energy_MeV);
    }
    double electron(std::uint32_t material, ElectronQuantity q, double energy_MeV) const
    {
        return interpolate(electron_host_view(), material, static_cast<std::uint32_t>(q),
                           energy_MeV);
    }

  private:
    struct DeviceCopy;
    std::vector<Material> materials_;
    PhysicsTableOptions options_;
    TableData photon_;
    TableData electron_;
    mutable std::unique_ptr<DeviceCopy> photon_device_;
    mutable std::unique_ptr<DeviceCopy> electron_device_;
};
} // namespace mcdose
