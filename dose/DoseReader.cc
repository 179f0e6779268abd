//! \file dose/DoseReader.cc
#include "dose/DoseReader.hh"

#include <cstdint>
#include <filesystem>
#include <tuple>
#include <vector>

#include "core/Assert.hh"
#include "dose/DoseImages.hh"
#include "dose/RtDose.hh"
#include "io/Hdf5File.hh"
#include "io/ImageIO.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
bool ends_with(std::string const& s, std::string const& suffix)
{
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

//! A double attribute array of `n` values (the grid attributes of DoseHdf5.hh).
void read_attr_doubles(Hdf5Object const& obj, char const* name, double* out, std::size_t n,
                       std::string const& what)
{
    MCDOSE_VALIDATE(obj.has_attr(name), << what << " has no attribute '" << name
                                        << "'; it was not written by mcdose (give an mcdose "
                                           "result file, an image or an RT Dose)");
    std::size_t const size = obj.attr_size(name);
    MCDOSE_VALIDATE(size == n, << what << ": attribute '" << name << "' has " << size
                               << " values, expected " << n);
    obj.read_attr_doubles(name, out);
}

DoseGrid read_hdf5_dose(std::string const& path)
{
    DoseGrid out;
    try
    {
        Hdf5File const file = Hdf5File::open_read_only(path);
        bool const absolute = file.has_link("dose_Gy");
        char const* name = absolute ? "dose_Gy" : "dose";
        MCDOSE_VALIDATE(absolute || file.has_link("dose"),
                        << "'" << path
                        << "' has no dataset 'dose' or 'dose_Gy'; give an mcdose result file");
        out.source = path + " (dataset " + name + ")";
        Hdf5Dataset const ds = file.open_dataset(name);
        std::vector<std::uint64_t> const dims = ds.dims();
        MCDOSE_VALIDATE(dims.size() == 3,
                        << out.source << " is not a 3D dataset; give an mcdose result file");
        GridGeometry& g = out.geometry;
        g.dims = {{int(dims[2]), int(dims[1]), int(dims[0])}};
        read_attr_doubles(ds, "spacing_cm", g.spacing_cm.v, 3, out.source);
        read_attr_doubles(ds, "origin_cm", g.origin_cm.v, 3, out.source);
        read_attr_doubles(ds, "direction", g.direction, 9, out.source);
        out.values.resize(g.num_voxels());
        ds.read_doubles(out.values.data());
        out.units = absolute ? "Gy" : "Gy per source particle";
        if (file.has_attr("dose_to"))
            out.quantity = "dose to " + file.read_attr_string("dose_to");
        if (file.has_link("density"))
        {
            Hdf5Dataset const density = file.open_dataset("density");
            MCDOSE_VALIDATE(density.dims() == dims, << path << " (dataset density) is not on the "
                                                    << "dose grid; give an mcdose result file");
            out.density_g_cm3.resize(g.num_voxels());
            density.read_doubles(out.density_g_cm3.data());
        }
    }
    catch (Hdf5Error const& e)
    {
        MCDOSE_VALIDATE(false, << "cannot read '" << path << "' as HDF5: " << e.detail()
                               << "; give an mcdose result file (.h5)");
    }
    validate_geometry(out.geometry, out.source.c_str());
    return out;
}

DoseGrid read_rt_dose_grid(std::string const& path)
{
    RtDoseGrid rt = read_rt_dose(path);
    MCDOSE_VALIDATE(rt.dose_type != "ERROR",
                    << "'" << path
                    << "' holds an uncertainty (DoseType ERROR), not a dose; compare the dose "
                       "files (DoseType PHYSICAL or EFFECTIVE)");
    DoseGrid out;
    out.geometry = rt.geometry;
    out.values = std::move(rt.values);
    out.source = path + " (RT Dose, DoseUnits " + rt.dose_units + ")";
    if (rt.dose_units == "GY")
        out.units = "Gy";
    else if (rt.dose_comment.find("Gy per source particle") != std::string::npos)
        out.units = "Gy per source particle"; // mcdose's RELATIVE (dose/RtDose.hh)
    else
        out.units = "relative";
    // mcdose's comment starts with the quantity (dose/RtDose.cc).
    for (char const* q : {"dose to medium", "dose to water"})
    {
        if (rt.dose_comment.rfind(q, 0) == 0)
            out.quantity = q;
    }
    return out;
}
} // namespace

DoseGrid read_dose_grid(std::string const& path)
{
    std::error_code ec;
    MCDOSE_VALIDATE(fs::exists(path, ec),
                    << "dose file '" << path << "' does not exist; check the path");
    MCDOSE_VALIDATE(fs::is_regular_file(path, ec),
                    << "'" << path
                    << "' is not a regular file; give a dose file (.h5, .mha, "
                       ".nrrd, .nii, or a DICOM RT Dose)");
    if (ends_with(path, ".h5") || ends_with(path, ".hdf5"))
        return read_hdf5_dose(path);
    if (is_dicom_file(path))
        return read_rt_dose_grid(path);
    MCDOSE_VALIDATE(is_writable_image_path(path),
                    << "'" << path
                    << "' is not a dose file mcdose reads; give an mcdose HDF5 result (.h5), "
                       "an image (.mha, .nrrd, .nii, .nii.gz) or a DICOM RT Dose");
    ScalarImage image = read_scalar_image(path);
    DoseGrid out;
    out.geometry = image.geometry;
    out.values = std::move(image.values);
    out.source = path;
    // mcdose's images say what they hold (dose/DoseImages.hh); others leave both empty.
    std::tie(out.quantity, out.units) = parse_dose_image_description(image.description);
    return out;
}

bool compatible_dose_units(std::string const& a, std::string const& b)
{
    return a.empty() || b.empty() || a == b;
}
} // namespace mcdose
