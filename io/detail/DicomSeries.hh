//! \file io/detail/DicomSeries.hh
//! A DICOM CT series read from its folder (io/DicomSeries.cc, for read_scalar_image).
//! Internal to io/.
#pragma once

#include <string>

#include "io/ImageIO.hh"

namespace mcdose::detail
{
//! The series `series_uid` (or the folder's only one) of the DICOM folder `dir`, as
//! read_scalar_image documents (io/ImageIO.hh).
ScalarImage read_dicom_series(std::string const& dir, std::string const& series_uid);
} // namespace mcdose::detail
