//! \file sources/PhaseSpaceInput.hh
//! A phase-space source as the study gives it (an MCPL file, its placement and
//! recycling), and what a pass over the file found (PhaseSpaceScan): the
//! particles mcdose transports, those it skips by type, the energy range and a
//! sparse index for seeking. Fields, units and defaults: docs/study-reference.md.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/Array3.hh"

namespace mcdose
{
//! Where the file's coordinates go: x_phantom = R x_file + translation_cm, with
//! R = Rz(rotation_deg[2]) Ry(rotation_deg[1]) Rx(rotation_deg[0]) (rotations about
//! the phantom's fixed axes, x first; right-handed, counter-clockwise looking down
//! the axis). Directions are rotated alike.
struct PhaseSpacePlacement
{
    Real3 translation_cm{{0, 0, 0}};
    Real3 rotation_deg{{0, 0, 0}};
};

//! Rotation matrix of a placement (row-major: out[i] = sum_j m[i][j] in[j]).
std::array<Real3, 3> rotation_matrix(PhaseSpacePlacement const& placement);

//! What one pass over an MCPL file found (scan_phase_space).
struct PhaseSpaceScan
{
    //! Transported particles between two entries of `index`.
    static constexpr std::uint64_t index_stride = 4096;
    //! Photons, electrons and positrons below this kinetic energy (the physics tables'
    //! lowest, SourceEnergyLimits) are counted and skipped [MeV].
    static constexpr double min_energy_MeV = 1e-3;

    std::uint64_t file_particles{0};               //!< particles in the file
    std::uint64_t transported{0};                  //!< photons, electrons and positrons
    std::map<std::int32_t, std::uint64_t> skipped; //!< other particles, by PDG code
    std::uint64_t photons{0}, electrons{0}, positrons{0};
    std::uint64_t below_min{0}; //!< photons, electrons, positrons below min_energy_MeV
    double below_min_MeV{0};    //!< their energy x weight
    double max_energy_MeV{0};   //!< largest kinetic energy of a transported particle
    //! Largest weight x (kinetic energy + 2 m c^2 for a positron) [MeV]: the
    //! most energy one history brings (bounds the FX tally's quantum).
    double max_history_energy_MeV{0};
    double total_weight{0}; //!< of the transported particles
    double min_weight{0}, max_weight{0};
    //! Primary histories the file's header records (0: none recorded).
    std::uint64_t primary_histories{0};
    //! A gzipped file: scanned and read by one thread, in order (going back inflates
    //! the file again from its start).
    bool compressed{false};
    //! File position of transported particle k * index_stride.
    std::vector<std::uint64_t> index;
};

//! A phase-space source.
struct PhaseSpaceInput
{
    std::string file; //!< resolved against the study's folder
    PhaseSpacePlacement placement;
    std::uint32_t recycle{1}; //!< histories started by each particle
    bool read_ahead{true};    //!< read the next piece while one is transported
    //! Threads that read a piece's parts at once, each with the file open (0: every
    //! core, at most 16).
    int read_threads{0};
    //! Read a file whose particle count disagrees with its length (never closed by its
    //! writer, truncated) as the whole records there are (io/McplHeader.hh).
    bool recover{false};
    PhaseSpaceScan scan; //!< filled by the parser (one pass over the file)
};

//! Particles per block of scan_phase_space: each block is read by one thread (a reader
//! of its own) and the blocks' counts and sums are added in file order.
inline constexpr std::uint64_t scan_block_particles = std::uint64_t(1) << 16;

//! Read the whole file once (streaming, in blocks of scan_block_particles on `threads`
//! threads, 0: one per core) and check every particle: finite position, unit direction,
//! kinetic energy within [0, max_energy_MeV], weight >= 0 (photons, electrons and
//! positrons below min_energy_MeV are counted and skipped). Throws RuntimeError naming
//! the file, the index of the first bad particle and the fix; a file without any photon,
//! electron or positron is refused, and so is one whose transported particles all weigh 0.
//! The result does not depend on `threads`. `recover`: PhaseSpaceInput::recover.
PhaseSpaceScan scan_phase_space(std::string const& path, double max_energy_MeV, int threads = 0,
                                bool recover = false);

//! "neutron (2112)", or "PDG 1000020040" for a code without a name here.
std::string pdg_name(std::int32_t pdg_code);

//! One line for logs and the run summary: the particles used and those skipped.
std::string describe_scan(PhaseSpaceScan const& scan, std::string const& file);
} // namespace mcdose
