//! \file validation/crosscheck/md/LJSystem.hh
//! Lennard-Jones test systems for the force-accumulation study (after
//! Narumi et al. 2008): a cloud of particles in an open box (all pairs,
//! no cutoff) and bonded chains in a periodic box with exclusions.
//! Units are reduced LJ units: lengths in sigma_ref, energies in eps_ref.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose::crosscheck
{
//! A particle system with per-type-pair LJ parameters.
//! Positions are float: the single- and double-precision force paths read the
//! same numbers, so the double path (method G) is the exact reference for them.
struct LJSystem
{
    std::vector<float> x, y, z;     //!< positions [sigma]; wrapped into [0, L) when periodic
    std::vector<std::int32_t> type; //!< atom type in [0, num_types)
    int num_types{0};
    std::vector<float> sigma2;       //!< sigma_ab^2 [sigma^2], num_types^2 entries
    std::vector<float> eps24;        //!< 24 eps_ab [eps], num_types^2 entries
    double box_length{0};            //!< periodic box edge [sigma]; 0 for an open box
    double min_pair_distance{0};     //!< guaranteed minimum distance of non-excluded pairs [sigma]
    double min_excluded_distance{0}; //!< minimum distance of excluded pairs [sigma] (0: none)

    // Bonded systems only (empty otherwise)
    std::vector<std::array<std::uint32_t, 2>> bonds; //!< bonded pairs (i < j)
    std::vector<std::int32_t> molecule;              //!< molecule index per atom
    std::vector<std::uint32_t> excl_offset;          //!< CSR offsets, size N+1
    std::vector<std::uint32_t> excl_index;           //!< excluded partners, sorted per atom
    //! Truth for tests: periodic image of each atom of the chains as built
    //! (unwrapped = wrapped + image * L).
    std::vector<std::array<int, 3>> image;

    size_type size() const { return x.size(); }
    bool periodic() const { return box_length > 0; }
};

//! Options for the open-box cloud (the MD study's system: 65,536 particles).
struct LJCloudOptions
{
    size_type num_particles{65536};
    int num_types{16};
    double number_density{0.3}; //!< particles per sigma^3
    double min_distance{0.8};   //!< no two particles closer than this [sigma]
    std::uint64_t seed{20080313};
};

//! Options for the bonded chains in a periodic box.
struct LJChainOptions
{
    size_type num_chains{128};
    size_type chain_length{8};
    int num_types{16};
    double number_density{0.3}; //!< atoms per sigma^3 (sets the box edge)
    double bond_length{0.5};    //!< [sigma]; shorter than sigma so excluded pairs repel hard
    double min_distance{0.8};   //!< minimum distance of non-excluded pairs [sigma]
    std::uint64_t seed{20080314};
};

//! Random sequential placement without overlaps; 16 types with random
//! sigma in [0.8, 1.2], eps in [0.5, 2] and Lorentz-Berthelot mixing.
LJSystem make_lj_cloud(LJCloudOptions const& opts);

//! Random-walk chains (bond angle free, non-bonded atoms kept min_distance
//! apart under the minimum image), wrapped into the periodic box so that many
//! molecules are split across the boundary. Exclusions: 1-2 and 1-3 pairs.
LJSystem make_lj_chains(LJChainOptions const& opts);

//! Trivially copyable view of a system for host and device force loops.
struct LJView
{
    Span<float const> x, y, z;
    Span<std::int32_t const> type;
    Span<float const> sigma2, eps24;
    Span<std::uint32_t const> excl_offset, excl_index;
    int num_types{0};
    float box_length{0};
};

//! View of host memory.
LJView make_host_view(LJSystem const& sys);
} // namespace mcdose::crosscheck
