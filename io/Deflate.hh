//! \file io/Deflate.hh
//! Deflate for the dose files (HDF5 chunks, MetaImage pieces) that gives up early on data
//! that hardly compress: the input is deflated in steps of 64 KiB, and from the first step
//! whose output exceeds half its input on (noisy doubles deflate by about 5 %, at about
//! 40 MB/s on one core, where runs of zeros go at 400-600 MB/s) the rest is stored
//! (deflate's level 0: stored blocks, at copying speed). The stream stays one valid
//! deflate stream, so any inflate reads it.
#pragma once

#include <cstddef>
#include <vector>

namespace mcdose
{
//! A zlib stream (header, deflate data, Adler-32) of [data, data + size) at `level`:
//! the format of HDF5's deflate filter.
std::vector<unsigned char> deflate_zlib(void const* data, std::size_t size, int level);

//! Raw deflate data of [data, data + size) at `level`, ending with a sync flush (byte
//! aligned, not final) unless `last`, whose final block closes the stream: one piece of
//! a stream deflated piece by piece (as pigz does).
std::vector<unsigned char> deflate_raw_piece(void const* data, std::size_t size, int level,
                                             bool last);
} // namespace mcdose
