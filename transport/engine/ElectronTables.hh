//! \file transport/engine/ElectronTables.hh
//! Host construction of the condensed-history tables of ElectronTransportView: the
//! columns of the physics-table builder (transport/physics/PhysicsTables.hh, built with
//! the study's cuts) laid out for the kernel, plus the sampling data the builder does not
//! hold (bremsstrahlung spectrum shapes, multiple-scattering tables) and the hard-event
//! majorants that depend on the step control.
#pragma once

#include <cstdint>
#include <vector>

namespace mcdose
{
class PhysicsTables; // transport/physics/PhysicsTables.hh
struct TableGrid;

//! Which density the collision stopping power's density-effect correction (Sternheimer
//! delta, the only density-dependent term of the electron physics) is evaluated at.
enum class DensityEffectModel : std::uint8_t
{
    //! Each voxel's own mass density: the voxel is a homogeneous medium of that density
    //! (what PENELOPE, EGSnrc and Geant4 do for a material defined at that density).
    voxel,
    //! The material's catalogue density whatever the voxel's: a porous tissue whose solid
    //! parts have the nominal density (per-mass physics independent of density, as the
    //! Fano theorem assumes).
    nominal
};
//! Class II condensed-history options (study JSON "physics"; defaults and the
//! measured effect of each on the depth dose: docs/physics.md).
struct ElectronTransportOptions
{
    bool condensed_history{true};  //!< false: e-/e+ deposit locally where created
    double absorption_MeV{0.2};    //!< kinetic energy below which e-/e+ stop
    double delta_cut_MeV{0.2};     //!< W_cc: delta rays above it are produced
    double brems_cut_MeV{0.05};    //!< W_cr: photons above it are produced
    double max_loss_fraction{0.1}; //!< soft loss per step <= this fraction of E
    double max_mfp_fraction{0.2};  //!< step <= this fraction of lambda_1
    int points_per_decade{100};    //!< electron table density
    DensityEffectModel density_effect{DensityEffectModel::voxel};
    //! Bremsstrahlung photons above W_cr are dropped at birth, their energy counted as
    //! escaped (a Fano test's condition; electron-only dosimetry).
    bool discard_brems_photons{false};
};

//! Allowed values of the options: validate_electron_options checks them for
//! API users and the study parser (transport/study) for JSON input, both from
//! here. Cuts in [cut_min_MeV, cut_max_MeV]; step fractions in (0, max].
struct ElectronOptionLimits
{
    static constexpr double cut_min_MeV = 1e-3;
    static constexpr double cut_max_MeV = 10;
    static constexpr double max_loss_fraction = 0.25;
    static constexpr double max_mfp_fraction = 1;
};

//! The densities at which one material's soft stopping power is tabulated: `count` nodes
//! uniform in ln rho from `ln_density_min` in steps of `ln_step`, rows `first` ...
//! `first + count - 1` of ElectronHostTables::stopping (ElectronTransportView says how the
//! transport interpolates between them).
struct DensityNodes
{
    double ln_density_min{0}; //!< ln(rho_0 / (g/cm^3))
    double ln_step{0};        //!< 0 with one node
    unsigned first{0};
    unsigned count{1};

    double density_g_cm3(unsigned k) const;
};

//! The lowest and highest mass density [g/cm^3] at which a material occurs in the phantom
//! (voxels of density 0 excluded; max 0: the material has no voxel of positive density).
struct DensityRange
{
    double min_g_cm3{0};
    double max_g_cm3{0};
};

//! Largest relative error of the soft stopping power interpolated linearly in ln rho
//! between density nodes, checked at every grid energy and at the midpoint of every
//! interval of the nodes (where a smooth function's linear interpolation errs most)
//! against the value computed at that density.
constexpr double density_node_tolerance = 2e-4;

//! Tables in double, laid out as ElectronTransportView documents.
struct ElectronHostTables
{
    double ln_emin{0};
    double delta{0}; //!< grid step in ln E
    unsigned size{0};
    //! Per material (index = material): the densities of its stopping rows.
    std::vector<DensityNodes> density_nodes;
    //! Soft stopping power, row ((density_nodes[m].first + k) * 2 + lepton) * size.
    std::vector<double> stopping;
    //! Per material and lepton, row (m * 2 + lepton) * size.
    std::vector<double> transport_xs, transport_xs2, hard_xs;
    //! Per row and bin: a majorant of the total hard cross section over every
    //! energy one step starting in that bin can pass (ElectronTransportView).
    std::vector<double> hard_majorant;
    unsigned brems_points{0};
    std::vector<double> brems_shape;
    //! MW multiple-scattering tables (WentzelScreeningTable): on a ln m1 grid,
    //! ln A_1 and <t^2>_A1; on a ln(ratio) grid, ln A and <t>_A.
    double msc_m1_min{0}, msc_m1_max{0};
    double msc_ln_m1_min{0}, msc_m1_delta{0};
    std::vector<double> msc_ln_screening, msc_second_moment;
    double msc_ln_ratio_min{0}, msc_ratio_delta{0};
    std::vector<double> msc_ln_screening_of_ratio, msc_mean_of_ratio;
};

//! The electron grid of the tables: 1 keV (the lowest cut the study accepts) to above
//! `emax_MeV` (the largest source energy), the cuts and 2 W_cc (where Møller events begin),
//! `options.points_per_decade` points per decade. Throws with the option name on bad cuts.
TableGrid electron_table_grid(double emax_MeV, ElectronTransportOptions const& options);

//! Lay out the tables from `tables` (built on electron_table_grid with the cuts of
//! `options`, physics_table_options in TransportParams.hh) and add the sampling data.
//! With the voxel density-effect model, `voxel_densities[m]` is the range of densities
//! at which material m occurs: its soft stopping power is tabulated at density nodes
//! spanning it (one node, exact, for a single density), chosen so that interpolation in
//! ln rho errs by at most density_node_tolerance; with the nominal model, or without a
//! range, at the material's own density.
ElectronHostTables build_electron_tables(PhysicsTables const& tables,
                                         ElectronTransportOptions const& options,
                                         std::vector<DensityRange> const& voxel_densities = {});

//! The density nodes of material m for a range of densities (build_electron_tables), with
//! the soft stopping power at each: [node][lepton][grid point] (restricted collision plus
//! restricted radiative) [MeV cm^2/g].
struct DensityNodeTables
{
    DensityNodes nodes;
    std::vector<std::vector<std::vector<double>>> stopping;
};
DensityNodeTables density_node_tables(PhysicsTables const& tables, std::uint32_t m,
                                      DensityRange range);

//! Check the options (called by build_electron_tables and the study checks).
void validate_electron_options(ElectronTransportOptions const& options);
} // namespace mcdose
