//! \file io/DicomFileCheck.hh
//! Whether a DICOM file is whole, checked before GDCM reads it. GDCM reads a file cut short
//! inside its pixels without an error, the missing bytes as zeros (a CT slice then holds a
//! block of 0 HU: soft tissue where there was air or bone), and stops the process (an
//! assertion) on a file cut short inside an element's header. No third-party headers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/DicomDataSet.hh"

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

//! Where a top-level element of a DICOM data set lies in its file.
struct DicomElementAt
{
    DicomTag tag;
    std::uint64_t value_at; //!< the value's first byte
    std::uint32_t length;   //!< [bytes]; undefined_dicom_length: a sequence or encapsulated pixels
};
inline constexpr std::uint32_t undefined_dicom_length = 0xFFFFFFFFu;

//! A DICOM file's data set as the walk of check_dicom_file_complete found it.
struct DicomFileElements
{
    std::string path;
    std::string transfer_syntax;          //!< (0002,0010)
    bool big_endian{false};               //!< values in big-endian byte order (1.2.840.10008.1.2.2)
    std::uint64_t file_size{0};           //!< [bytes]
    std::vector<DicomElementAt> elements; //!< top level, in file order
    //! The values of at most 1 KiB of the top-level elements, by (group << 16 | element).
    std::map<std::uint32_t, std::string> values;

    //! The element `tag` at the top level, or nullptr.
    DicomElementAt const* find(DicomTag tag) const;
    //! A text value without its padding; "" when absent.
    std::string text(DicomTag tag) const;
    //! An unsigned 16-bit value (US); none when absent or not two bytes long.
    std::optional<std::uint16_t> us(DicomTag tag) const;
};

/*!
 * The top-level elements of the DICOM file `path`; none when it is not a Part 10 file (no
 * "DICM" at byte 128). Throws RuntimeError naming `what` and the file where it is cut short
 * (as check_dicom_file_complete), deflated, or where its bytes are not DICOM elements.
 */
std::optional<DicomFileElements> read_dicom_elements(std::string const& path,
                                                     std::string const& what);

/*!
 * Throw RuntimeError naming `what`, the file and both numbers when the Pixel Data of
 * `file` (native, not encapsulated) does not hold Rows x Columns x frames x samples x
 * Bits Allocated / 8 bytes (PS3.5 8.1.1; an odd count padded by one byte): a wrong Rows or
 * Columns, or Number of Frames lower than the data. Files without Pixel Data pass.
 */
void check_dicom_pixel_length(DicomFileElements const& file, std::string const& what);
} // namespace mcdose
