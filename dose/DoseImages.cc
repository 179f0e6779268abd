//! \file dose/DoseImages.cc
#include "dose/DoseImages.hh"

#include <utility>

#include "core/Assert.hh"
#include "io/ImageIO.hh"

namespace mcdose
{
std::vector<std::string> write_dose_images(std::string const& stem, std::string const& extension,
                                           DoseGridData const& data,
                                           std::optional<double> source_particles)
{
    auto const dose = dose_gy_per_particle(data);
    auto const rel = relative_uncertainty(data);
    double const scale = source_particles ? *source_particles : 1.0;
    // Images are float: 7 significant digits are ample for display and overlay.
    std::vector<float> values(dose.size());
    for (size_type v = 0; v < dose.size(); ++v)
        values[v] = static_cast<float>(dose[v] * scale);
    std::string const dose_path = stem + "_dose." + extension;
    MCDOSE_VALIDATE(is_writable_image_path(dose_path),
                    << "image format '" << extension << "' is not supported; use mha, nrrd or nii");
    write_image(dose_path, data.geometry, make_span(std::as_const(values)));
    for (size_type v = 0; v < rel.size(); ++v)
        values[v] = static_cast<float>(rel[v]);
    std::string const unc_path = stem + "_uncertainty." + extension;
    write_image(unc_path, data.geometry, make_span(std::as_const(values)));
    return {dose_path, unc_path};
}
} // namespace mcdose
