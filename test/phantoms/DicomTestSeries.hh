//! \file test/phantoms/DicomTestSeries.hh
//! Synthetic DICOM CT series for tests, written at test time by ITK's
//! GDCMImageIO (one file per slice). ITK stays in the .cc file.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcdose::test
{
//! One CT series: geometry in mm (as DICOM stores it), CT numbers in HU. The
//! defaults describe the tests' common case: an 8 x 6 x 4 axial series of
//! 1.5 x 2.5 x 3 mm voxels stored as int16 with slope 0.5 and intercept -1024
//! (so half-integer HU occur).
struct DicomTestSeries
{
    std::string study_uid{"2.25.301001"};
    std::string series_uid{"2.25.301001.1"};
    int series_number{1};
    int columns{8}; //!< nx: pixels along a row (DICOM Columns)
    int rows{6};    //!< ny: rows of a slice (DICOM Rows)
    int slices{4};  //!< nz
    //! Distance between adjacent columns (x) and adjacent rows (y) [mm].
    //! DICOM's Pixel Spacing lists them the other way round (row spacing first).
    std::array<double, 2> pixel_spacing_mm{{1.5, 2.5}};
    double slice_spacing_mm{3.0};
    std::array<double, 3> row_direction{{1, 0, 0}};    //!< along a row (i)
    std::array<double, 3> column_direction{{0, 1, 0}}; //!< down a column (j)
    //! Image Position (Patient) of slice 0, the first slice along the normal
    //! row_direction x column_direction [mm].
    std::array<double, 3> first_position_mm{{-120.5, 80.25, -33.0}};
    //! Image Position (Patient) of each slice, when given: replaces the
    //! regular stacking above (for series with a missing slice or a tilt).
    std::vector<std::array<double, 3>> positions_mm;
    double rescale_slope{0.5};
    double rescale_intercept{-1024};
    bool unsigned_pixels{false}; //!< stored as uint16 (else int16)
    bool compressed{false};      //!< pixels stored JPEG lossless (encapsulated fragments)
    //! HU of voxel (i, j, k) at hu[i + columns * (j + rows * k)]; each value
    //! must be slope * n + intercept for an integer n in the stored type's range.
    std::vector<double> hu;
    //! Order in which slices are written (files are named by write position,
    //! Instance Number counts down along the normal), so that the reader must
    //! sort by position. Empty: 0, 1, 2, ...
    std::vector<int> write_order;

    std::array<double, 3> normal() const;
    //! Image Position (Patient) of slice k [mm].
    std::array<double, 3> position_mm(int k) const;
};

//! Write the series into `directory` (created if missing), one file per slice
//! named `<file_stem><n>.dcm`. Returns the paths in writing order.
std::vector<std::string> write_dicom_series(std::string const& directory,
                                            DicomTestSeries const& series,
                                            std::string const& file_stem = "slice");

//! Replace or add the top-level element (group, element) of the DICOM file `path` with value
//! representation `vr` ("DS", "US", ...) and `value`'s bytes as given (padded to an even
//! length with a space), or remove it (no value). GDCM writes the file again; nothing else
//! changes (no check that the result is consistent: the tests make it inconsistent).
void edit_dicom_element(std::string const& path, std::uint16_t group, std::uint16_t element,
                        char const* vr, std::optional<std::string> value);
//! The two bytes of a US value (little endian).
std::string us_bytes(std::uint16_t value);

//! What a DICOM file stores, read back by GDCM (independently of mcdose).
struct StoredDicomSlice
{
    std::string stored_component; //!< component type on disk ("short", "unsigned_short", ...)
    double rescale_slope{0};
    double rescale_intercept{0};
    std::string series_uid;
    std::string modality;
    std::string transfer_syntax; //!< (0002,0010)
};
StoredDicomSlice inspect_dicom_file(std::string const& path);

//! A series as ITK's own series reader reads it (GDCM's file order, values as doubles):
//! the reference for mcdose's reader.
struct ItkSeries
{
    std::array<std::size_t, 3> size{};
    std::array<double, 3> spacing_mm{};
    std::array<double, 3> origin_mm{};
    std::array<double, 9> direction{}; //!< row-major
    std::vector<double> values;
};
ItkSeries read_series_with_itk(std::string const& directory);
} // namespace mcdose::test
