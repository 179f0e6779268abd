//! \file io/Deflate.hh
//! Deflate for the dose files (HDF5 chunks, MetaImage pieces) that gives up early on data
//! that hardly compress: the input is deflated in steps of 64 KiB, and from the first step
//! whose output exceeds half its input on (noisy doubles deflate by about 5 %, at about
//! 40 MB/s on one core, where runs of zeros go at 400-600 MB/s) the rest is stored
//! (deflate's level 0: stored blocks, at copying speed). Data made mostly of runs of one
//! repeated element (`element` bytes: a dose grid where most voxels got nothing) are
//! written by a run encoder instead, which starts a run by copying the last run of its
//! element where deflate's window reaches it (on one core of the development machine, a
//! 512 x 512 slice of doubles of which 2-2.5 % are not zero: 3.3-3.7 against zlib's 0.6 GB/s
//! at level 1, its output about a fifth larger than zlib's). Either way the result is
//! one valid deflate stream, so any inflate reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mcdose
{
//! A zlib stream (header, deflate data, Adler-32) of [data, data + size) at `level`:
//! the format of HDF5's deflate filter.
std::vector<unsigned char> deflate_zlib(void const* data, std::size_t size, int level,
                                        std::size_t element = 1);

//! `count` copies of the element at `bytes`.
struct ElementRun
{
    unsigned char const* bytes;
    std::size_t count;
};

/*!
 * deflate_zlib of the elements (of `element` bytes) that `runs` spell in order, made from
 * the runs without the elements themselves (a dose slice from its voxels with energy and
 * the gaps between them): the same bytes at any level where runs of one element cover 3/4
 * of them (the run encoder's case; neighbouring runs of the same element are joined);
 * nullopt where they do not, and then the elements are to be deflated themselves.
 */
std::optional<std::vector<unsigned char>> deflate_zlib_runs(std::vector<ElementRun> const& runs,
                                                            std::size_t element);

//! One piece of a stream deflated piece by piece (as pigz does): raw deflate data and the
//! Adler-32 sum of its input (adler32_combine joins them).
struct DeflatedPiece
{
    std::vector<unsigned char> bytes;
    std::uint32_t adler{1};
};

//! [data, data + size) at `level` as such a piece, ending with a sync flush (byte aligned,
//! not final) unless `last`, whose final block closes the stream.
DeflatedPiece deflate_raw_piece(void const* data, std::size_t size, int level, bool last,
                                std::size_t element = 1);
} // namespace mcdose
