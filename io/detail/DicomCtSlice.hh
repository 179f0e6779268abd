//! \file io/detail/DicomCtSlice.hh
//! One file of a DICOM CT folder as mcdose reads it: its elements found by mcdose's own walk
//! (io/DicomFileCheck.hh), the attributes a CT slice needs parsed and checked to be physical,
//! its pixels converted to HU. Internal to io/ (io/DicomSeries.cc).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "io/DicomFileCheck.hh"
#include "io/DicomReference.hh"

namespace mcdose::detail
{
//! The attributes of a CT image file (PS3.3 C.7.6.2, C.7.6.3, C.8.2.1) as stored.
struct DicomCtSlice
{
    DicomFileElements file;
    std::string modality;                                    //!< (0008,0060)
    std::string series_uid;                                  //!< (0020,000E)
    std::string frame_uid;                                   //!< (0020,0052)
    std::string photometric;                                 //!< (0028,0004)
    unsigned rows{0}, columns{0};                            //!< (0028,0010), (0028,0011)
    long long frames{1};                                     //!< (0028,0008), 1 when absent
    unsigned samples{1};                                     //!< (0028,0002)
    unsigned bits_allocated{0}, bits_stored{0}, high_bit{0}; //!< (0028,0100..0102)
    unsigned representation{0}; //!< (0028,0103): 0 unsigned, 1 two's complement
    //! Pixel Spacing (0028,0030) as stored: between rows (y), between columns (x) [mm].
    std::array<double, 2> pixel_spacing_mm{};
    std::array<double, 6> orientation{}; //!< Image Orientation (Patient) (0020,0037)
    std::array<double, 3> position_mm{}; //!< Image Position (Patient) (0020,0032)
    double slope{1}, intercept{0};       //!< (0028,1053), (0028,1052)
    double thickness_mm{
        0}; //!< Spacing Between Slices (0018,0088), else Slice Thickness (0018,0050); 0 if absent
    bool has_rows{false};   //!< Rows present: an image (its Pixel Data required)
    bool has_pixels{false}; //!< Pixel Data (7FE0,0010) present
    bool has_spacing{false}, has_orientation{false}, has_position{false}; //!< present

    //! The normal (row direction x column direction) of the orientation.
    std::array<double, 3> normal() const;
};

//! Parse the CT attributes of `file`. Throws RuntimeError naming `what`, the file, the
//! element and its value where a number is malformed or not finite.
DicomCtSlice parse_ct_slice(DicomFileElements file, std::string const& what);

//! Throw RuntimeError naming `what`, the file, the element and the fix where the slice is
//! not a physical single-frame CT image: Modality not CT, Pixel Data missing or of the
//! wrong length, Pixel Spacing not > 0, orientation not two orthogonal unit vectors,
//! Rescale Slope zero or missing values, pixels not one 8-, 16- or 32-bit sample.
void check_ct_slice(DicomCtSlice const& slice, std::string const& what);

//! Throw RuntimeError naming `what`, both files and both values where `slice` does not
//! agree with `first` of the same series (size, pixel format, spacing, orientation, Frame of
//! Reference, Modality).
void check_slices_agree(DicomCtSlice const& first, DicomCtSlice const& slice,
                        std::string const& what);

//! The slice's rows x columns values in HU (slope x stored + intercept), rows after one
//! another, written to `hu`. Throws RuntimeError naming the file where its pixels cannot be
//! read or decoded.
void read_ct_slice_hu(DicomCtSlice const& slice, std::string const& what, double* hu);

//! The patient, study and frame of reference of `slice`.
DicomReference dicom_reference(DicomCtSlice const& slice);
} // namespace mcdose::detail
