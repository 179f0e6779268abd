//! \file dose/DoseImages.cc
#include "dose/DoseImages.hh"

#include <utility>

#include "core/Assert.hh"
#include "io/ImageIO.hh"

namespace mcdose
{
char const* to_cstring(ImageFormat f)
{
    switch (f)
    {
    case ImageFormat::mha:
        return "mha";
    case ImageFormat::nrrd:
        return "nrrd";
    case ImageFormat::nii:
        return "nii";
    case ImageFormat::none:
        return "none";
    }
    return "?";
}

ImageFormat to_image_format(std::string const& name)
{
    for (ImageFormat f : {ImageFormat::mha, ImageFormat::nrrd, ImageFormat::nii, ImageFormat::none})
    {
        if (name == to_cstring(f))
            return f;
    }
    MCDOSE_VALIDATE(false, << "unknown image format '" << name
                           << "'; use 'mha', 'nrrd', 'nii' or 'none'");
    return ImageFormat::none;
}

std::string dose_image_description(std::string const& quantity, std::string const& unit)
{
    return "mcdose: " + quantity + " [" + unit + "]";
}

std::pair<std::string, std::string> parse_dose_image_description(std::string const& text)
{
    std::string const prefix = "mcdose: ";
    auto const open = text.rfind(" [");
    if (text.rfind(prefix, 0) != 0 || open == std::string::npos || open < prefix.size() ||
        text.back() != ']')
        return {};
    return {text.substr(prefix.size(), open - prefix.size()),
            text.substr(open + 2, text.size() - open - 3)};
}

std::vector<std::string> write_dose_images(std::string const& stem, std::string const& extension,
                                           DoseGridData const& data,
                                           std::optional<double> source_particles,
                                           std::string const& quantity)
{
    validate_dose_data(data);
    double const scale = source_particles ? *source_particles : 1.0;
    // Images are float: 7 significant digits are ample for display and overlay. Each is
    // filled from the final grids piece by piece as it is written (io/ImageIO.hh), the
    // voxels without energy by the energy mask where the data carry one.
    auto filled = [&data](double empty, auto value_of)
    {
        return [&data, empty, value_of](size_type begin, size_type end, float* out)
        { fill_voxel_values(data, begin, end, out, static_cast<float>(empty), value_of); };
    };
    std::string const dose_path = stem + "_dose." + extension;
    MCDOSE_VALIDATE(is_writable_image_path(dose_path),
                    << "image format '" << extension << "' is not supported; use mha, nrrd or nii");
    write_image(
        dose_path, data.geometry,
        filled(dose_without_energy * scale,
               [&](size_type v) { return voxel_dose_gy_per_particle(data, v) * scale; }),
        dose_image_description(quantity, source_particles ? "Gy" : "Gy per source particle"));
    std::string const unc_path = stem + "_uncertainty." + extension;
    write_image(
        unc_path, data.geometry,
        filled(relative_uncertainty_without_energy,
               [&](size_type v) { return voxel_relative_uncertainty(data, v); }),
        dose_image_description("relative uncertainty (1 sigma) of the " + quantity, "relative"));
    return {dose_path, unc_path};
}

std::vector<std::string> write_dose_images(std::string const& stem, ImageFormat format,
                                           DoseGridData const& data,
                                           std::optional<double> source_particles,
                                           std::string const& quantity)
{
    MCDOSE_EXPECT(format != ImageFormat::none);
    return write_dose_images(stem, std::string(to_cstring(format)), data, source_particles,
                             quantity);
}
} // namespace mcdose
