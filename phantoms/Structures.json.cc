//! \file phantoms/Structures.json.cc
#include <algorithm>

#include "io/InputPath.hh"
#include "phantoms/StructuresJson.hh"

namespace mcdose
{
namespace
{
RtStructInput parse_rt_struct(JsonNode const& node, std::string const& base_dir)
{
    node.require_object("an RT Structure Set {\"file\": \"RS.dcm\", \"names\": [\"PTV\"]}");
    node.allow_only({"file", "names"});
    RtStructInput r;
    r.pointer = node.pointer();
    r.path = resolve_input_path(
        node.child("file").string("the path of an RT Structure Set (RTSTRUCT) DICOM file"),
        base_dir);
    JsonNode const names = node.child("names");
    std::size_t const n = names.array_size(1, "the ROI names to use, e.g. [\"BODY\", \"PTV\"]");
    for (std::size_t i = 0; i < n; ++i)
        r.names.push_back(names.element(i).string("an ROI name as the structure set spells it"));
    return r;
}

LabelImageInput parse_label_image(JsonNode const& node, std::string const& base_dir)
{
    node.require_object(
        "a label image {\"image\": \"labels.nrrd\", \"labels\": {\"PTV\": 1, \"cord\": 2}}");
    node.allow_only({"image", "labels"});
    LabelImageInput l;
    l.pointer = node.pointer();
    l.path = resolve_input_path(
        node.child("image").string("the path of a label image (.mha, .nrrd, .nii)"), base_dir);
    JsonNode const labels = node.child("labels");
    labels.require_object("structure names with their label value, e.g. {\"PTV\": 1}");
    for (auto const& item : labels.value().items())
    {
        int const value =
            int(labels.child(item.key())
                    .integer(1, 65535,
                             "the label value of the structure in the image (0 is background)"));
        l.labels.emplace_back(item.key(), value);
    }
    if (l.labels.empty())
        labels.fail("no structure; give at least one, e.g. {\"PTV\": 1}");
    return l;
}
} // namespace

std::vector<std::string> StructuresInput::names() const
{
    std::vector<std::string> all;
    for (auto const& r : rt_structs)
        all.insert(all.end(), r.names.begin(), r.names.end());
    for (auto const& l : label_images)
    {
        for (auto const& [name, value] : l.labels)
            all.push_back(name);
    }
    return all;
}

StructuresInput parse_structures(JsonNode const& node, std::string const& base_dir)
{
    node.require_object("the structures");
    node.allow_only({"body", "body_density_threshold_g_cm3", "low_density_threshold_g_cm3",
                     "sub_voxel_samples", "rt_struct", "label_images"});
    StructuresInput s;
    s.study_file = node.file();
    s.pointer = node.pointer();
    if (auto r = node.optional_child("rt_struct"))
    {
        if (r->value().is_array())
        {
            std::size_t const n = r->array_size(1, "RT Structure Sets");
            for (std::size_t i = 0; i < n; ++i)
                s.rt_structs.push_back(parse_rt_struct(r->element(i), base_dir));
        }
        else
        {
            s.rt_structs.push_back(parse_rt_struct(*r, base_dir));
        }
    }
    if (auto l = node.optional_child("label_images"))
    {
        std::size_t const n = l->array_size(1, "label images");
        for (std::size_t i = 0; i < n; ++i)
            s.label_images.push_back(parse_label_image(l->element(i), base_dir));
    }
    std::vector<std::string> const names = s.names();
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == "body" ||
            std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
        {
            node.fail("structure name '" + names[i] +
                      "' is given twice or is the reserved name 'body'; give each structure "
                      "once, under its own name");
        }
    }
    if (auto b = node.optional_child("body"))
    {
        s.body = b->string("\"auto\", \"threshold\", \"phantom\" or a structure's name");
        if (s.body != "auto" && s.body != "threshold" && s.body != "phantom" &&
            std::find(names.begin(), names.end(), s.body) == names.end())
        {
            std::vector<std::string> choices{"auto", "threshold", "phantom"};
            choices.insert(choices.end(), names.begin(), names.end());
            std::string const close = closest_spelling(s.body, choices);
            b->fail("'" + s.body +
                    "' is not \"auto\", \"threshold\", \"phantom\" or a structure of this "
                    "section" +
                    (close.empty() ? std::string("; list the body's structure under rt_struct "
                                                 "or label_images")
                                   : "; did you mean '" + close + "'?"));
        }
    }
    if (auto t = node.optional_child("body_density_threshold_g_cm3"))
    {
        s.body_density_threshold_g_cm3 =
            t->number(NumberRange::positive(), "density above which a voxel is body, in g/cm3");
    }
    if (auto t = node.optional_child("low_density_threshold_g_cm3"))
    {
        s.low_density_threshold_g_cm3 = t->number(
            NumberRange::non_negative(), "density below which dose is reported apart, in g/cm3");
    }
    if (auto n = node.optional_child("sub_voxel_samples"))
    {
        s.sub_voxel_samples = int(n->integer(1, max_sub_voxel_samples,
                                             "sample points per voxel axis for partial volumes"));
    }
    return s;
}
} // namespace mcdose
