//! \file transport/engine/TransportTables.hh
//! The transport's read-only tables on the host, in double, before TransportParams converts
//! them to the transport precision and memory space: the per-material photon tables of the
//! physics-table builder (transport/physics/PhysicsTables.hh) laid out for the kernel (process
//! and element CDFs, Woodcock majorant), the sampling data of transport/interactors from
//! xraylib, and the condensed-history tables (ElectronTables.hh).
//!
//! They are a function of TransportTableInputs and of the build alone, so they can be built
//! once and kept (the table cache, study/TableCache.hh): transport_table_key spells out
//! every input, and the tables go to bytes and back unchanged, bit for bit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "phantoms/materials/Material.hh"
#include "transport/engine/ElectronTables.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose
{
class VoxelGridParams;
struct TransportOptions;

//! Everything the tables are built from: build_transport_tables reads nothing else.
struct TransportTableInputs
{
    std::vector<Material> materials; //!< [m] = the phantom's material index m
    PhysicsTableOptions physics;     //!< grids, cuts, Compton model (physics_table_options)
    bool condensed_history{true};    //!< electron tables wanted
    double max_loss_fraction{0.1};   //!< hard-event majorant window (ElectronTables.hh)
    DensityEffectModel density_effect{DensityEffectModel::voxel};
    //! [m]: the densities at which material m occurs in the phantom (Woodcock majorant,
    //! density nodes of the stopping power).
    std::vector<DensityRange> densities;
};

//! The inputs of a transport with `options` of a phantom of `grid` and `materials`.
//! Throws (naming the option) on options out of range.
TransportTableInputs transport_table_inputs(std::vector<Material> const& materials,
                                            VoxelGridParams const& grid,
                                            TransportOptions const& options);

//! Tables in double, laid out as TransportView documents.
struct TransportTables
{
    TableGrid grid; //!< the photon grid
    std::vector<double> mu_rho, branch_cdf, element_cdf, majorant_per_cm;
    std::vector<std::uint16_t> element_index;
    std::vector<std::uint8_t> num_elements;
    unsigned num_materials{0}, max_elements{0};

    //! Photoelectric shells per element (unique Z over the materials).
    std::vector<int> elements_z;
    std::vector<double> shell_binding_MeV, shell_probability;
    std::vector<std::uint32_t> shell_offset; //!< size elements + 1

    //! Rayleigh and Compton tables per material (flat, with offsets).
    std::vector<double> ray_x2, ray_f2, ray_cum;
    std::vector<std::uint32_t> ray_offset;
    std::vector<double> inc_x, inc_s, inc_electrons;
    std::vector<std::uint32_t> inc_offset;

    //! Pair production per material.
    std::vector<int> pair_z;
    std::vector<double> pair_cdf;
    std::vector<std::uint32_t> pair_offset;

    //! Electrons and positrons (empty without condensed history).
    ElectronHostTables electron;
};

//! Build the tables (the physics-table builder's columns, then the layout and sampling data).
TransportTables build_transport_tables(TransportTableInputs const& inputs);

//! Every input of the tables as text, doubles to the bit: the materials (composition,
//! density, I-value), the options, the density ranges, and what the build contributes (the
//! table format version, the mcdose version, the SHA-256 of the table code, the xraylib
//! version, the compiler and its flags, the C library and the CPU features its math
//! functions dispatch on). Equal keys give bit-identical tables.
std::string transport_table_key(TransportTableInputs const& inputs);

//! The tables as bytes (native byte order: for this build on this machine) and back.
//! Reading throws on a truncated or malformed buffer.
std::string to_bytes(TransportTables const& tables);
TransportTables transport_tables_from_bytes(std::string_view bytes);

//! Whether two table sets are identical bit for bit.
bool operator==(TransportTables const& a, TransportTables const& b);
} // namespace mcdose
