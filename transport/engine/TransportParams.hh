//! \file transport/engine/TransportParams.hh
//! Host owner of the transport data: holds the transport tables (TransportTables.hh: the
//! per-material photon tables of the physics-table builder laid out for the kernel, the
//! sampling data of transport/interactors, the condensed-history tables), built here or
//! handed over (e.g. read from the table cache), and hands out views in float or double, in
//! host or device memory (uploaded once, lazily).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "phantoms/VoxelGrid.hh"
#include "phantoms/materials/Material.hh"
#include "rng/PerThreadStates.hh"
#include "transport/engine/ElectronTables.hh"
#include "transport/engine/TransportTables.hh"
#include "transport/engine/TransportView.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose
{
//! What the transport builds its tables with (study JSON "physics": the study reader fills
//! it; study/RunSetup.cc sets emax_MeV from the sources).
struct TransportOptions
{
    double emin_MeV{1e-3};      //!< low end of the tables (<= photon cut-off)
    double emax_MeV{50};        //!< high end (>= the largest source energy)
    int points_per_decade{400}; //!< table density (see LogGrid.hh for the error)
    double photon_cutoff_MeV{0.01};
    PhotonTracking tracking{PhotonTracking::woodcock};
    bool compton_binding{true};        //!< incoherent scattering function S(x, Z)
    ElectronTransportOptions electron; //!< condensed history of e-/e+
};

//! The physics-table options the transport uses for `options`: its photon grid
//! (points_per_decade from emin_MeV to at least emax_MeV), its electron grid and cuts
//! (electron_table_grid; none with local deposition) and its Compton model. `mcdose
//! materials` builds its tables with this too, so it prints the transported tables.
//! Throws on options out of range.
PhysicsTableOptions physics_table_options(TransportOptions const& options);

class TransportParams
{
  public:
    //! `materials[m]` is the material of phantom index m: builds the tables.
    TransportParams(std::vector<Material> const& materials, VoxelGridParams const& grid,
                    TransportOptions const& options);
    //! With tables built (or read back) for transport_table_inputs(materials, grid, options);
    //! several params (one per GPU) may share them.
    TransportParams(std::shared_ptr<TransportTables const> tables, VoxelGridParams const& grid,
                    TransportOptions const& options);
    ~TransportParams();
    TransportParams(TransportParams&&) noexcept;

    TransportOptions const& options() const { return options_; }
    unsigned grid_size() const { return n_; }
    //! Total mass attenuation coefficient of material m on the grid [cm^2/g].
    std::vector<double> mu_rho(unsigned m) const;
    //! Grid energies [MeV].
    std::vector<double> energies_MeV() const;

    //! View with tables in precision Real, in host or device memory.
    template <class Real>
    TransportView<Real> view(MemSpace where) const;

    //! Free the device copies of the tables (with their device current), for a run done
    //! with them; a later device view uploads them again.
    void free_device_copies() const;

  private:
    template <class Real>
    struct Store;
    TransportOptions options_;
    unsigned n_{0};
    std::shared_ptr<TransportTables const> host_;
    mutable std::unique_ptr<Store<float>> store_f_[2];
    mutable std::unique_ptr<Store<double>> store_d_[2];
    VoxelGridParams const* grid_{nullptr};
};
} // namespace mcdose
