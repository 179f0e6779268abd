//! \file io/MetaImageWriter.hh
//! MetaImage (.mha: header and data in one file) written without ITK: the header
//! fields ITK's MetaIO reads (geometry in mm, TransformMatrix listing each index
//! axis's direction in turn, as ITK writes it; a Comment padded so that the header,
//! written last, has the length reserved for it), the data little-endian and deflated
//! on all cores into one zlib stream (pieces of 1 MiB compressed independently and
//! joined with sync flushes, their Adler-32 sums combined, as pigz does), so any
//! inflate reads it. A write is checked call by call (a full disk is an error), not
//! by reading the file back.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/GridGeometry.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Values [begin, end) of an image (linear voxel indices, i fastest) written to `out`.
template <class T>
using ImageFill = std::function<void(size_type begin, size_type end, T* out)>;

/*!
 * Write the image of `geometry` whose values `fill` gives to the MetaImage file `path`
 * (a new file, created with O_EXCL and O_NOFOLLOW: callers stage it, core/AtomicFile.hh). Rounds of
 * a few pieces per core are filled and deflated on all cores (`fill` is called from several threads
 * at once, for disjoint ranges) and written in order: memory of a few MiB per core, none per voxel.
 */
//! `description` (one line, e.g. "mcdose: dose to medium [Gy]") is the header's Comment.
void write_metaimage(std::string const& path, GridGeometry const& geometry,
                     ImageFill<float> const& fill, std::string const& description = {});
void write_metaimage(std::string const& path, GridGeometry const& geometry,
                     ImageFill<std::uint16_t> const& fill, std::string const& description = {});
} // namespace mcdose
