//! \file sources/Plan.json.cc
//! The reader of an rt_plan source: the plan file and the machine file (both read here, so a
//! bad plan is refused with the study, before any transport) and the beams to deliver.
#include <nlohmann/json.hpp>

#include "core/Assert.hh"
#include "io/InputPath.hh"
#include "sources/SourceJson.hh"

namespace mcdose
{
PlanInput parse_plan(JsonNode const& node)
{
    PlanInput p;
    std::string const base = input_base_dir(node.file());
    JsonNode const file = node.child("file");
    std::string const path =
        resolve_input_path(file.string("path of a DICOM RT Plan file (RTPLAN)"), base);
    try
    {
        p.plan = read_rt_plan(path);
    }
    catch (RuntimeError const& e)
    {
        file.fail(e.what());
    }
    JsonNode const machine = node.child("machine");
    p.machine = read_machine_model(resolve_input_path(
        machine.string("path of a machine file (e.g. examples/machines/varian_millennium120.json)"),
        base));
    if (auto b = node.optional_child("beams"))
    {
        std::size_t const n = b->array_size(1, "the Beam Numbers to deliver, e.g. [1, 3]");
        for (std::size_t i = 0; i < n; ++i)
            p.beams.push_back(int(b->element(i).integer(0, 1000000, "a Beam Number of the plan")));
    }
    return p;
}
} // namespace mcdose
