//! \file dose/RtDose.hh
//! DICOM RT Dose files (SOP Class 1.2.840.10008.5.1.4.1.1.481.2, written and
//! read through io/DicomDataSet.hh, GDCM's thin typed adapter).
//!
//! A run writes two instances of one RT Dose series: the dose (DoseType
//! PHYSICAL) and its 1-sigma statistical uncertainty as an absolute dose
//! (DoseType ERROR, "an estimate of error" in DICOM PS3.3 C.8.8.3). Pixels
//! are unsigned 16- or 32-bit integers (RtDoseOptions) times DoseGridScaling,
//! the scaling chosen so that the largest value uses the whole range. DoseUnits is GY when the
//! sources give their particle count (the dose is then absolute), else
//! RELATIVE, and the values are then Gy per source particle (said in
//! DoseComment). The grid is the phantom's: ImagePositionPatient is the
//! centre of the first voxel, GridFrameOffsetVector starts at 0 (relative to
//! it) and runs along the slice normal (row direction x column direction).
//! When the phantom came from a DICOM CT series the files carry its patient,
//! study and frame of reference (so that viewers overlay them on the CT);
//! otherwise new UIDs are made.
#pragma once

#include <string>
#include <vector>

#include "core/GridGeometry.hh"
#include "dose/DoseData.hh"
#include "io/DicomReference.hh"

namespace mcdose
{
//! Largest grid one RT Dose file of `bits_allocated`-bit pixels (16 or 32) holds: its Pixel
//! Data's length is an even 32-bit count below 0xFFFFFFFF (PS3.5 7.1.1, undefined length),
//! so n x bits / 8 <= 2^32 - 2: n < 2^30 voxels of 32 bits, n < 2^31 of 16 bits.
inline constexpr size_type max_rt_dose_voxels(int bits_allocated)
{
    return ((size_type(1) << 32) - 2) / size_type(bits_allocated / 8);
}
//! Rows and Columns are unsigned 16-bit.
inline constexpr int max_rt_dose_rows = 65535;

//! How the RT Dose files are written.
struct RtDoseOptions
{
    //! Bits Allocated (= Bits Stored) of the unsigned pixels: 16 (the default: every DICOM
    //! reader and checker takes them; the step is 1/65535 of the file's maximum) or 32 (a
    //! step of 1/(2^32 - 1)).
    int bits_allocated{16};
    //! SOP Instance UID of the RT Plan the dose belongs to ("": none referenced).
    std::string referenced_plan_uid;
};

//! The two files of write_rt_dose.
struct RtDosePaths
{
    std::string dose;        //!< DoseType PHYSICAL
    std::string uncertainty; //!< DoseType ERROR (absolute 1-sigma)
};

//! Write the dose and its uncertainty, each through a temporary file renamed
//! on success (the whole file is built in memory first). DICOM requires an
//! RT Dose of DoseSummationType PLAN to reference its RT Plan (Referenced RT
//! Plan Sequence, type 1C); a run has one only when the user names it
//! (`referenced_plan_uid`, its SOP Instance UID), and the sequence is
//! otherwise left out: the one attribute such a file lacks. DoseGridScaling maps each file's
//! largest value to the largest pixel (2^bits - 1): a value is off by at most half a step,
//! maximum / (2 (2^bits - 1)).
void write_rt_dose(RtDosePaths const& paths, DoseGridData const& data, RunMetadata const& meta,
                   RtDoseOptions const& options = {});

//! An RT Dose read back: the grid and the values in its DoseUnits.
struct RtDoseGrid
{
    GridGeometry geometry;      //!< [cm]
    std::vector<double> values; //!< pixel * DoseGridScaling, i fastest
    std::string dose_units;     //!< "GY" or "RELATIVE"
    std::string dose_type;      //!< PHYSICAL, EFFECTIVE or ERROR
    std::string dose_comment;   //!< DoseComment (mcdose states its RELATIVE unit there)
    DicomReference reference;   //!< patient, study and frame of reference
};

//! Read a single-file RT Dose (any transfer syntax GDCM decodes, 16- or
//! 32-bit pixels). Throws RuntimeError naming the file and the problem (not
//! RT Dose, no grid, frames not evenly spaced, ...).
RtDoseGrid read_rt_dose(std::string const& path);

//! Whether `path` is a DICOM file (preamble and "DICM"), without parsing it.
bool is_dicom_file(std::string const& path);
} // namespace mcdose
