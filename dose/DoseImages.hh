//! \file dose/DoseImages.hh
//! Dose and uncertainty images (MetaImage, NRRD or NIfTI through ITK, via
//! phantoms/ImageIO) with the geometry of the phantom, so that they overlay on
//! the input CT in 3D Slicer (lengths on disk in mm).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dose/DoseData.hh"

namespace mcdose
{
//! The dose and uncertainty images of a run (study JSON outputs.image_format).
enum class ImageFormat
{
    mha,  //!< MetaImage
    nrrd, //!< NRRD
    nii,  //!< NIfTI-1
    none  //!< no images
};
//! "mha", "nrrd", "nii" or "none": the study's spelling, and the images' file extension.
char const* to_cstring(ImageFormat f);
//! Parse "mha|nrrd|nii|none" (throws RuntimeError naming the choices).
ImageFormat to_image_format(std::string const& name);

//! Write `<stem>_dose.<ext>` (Gy per source particle, or Gy when
//! `source_particles` is given) and `<stem>_uncertainty.<ext>` (relative,
//! 1 sigma); `extension` is mha, nrrd, nii or nii.gz. Each header says what its values
//! are, `quantity` and unit ("mcdose: dose to medium [Gy]"), which read_dose_grid reads
//! back. Returns the paths.
std::vector<std::string> write_dose_images(std::string const& stem, std::string const& extension,
                                           DoseGridData const& data,
                                           std::optional<double> source_particles,
                                           std::string const& quantity = "dose to medium");
//! The same with the extension of `format` (not ImageFormat::none).
std::vector<std::string> write_dose_images(std::string const& stem, ImageFormat format,
                                           DoseGridData const& data,
                                           std::optional<double> source_particles,
                                           std::string const& quantity = "dose to medium");

//! The header description of a dose image: "mcdose: dose to medium [Gy]".
std::string dose_image_description(std::string const& quantity, std::string const& unit);
//! Quantity and unit of a description dose_image_description wrote (both empty otherwise).
std::pair<std::string, std::string> parse_dose_image_description(std::string const& text);
} // namespace mcdose
