//! \file io/DicomFileCheck.hh
//! Whether a DICOM file is whole, checked before GDCM reads it. GDCM reads a file cut short
//! inside its pixels without an error, the missing bytes as zeros (a CT slice then holds a
//! block of 0 HU: soft tissue where there was air or bone), and stops the process (an
//! assertion) on a file cut short inside an element's header. No third-party headers.
#pragma once

#include <string>

namespace mcdose
{
/*!
 * Throw RuntimeError when the DICOM file `path` (a Part 10 file: preamble and "DICM") is cut
 * short: the file ends inside an element's header, an element's value of defined length
 * runs past the end, or a sequence, an item or encapsulated (compressed) Pixel Data of
 * undefined length ends without its delimiter (PS3.5 sections 7.1 and 7.5, A.4). The message
 * names `what` (e.g. "RT Dose"), the file and, for a value, the bytes there against the bytes
 * announced. Only the elements' headers are read. Files without the "DICM" prefix, deflated
 * data sets and bytes that are not DICOM elements are left to the reader.
 */
void check_dicom_file_complete(std::string const& path, std::string const& what);
} // namespace mcdose
