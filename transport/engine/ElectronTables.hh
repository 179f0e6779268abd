//! \file transport/engine/ElectronTables.hh
//! Host construction of the condensed-history tables of ElectronTransportView: the
//! columns of the physics-table builder (transport/physics/PhysicsTables.hh, built with
//! the study's cuts) laid out for the kernel, plus the sampling data the builder does not
//! hold (bremsstrahlung spectrum shapes, multiple-scattering tables) and the hard-event
//! majorants that depend on the step control.
#pragma once

#include <vector>

namespace mcdose
{
class PhysicsTables; // transport/physics/PhysicsTables.hh
struct TableGrid;
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

//! Tables in double, laid out as ElectronTransportView documents.
struct ElectronHostTables
{
    double ln_emin{0};
    double delta{0}; //!< grid step in ln E
    unsigned size{0};
    std::vector<double> stopping, transport_xs, transport_xs2, hard_xs;
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
ElectronHostTables build_electron_tables(PhysicsTables const& tables,
                                         ElectronTransportOptions const& options);

//! Check the options (called by build_electron_tables and the study checks).
void validate_electron_options(ElectronTransportOptions const& options);
} // namespace mcdose
