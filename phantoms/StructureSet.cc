//! \file phantoms/StructureSet.cc
#include "phantoms/StructureSet.hh"

#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "io/RtStructFile.hh"

namespace mcdose
{
namespace
{
//! The ROI `name` of `set`, checked against the CT's Frame of Reference.
RtRoi const& checked_roi(RtStructureSet const& set, std::string const& name, Phantom const& phantom,
                         InputError const& where)
{
    RtRoi const* roi = set.find(name);
    if (!roi)
    {
        throw InputError(where.file(), where.pointer(),
                         "structure '" + name + "' is not in '" + set.path + "', which holds " +
                             set.names() + "; spell the name as the file does");
    }
    // The ROI's Referenced Frame of Reference UID and the structure set's: each given one must
    // be the CT's (a file whose two disagree is inconsistent).
    for (std::string const& frame : {roi->frame_uid, set.frame_of_reference_uid})
    {
        if (phantom.frame_of_reference_uid.empty() || frame.empty() ||
            frame == phantom.frame_of_reference_uid)
        {
            continue;
        }
        throw InputError(where.file(), where.pointer(),
                         "structure '" + name + "' of '" + set.path +
                             "' is drawn on Frame of Reference " + frame + ", the CT's is " +
                             phantom.frame_of_reference_uid +
                             ": the structure set belongs to another CT; use the structure set "
                             "exported with this CT, or the CT it references");
    }
    return *roi;
}

//! Run `make`, turning a RuntimeError into an InputError at `pointer`. An InputError
//! from `make` keeps its own field, unless `repoint` (a file read: any error is the
//! field's that names the file).
template <class F>
auto at_field(StructuresInput const& input, std::string const& pointer, F&& make,
              bool repoint = false) -> decltype(make())
{
    try
    {
        return make();
    }
    catch (InputError const& e)
    {
        if (!repoint)
            throw;
        throw InputError(input.study_file, pointer, e.what());
    }
    catch (RuntimeError const& e)
    {
        throw InputError(input.study_file, pointer, e.what());
    }
}

void add_rt_structures(StructuresInput const& input, std::size_t r, Phantom const& phantom,
                       std::vector<std::string>* warnings, std::vector<StructureMask>& out)
{
    RtStructInput const& rs = input.rt_structs[r];
    std::string const base =
        rs.pointer.empty() ? input.pointer + "/rt_struct/" + std::to_string(r) : rs.pointer;
    RtStructureSet const set = at_field(
        input, base + "/file", [&] { return read_rt_structure_set(rs.path); }, true);
    if (phantom.frame_of_reference_uid.empty() && warnings)
    {
        warnings->push_back("the phantom's CT has no Frame of Reference UID (not a DICOM series, "
                            "and no phantom.frame_of_reference_uid), so that of '" +
                            rs.path +
                            "' cannot be checked; its contours are placed by their patient "
                            "coordinates");
    }
    for (std::size_t i = 0; i < rs.names.size(); ++i)
    {
        std::string const pointer = base + "/names/" + std::to_string(i);
        RtRoi const& roi =
            checked_roi(set, rs.names[i], phantom, InputError(input.study_file, pointer, ""));
        out.push_back(at_field(input, pointer,
                               [&] {
                                   return rasterise_contours(roi, phantom.grid.geometry(),
                                                             input.sub_voxel_samples);
                               }));
    }
}

void add_label_structures(StructuresInput const& input, std::size_t l, Phantom const& phantom,
                          std::vector<StructureMask>& out)
{
    LabelImageInput const& li = input.label_images[l];
    std::string const base =
        li.pointer.empty() ? input.pointer + "/label_images/" + std::to_string(l) : li.pointer;
    ScalarImage const image = at_field(
        input, base + "/image", [&] { return read_scalar_image(li.path); }, true);
    if (!image.integer_pixels)
    {
        throw InputError(input.study_file, base + "/image",
                         "label image '" + li.path + "' stores " + image.pixel_type +
                             " values; a label image holds integer labels: save it with an "
                             "integer pixel type");
    }
    for (auto const& [name, value] : li.labels)
    {
        out.push_back(at_field(input, base + "/labels",
                               [&] {
                                   return label_structure(image, value, name,
                                                          phantom.grid.geometry(),
                                                          input.sub_voxel_samples);
                               }));
    }
}
} // namespace

StructureMask const* StructureSet::find(std::string const& name) const
{
    if (name == "body")
        return &body;
    for (auto const& s : structures)
    {
        if (s.name == name)
            return &s;
    }
    return nullptr;
}

StructureSet build_structures(StructuresInput const& input, Phantom const& phantom, bool from_image,
                              std::vector<std::string>* warnings)
{
    StructureSet set;
    set.low_density_threshold_g_cm3 = input.low_density_threshold_g_cm3;
    for (std::size_t r = 0; r < input.rt_structs.size(); ++r)
        add_rt_structures(input, r, phantom, warnings, set.structures);
    for (std::size_t l = 0; l < input.label_images.size(); ++l)
        add_label_structures(input, l, phantom, set.structures);

    GridGeometry const& g = phantom.grid.geometry();
    bool const threshold = input.body == "threshold" || (input.body == "auto" && from_image);
    if (threshold)
    {
        set.body = body_outline(g, make_span(phantom.grid.density_g_cm3()),
                                input.body_density_threshold_g_cm3);
        if (set.body.voxels.empty())
        {
            throw InputError(input.study_file, input.pointer + "/body_density_threshold_g_cm3",
                             "no voxel of the phantom is denser than the body threshold " +
                                 std::to_string(input.body_density_threshold_g_cm3) +
                                 " g/cm3, so there is no body; lower the threshold or set "
                                 "\"body\": \"phantom\"");
        }
    }
    else if (input.body == "auto" || input.body == "phantom")
    {
        set.body = whole_grid(g);
    }
    else
    {
        StructureMask const* s = set.find(input.body);
        MCDOSE_ASSERT(s); // parse_structures checked the name
        set.body = *s;
        set.body.origin = "structure '" + input.body + "'";
        set.body.name = "body";
    }
    return set;
}
} // namespace mcdose
