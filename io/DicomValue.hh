//! \file io/DicomValue.hh
//! Text values of DICOM elements as files store them (no third-party headers).
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
//! A DICOM value without its padding: DICOM pads values to an even length
//! (UIDs with NUL, text with spaces), and text may carry leading spaces.
std::string trim_dicom_value(std::string s);

//! The numbers of a DS or IS value with multiplicity ("1.5\\-2\\3", each item padded or not);
//! empty text gives none. An empty, malformed or non-finite item is refused:
//! "<where>: '<item>' is not a finite decimal number; <fix>".
std::vector<double> dicom_decimals(std::string const& text, std::string const& where,
                                   std::string const& fix = "export the file again");
} // namespace mcdose
