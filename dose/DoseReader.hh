//! \file dose/DoseReader.hh
//! Read a dose grid for comparison: an mcdose HDF5 result, an image
//! (MetaImage, NRRD, NIfTI) or a DICOM RT Dose, with its unit where the file
//! records one.
#pragma once

#include <string>
#include <vector>

#include "core/GridGeometry.hh"

namespace mcdose
{
//! A dose distribution on a grid.
struct DoseGrid
{
    GridGeometry geometry;      //!< [cm]
    std::vector<double> values; //!< one per voxel, i fastest
    //! "Gy", "Gy per source particle", "relative", or "" when the file does
    //! not say (images carry no unit).
    std::string units;
    //! "dose to medium", "dose to water", or "" when the file does not say (images, RT
    //! Doses of other programs, mcdose files older than the `dose_to` attribute).
    std::string quantity;
    std::string source; //!< what was read, for messages: "<path> (dataset dose_Gy)"
    //! Mass density per voxel [g/cm3] (mcdose result files), else empty: what the body
    //! outline is found from.
    std::vector<double> density_g_cm3;
};

//! Read `path` by its content and extension: `.h5` (dataset `dose_Gy` when
//! present, else `dose`), a DICOM file (RT Dose, DoseType PHYSICAL or
//! EFFECTIVE), `.mha`/`.nrrd`/`.nii`/`.nii.gz`. Throws RuntimeError naming the
//! file and the problem (missing file, unknown format, no dose dataset).
DoseGrid read_dose_grid(std::string const& path);

//! Whether two unit strings can be compared ("" is compatible with any).
bool compatible_dose_units(std::string const& a, std::string const& b);
} // namespace mcdose
