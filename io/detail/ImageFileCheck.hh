//! \file io/detail/ImageFileCheck.hh
//! Whether an image file is whole before and after ITK reads it (io/ImageIO.cc): some of
//! ITK's readers read a file cut short with a warning on stderr only, or none, the missing
//! voxels left as they were. Internal to io/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <itkImageIOBase.h>

namespace mcdose::detail
{
/*!
 * A MetaImage whose data is shorter than its header promises is read by ITK
 * with a warning only, leaving the rest of the buffer uninitialised. Compare
 * the bytes the header promises (DimSize x channels x ElementType, or
 * CompressedDataSize) with the bytes the file holds after the header.
 */
void check_metaimage_complete(std::string const& path);

//! Where an image file's gzip stream starts and the bytes it must inflate to at least.
struct GzipStream
{
    std::uint64_t offset{0};
    std::uint64_t expected{0};
};

/*!
 * The gzip stream of an image whose data the NIfTI library or NRRD's reader read through
 * zlib: a .nii.gz (the header, at least 352 bytes, and the voxels in one stream) or an NRRD
 * with gzip data after its header (none for other files). Those readers report a stream cut
 * short on stderr only, or not at all, and leave the rest of the voxels as they were.
 * `io` has read the header.
 */
std::optional<GzipStream> gzip_image_stream(std::string const& path, itk::ImageIOBase const& io);

//! The image's gzip stream is whole and holds every voxel.
void check_gzip_stream(std::string const& path, GzipStream const& g);

/*!
 * An uncompressed NIfTI file holds its header (vox_offset bytes, at least
 * 352) and then the voxels; the NIfTI library reports a short read or write
 * on stderr only. `io` has read the header. (.nii.gz: check_gzip_stream.)
 */
void check_nifti_complete(std::string const& path, itk::ImageIOBase const& io);
} // namespace mcdose::detail
