//! \file io/DicomPixelData.hh
//! Whether a DICOM file holds all of its Pixel Data: GDCM reads a file cut short inside its
//! pixels without an error, the missing bytes as zeros (a CT slice then holds a block of 0
//! HU: soft tissue where there was air or bone). No third-party headers.
#pragma once

#include <string>

namespace mcdose
{
/*!
 * Throw RuntimeError when the Pixel Data (7FE0,0010) of the DICOM file `path` is cut short:
 * a value of defined length running past the file's end, or encapsulated (compressed)
 * fragments running past it or ending without their sequence delimiter. The message names
 * `what` (e.g. "the DICOM series ... in '...'"), the file, and the bytes there against the
 * bytes announced. Files without Pixel Data, deflated files and files whose Pixel Data
 * element GDCM cannot locate are left to the reader.
 */
void check_dicom_pixel_data_complete(std::string const& path, std::string const& what);
} // namespace mcdose
