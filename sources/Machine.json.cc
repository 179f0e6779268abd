//! \file sources/Machine.json.cc
//! The reader of a machine file (sources/MachineModel.hh; docs/plans.md has its fields).
#include <cmath>

#include <nlohmann/json.hpp>

#include "io/JsonInput.hh"
#include "sources/MachineModel.hh"

namespace mcdose
{
namespace
{
MlcModel parse_mlc(JsonNode const& node)
{
    node.require_object("the MLC");
    node.allow_only({"type", "leaf_widths_cm", "leaf_height_cm", "centre_distance_cm",
                     "end_radius_cm", "tongue_groove_cm", "leaf_transmission",
                     "interleaf_transmission", "max_position_cm"});
    MlcModel m;
    m.type = node.child("type").choice({"MLCX", "MLCY"});
    // Widths as [[count, width], ...]: e.g. [[10, 1.0], [40, 0.5], [10, 1.0]].
    JsonNode const widths = node.child("leaf_widths_cm");
    std::size_t const groups = widths.array_size(1, "[[count, width at the isocentre in cm]...]");
    for (std::size_t g = 0; g < groups; ++g)
    {
        JsonNode const e = widths.element(g);
        if (e.array_size(2, "[count, width in cm]") != 2)
            e.fail("expected [count, width in cm]");
        long long const n = e.element(0).integer(1, 500, "number of leaf pairs of this width");
        double const w =
            e.element(1).number(NumberRange::open_closed(0, 5), "leaf width at the isocentre");
        m.widths_cm.insert(m.widths_cm.end(), std::size_t(n), w);
    }
    m.leaf_height_cm = node.child("leaf_height_cm")
                           .number(NumberRange::open_closed(0, 20), "leaf height along the beam");
    m.centre_distance_cm =
        node.child("centre_distance_cm")
            .number(NumberRange::open_closed(0, 100), "focal spot to the middle of the leaves");
    m.end_radius_cm = node.child("end_radius_cm")
                          .number(NumberRange::closed(m.leaf_height_cm / 2, 1000),
                                  "radius of the rounded leaf end, at least half the height");
    m.tongue_groove_cm = node.child("tongue_groove_cm")
                             .number(NumberRange::closed(0, 0.2),
                                     "width at the isocentre where adjacent leaves overlap");
    m.leaf_transmission =
        node.child("leaf_transmission")
            .number(NumberRange::open_closed(0, 0.2), "transmission through a leaf (e.g. 0.015)");
    m.interleaf_transmission =
        node.child("interleaf_transmission")
            .number(NumberRange::closed(m.leaf_transmission, 0.3),
                    "transmission between closed adjacent leaves, at least the leaf's");
    m.max_position_cm =
        node.child("max_position_cm")
            .number(NumberRange::open_closed(0, 50), "largest |leaf position| at the isocentre");
    if (m.centre_distance_cm <= m.leaf_height_cm / 2)
        node.child("centre_distance_cm").fail("the leaves would reach the focal spot");
    return m;
}
} // namespace

MachineModel read_machine_model(std::string const& path)
{
    nlohmann::json const doc = parse_json_file(path);
    JsonNode const root(doc, path);
    root.require_object("a machine description");
    root.allow_only({"name", "machine_names", "sad_cm", "mlc", "jaws", "references"});
    MachineModel m;
    m.path = path;
    m.name = root.child("name").string("the machine's name");
    JsonNode const names = root.child("machine_names");
    std::size_t const n = names.array_size(1, "the plans' Treatment Machine Names it serves");
    for (std::size_t i = 0; i < n; ++i)
        m.machine_names.push_back(names.element(i).string("a Treatment Machine Name"));
    m.sad_cm = root.child("sad_cm").number(NumberRange::open_closed(0, 1000), "e.g. 100");
    m.mlc = parse_mlc(root.child("mlc"));
    JsonNode const jaws = root.child("jaws");
    jaws.require_object("the jaws {\"max_x_cm\", \"max_y_cm\"}");
    jaws.allow_only({"max_x_cm", "max_y_cm"});
    m.jaws.max_x_cm = jaws.child("max_x_cm").number(NumberRange::open_closed(0, 50), "cm");
    m.jaws.max_y_cm = jaws.child("max_y_cm").number(NumberRange::open_closed(0, 50), "cm");
    if (auto r = root.optional_child("references"))
        r->require_object("the reference of each number, by field name");
    return m;
}
} // namespace mcdose
