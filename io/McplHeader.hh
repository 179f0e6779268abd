//! \file io/McplHeader.hh
//! The header of an MCPL file, read and checked by mcdose before libmcpl or the record
//! decoder sees the file (Kittelmann et al., Comput. Phys. Commun. 218 (2017) 17,
//! section 2): "MCPL", the format version ("002" or "003"), the byte order ('L' or
//! 'B'), the particle count (uint64), eight uint32 (comments, blobs, user flags,
//! polarisation, single precision, universal PDG code, particle size, universal weight
//! present), the universal weight (double, if present), then the source name, the
//! comments, the blob keys (each a uint32 length and its bytes) and the blobs (the same).
//!
//! Every count and size is checked against the bytes there are before anything is
//! allocated from it: a claimed count of strings needs 4 bytes each, a string's length
//! fits in what is left, the header is at most max_mcpl_header_bytes, the flags are 0
//! or 1 and the particle size is the one the flags give. The particle count is then
//! checked against the file's length (mcpl_particle_count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/McplRecords.hh"

namespace mcdose
{
//! The largest header mcdose reads (source name, comments and blobs together).
inline constexpr std::uint64_t max_mcpl_header_bytes = std::uint64_t(64) << 20;
//! The most comments and blobs together that mcdose reads from a header.
inline constexpr std::uint64_t max_mcpl_header_strings = std::uint64_t(1) << 16;

//! A checked MCPL header.
struct McplHeader
{
    unsigned version{3};
    std::uint64_t particles{0}; //!< as the header claims (0: also an unclosed file)
    McplRecordLayout layout;
    std::uint32_t particle_bytes{0}; //!< bytes per record, as stored (= layout's)
    std::uint64_t header_bytes{0};   //!< where the first record starts
    std::string source_name;
    std::vector<std::string> comments;
    std::vector<std::pair<std::string, std::string>> blobs; //!< key, data
};

/*!
 * Reads `n` bytes of the header into `to`; returns how many there were (fewer only at
 * the end of the file or stream).
 */
using McplByteSource = std::function<std::size_t(void* to, std::size_t n)>;

/*!
 * Read and check a header from `source`. `file_bytes` is the file's length where it is
 * known (an uncompressed file), or 0 (a compressed stream: then only
 * max_mcpl_header_bytes bounds the header). Throws RuntimeError "<path>: <what is
 * wrong>; <the fix>" for anything libmcpl would crash, abort or allocate on.
 */
McplHeader read_mcpl_header(McplByteSource const& source, std::uint64_t file_bytes,
                            std::string const& path);

/*!
 * The particles to read from an uncompressed file of `file_bytes` with header `h`: the
 * header's count where the records fill the file exactly. Otherwise (a file never closed
 * by its writer, whose count is 0; a truncated file; data after the records) the file is
 * refused naming the fix, unless `recover`: then the whole records there are are read.
 */
std::uint64_t mcpl_particle_count(McplHeader const& h, std::uint64_t file_bytes, bool recover,
                                  std::string const& path);

//! The primary histories recorded in the header (a comment "mcdose primary histories:
//! N" or a blob of key mcdose_primary_histories holding N in decimal), 0 if none.
//! Throws RuntimeError naming the file if the record is not a positive integer (a record
//! left blank by its writer counts as none).
std::uint64_t mcpl_primary_histories(McplHeader const& h, std::string const& path);

//! The comment that records the primary histories (what mcpl_primary_histories reads).
std::string mcpl_primary_histories_comment(std::uint64_t histories);
} // namespace mcdose
