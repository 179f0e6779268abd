//! \file io/RtStructFile.hh
//! Reading a DICOM RT Structure Set (RTSTRUCT): the regions of interest by
//! name, each a list of closed planar contours in patient coordinates, and the
//! Frame of Reference UID the contours are given in. GDCM stays in the .cc file.
//!
//! Lengths are in mm, as DICOM stores them; rasterising the contours onto a
//! dose grid is done in phantoms/StructureMask.hh.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace mcdose
{
//! One closed planar contour (Contour Data (3006,0050)) [mm].
struct RtContour
{
    std::vector<std::array<double, 3>> points_mm;
};

//! One region of interest: Structure Set ROI Sequence item with its contours.
struct RtRoi
{
    int number{0};                   //!< ROI Number (3006,0022)
    std::string name;                //!< ROI Name (3006,0026)
    std::string frame_uid;           //!< Referenced Frame of Reference UID (3006,0024)
    std::vector<RtContour> contours; //!< CLOSED_PLANAR contours only
    int skipped_contours{0};         //!< POINT / OPEN_PLANAR / OPEN_NONPLANAR contours, not areas
};

//! A whole structure set.
struct RtStructureSet
{
    std::string path;
    std::string
        frame_of_reference_uid; //!< Frame of Reference UID (0020,0052) or the referenced one
    std::vector<std::string> referenced_series_uids; //!< the CT series it was drawn on
    std::vector<RtRoi> rois;

    //! The ROI called `name` (exact match), or nullptr.
    RtRoi const* find(std::string const& name) const;
    //! All ROI names, comma separated (for messages).
    std::string names() const;
};

//! Read an RT Structure Set file. Throws RuntimeError naming the path when the
//! file is not DICOM, is not an RT Structure Set (Modality RTSTRUCT / SOP
//! Class 1.2.840.10008.5.1.4.1.1.481.3), or a contour's point count and data
//! disagree.
RtStructureSet read_rt_structure_set(std::string const& path);
} // namespace mcdose
