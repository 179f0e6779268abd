//! \file io/DicomValue.hh
//! Text values of DICOM elements as files store them (no third-party headers).
#pragma once

#include <string>

namespace mcdose
{
//! A DICOM value without its padding: DICOM pads values to an even length
//! (UIDs with NUL, text with spaces), and text may carry leading spaces.
std::string trim_dicom_value(std::string s);
} // namespace mcdose
