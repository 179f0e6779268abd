//! \file io/ImageIO.hh
//! Reading and writing 3D scalar images through ITK (MetaImage .mha/.mhd,
//! NRRD .nrrd/.nhdr, NIfTI .nii/.nii.gz, DICOM series).
//!
//! Lengths on disk are in mm (the convention of DICOM, ITK and 3D Slicer);
//! GridGeometry is in cm. Spacing, origin and direction are kept, so an image
//! written with the geometry of an input CT overlays on it.
//! ITK headers stay in io/ (ImageIO.cc, DicomSeries.cc, ImageFileCheck.cc, detail/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Assert.hh"
#include "core/GridGeometry.hh"
#include "core/Span.hh"
#include "io/DicomReference.hh"
#include "io/MetaImageWriter.hh"

namespace mcdose
{
//! A scalar image read from disk.
struct ScalarImage
{
    GridGeometry geometry;      //!< [cm]
    std::vector<double> values; //!< one per voxel, i fastest
    std::string pixel_type;     //!< component type on disk ("short", "float", ...)
    bool integer_pixels{false}; //!< the pixel type on disk is an integer type
    //! Patient, study and frame of reference of a DICOM series (empty UIDs for other
    //! formats); structure sets are checked against its frame (io/RtStructFile.hh).
    DicomReference dicom;
    //! Files of a DICOM folder that were not read as slices, each named with why (another
    //! series, not DICOM, not an image, not a regular file).
    std::vector<std::string> notes;
    //! What the header says the values are (MetaImage Comment, NIfTI descrip, NRRD
    //! key ITK_FileNotes), e.g. "mcdose: dose to medium [Gy]"; empty where it says nothing.
    std::string description;
};

//! The choice of DICOM series is missing or wrong: several series in the
//! folder and no `dicom_series_uid`, a uid that is not in the folder, or a uid
//! given with an image file. The fix belongs in `dicom_series_uid`.
class DicomSeriesChoiceError : public RuntimeError
{
  public:
    using RuntimeError::RuntimeError;
};

//! Read a 3D (or 2D, as one slice) single-component image. `path` is a file,
//! or a directory holding a DICOM CT series (rescale slope/intercept applied,
//! so values are HU; slices ordered by their position along the normal of
//! their orientation). With several series in the directory,
//! `dicom_series_uid` chooses one: the Series Instance UID (0020,000E) as
//! written in the files (or, when one UID holds volumes of different size,
//! slice thickness or series number, the identifier the error lists).
//! Throws RuntimeError naming the path and the problem (missing file, unknown
//! format, vector/complex pixels, 4D, slices that do not form a regular grid,
//! ...), DicomSeriesChoiceError for the series choice.
ScalarImage read_scalar_image(std::string const& path, std::string const& dicom_series_uid = {});

//! Image formats that can be written (single-file formats only, so that the
//! write is atomic).
bool is_writable_image_path(std::string const& path);

//! Write values (i fastest) with `geometry` to .mha, .nrrd, .nii or .nii.gz,
//! compressed, through a temporary file renamed on success (core/AtomicFile).
//! `description` (one line; NIfTI keeps 79 characters) goes into the header where each
//! format has room for it: MetaImage Comment, NIfTI descrip, NRRD key ITK_FileNotes.
void write_image(std::string const& path, GridGeometry const& geometry, Span<float const> values,
                 std::string const& description = {});
//! Integer labels (material indices), same conventions.
void write_image(std::string const& path, GridGeometry const& geometry,
                 Span<std::uint16_t const> values);
//! Values given by `fill` (called from several threads for disjoint ranges): a
//! MetaImage is filled and deflated piece by piece without a whole-grid buffer
//! (io/MetaImageWriter.hh); the other formats are filled into one first.
void write_image(std::string const& path, GridGeometry const& geometry,
                 ImageFill<float> const& fill, std::string const& description = {});
} // namespace mcdose
