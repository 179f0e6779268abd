//! \file io/McplRecords.hh
//! The particle records of an MCPL file (format version 3), decoded many at a
//! time. An MCPL file is a header followed by fixed-size records, each (in the
//! file's byte order, single or double precision): the polarisation (3 numbers,
//! where the file has it), the position [cm] (3), the direction and kinetic energy
//! packed into 3 numbers, the time, the weight (unless the file has one weight for
//! all), the PDG code (int32, unless one for all) and 32 user-flag bits (where
//! the file has them). Kittelmann et al., Comput. Phys. Commun. 218 (2017) 17,
//! section 2 (format) and the "adaptive projection packing" of a unit vector:
//! the third packed number is the kinetic energy with the sign of the component
//! that was left out; a first or second number of magnitude above 1 is 1/u_z
//! standing in for u_x or u_y, and the left-out component is +-sqrt(1 - the
//! squares of the other two).
//!
//! io/McplFile.cc decodes records with this where a file allows it (uncompressed,
//! format 3, this machine's byte order) and with libmcpl's particle-by-particle
//! reading otherwise; both give the same numbers (test/io/McplFile.test.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "io/McplFile.hh"

namespace mcdose
{
//! What one record holds, from the file's header.
struct McplRecordLayout
{
    bool single_precision{true};
    bool polarisation{false};
    //! Non-zero: every particle has this weight (no weight in the records).
    double universal_weight{0};
    //! Non-zero: every particle has this PDG code (no code in the records).
    std::int32_t universal_pdg_code{0};
    bool user_flags{false};

    //! Bytes per record.
    std::size_t record_bytes() const;
};

//! Decode `count` consecutive records at `records` into `out`.
void decode_mcpl_records(McplRecordLayout const& layout, unsigned char const* records,
                         std::size_t count, McplParticle* out);
} // namespace mcdose
