//! \file transport/physics/PhysicsTables.hh
//! The one builder of the per-material physics tables: every cross section and stopping
//! power the transport reads, and the dosimetric quantities `mcdose materials` prints
//! beside them, evaluated from the models of transport/physics on the transport's uniform
//! ln E grids. The printed tables are therefore the transported ones, and a change of a
//! model (e.g. of the density-effect correction) is made in one place. Host only:
//! transport/engine (TransportParams, ElectronTables) lays the columns out for the kernel
//! and adds its sampling data and majorants; `physics_table_options` (TransportParams.hh)
//! turns a study's transport options into the options here.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/Span.hh"
#include "phantoms/materials/Material.hh"
#include "transport/physics/ElectronPhysics.hh"

namespace mcdose
{
//! A uniform grid in ln E: E_i = exp(ln_emin + i delta), i < size (transport/LogGrid.hh
//! is its device view and states the error of interpolating on it).
struct TableGrid
{
    double ln_emin{0}; //!< ln(E_0 / MeV)
    double delta{0};   //!< step in ln E
    unsigned size{0};  //!< number of points (0: no table)

    //! Energy of point i [MeV] (the same expression the tables were evaluated at).
    double energy_MeV(unsigned i) const { return std::exp(ln_emin + delta * i); }
    std::vector<double> energies_MeV() const;
};

//! Photon columns, per material on the photon grid [cm^2/g].
enum class PhotonColumn : std::uint32_t
{
    photo,      //!< photoelectric (transported)
    incoherent, //!< bound (or free-electron) Compton (transported)
    coherent,   //!< Rayleigh (transported)
    pair,       //!< pair + triplet production (transported)
    mu,         //!< total mu/rho = photo + incoherent + coherent + pair (transported)
    mu_en,      //!< energy absorption mu_en/rho (dosimetry only)
    size_
};

//! Electron/positron columns, per material on the electron grid (kinetic energy).
enum class ElectronColumn : std::uint32_t
{
    // Transported (class II with the cuts W_cc = delta_cut_MeV, W_cr = brems_cut_MeV)
    restricted_col_electron, //!< collision stopping, losses < W_cc [MeV cm^2/g]
    restricted_col_positron, //!< [MeV cm^2/g]
    restricted_rad,          //!< radiative stopping, photons < W_cr (e- and e+) [MeV cm^2/g]
    hard_moller,             //!< Møller secondaries above W_cc [cm^2/g]
    hard_bhabha,             //!< Bhabha secondaries above W_cc [cm^2/g]
    hard_brems,              //!< photons above W_cr [cm^2/g]
    annihilation,            //!< two-photon annihilation in flight (e+) [cm^2/g]
    transport_xs_electron,   //!< elastic sigma_1 [cm^2/g]
    transport_xs_positron,   //!< [cm^2/g]
    transport_xs2_electron,  //!< elastic sigma_2 [cm^2/g]
    transport_xs2_positron,  //!< [cm^2/g]

    // Dosimetry only
    s_col_electron,      //!< unrestricted collision stopping [MeV cm^2/g]
    s_col_positron,      //!< [MeV cm^2/g]
    s_rad,               //!< unrestricted radiative stopping [MeV cm^2/g]
    csda_range_electron, //!< [g/cm^2]
    radiation_yield,     //!< [-]
    density_effect,      //!< Sternheimer delta [-]
    size_
};

char const* to_cstring(PhotonColumn c);
char const* to_cstring(ElectronColumn c);
//! Whether a column is built only with PhysicsTableOptions::dosimetry.
bool is_dosimetry(PhotonColumn c);
bool is_dosimetry(ElectronColumn c);

//! What to build. The grids and cuts come from the transport options
//! (physics_table_options in TransportParams.hh), so that the tables are the transported ones.
struct PhysicsTableOptions
{
    TableGrid photon_grid;
    TableGrid electron_grid;    //!< size 0: no electron tables (local deposition)
    bool compton_binding{true}; //!< S(x, Z) in the incoherent; false: free-electron KN
    double delta_cut_MeV{0};    //!< W_cc (electron tables only)
    double brems_cut_MeV{0};    //!< W_cr (electron tables only)
    //! Also mu_en, the unrestricted stopping powers, CSDA range, radiation yield and delta
    //! (what `mcdose materials` prints; the transport does not need them).
    bool dosimetry{false};
};

//! The tables of a list of materials (index = the phantom's material index). Columns are
//! evaluated point by point on the hardware threads (each value on its own, so the result
//! does not depend on the thread count); per-element photon data are shared by the
//! materials. Build time: docs/physics.md (`mcdose materials --all --timing`).
class PhysicsTables
{
  public:
    PhysicsTables(std::vector<Material> materials, PhysicsTableOptions const& options);

    std::vector<Material> const& materials() const { return materials_; }
    PhysicsTableOptions const& options() const { return options_; }
    std::uint32_t num_materials() const { return static_cast<std::uint32_t>(materials_.size()); }
    bool has_electrons() const { return options_.electron_grid.size > 0; }
    //! Index of a material by name (throws with the closest name).
    std::uint32_t material_index(std::string const& name) const;
    //! The electron models of material m (stopping, cross sections, brems spectrum), made
    //! only with electron tables (a study with local deposition never needs them).
    ElectronPhysics const& electron_physics(std::uint32_t m) const;

    //! Column c of material m at the grid points.
    Span<double const> photon_column(std::uint32_t m, PhotonColumn c) const;
    Span<double const> electron_column(std::uint32_t m, ElectronColumn c) const;
    //! w_k tau_k of component k of material m at the photon grid points [cm^2/g] (the
    //! photoabsorbing element's share; the photo column is their sum in component order).
    Span<double const> photo_partial(std::uint32_t m, std::uint32_t k) const;

    //! The restricted collision stopping powers of material m (e-, e+) at the electron grid
    //! points [MeV cm^2/g] with the density-effect correction of mass density
    //! `density_g_cm3` instead of the material's own: the material as a homogeneous medium
    //! of that density (the per-voxel density effect, ElectronTables.hh). At the material's
    //! own density they are the restricted_col columns bit for bit. Nothing else in the
    //! tables depends on the density (every other column is a per-mass, per-atom sum).
    std::array<std::vector<double>, 2> restricted_collision_at_density(std::uint32_t m,
                                                                       double density_g_cm3) const;

    //! Column c of material m at energy E [MeV], looked up as the transport does
    //! (LogGridView: linear in ln E within a bin, clamped to the end values).
    double photon(std::uint32_t m, PhotonColumn c, double energy_MeV) const;
    double electron(std::uint32_t m, ElectronColumn c, double energy_MeV) const;

  private:
    std::vector<Material> materials_;
    PhysicsTableOptions options_;
    std::vector<ElectronPhysics> physics_;
    std::vector<double> photon_;        //!< [(m * columns + c) * size + i]
    std::vector<double> photo_partial_; //!< [(partial_offset_[m] + k) * size + i]
    std::vector<std::uint32_t> partial_offset_;
    std::vector<double> electron_; //!< [(m * columns + c) * size + i]

    void build_photon_columns();
    void build_electron_columns();
    void build_range_and_yield();
    double* photon_data(std::uint32_t m, PhotonColumn c);
    double* electron_data(std::uint32_t m, ElectronColumn c);
};
} // namespace mcdose
