//! \file sources/SourceJson.hh
//! Reading a source from the study JSON (for the study reader and tests; the
//! JSON headers stay in .cc files that include this).
#pragma once

#include "io/JsonInput.hh"
#include "sources/SourceInput.hh"

namespace mcdose
{
//! Parse one element of the study's "sources" array; errors are InputError
//! naming the JSON pointer, the allowed values or range, and the fix.
SourceInput parse_source(JsonNode const& node);

//! The phase-space fields of a source (file, translation_cm, rotation_deg,
//! recycle, read_ahead); reads the whole file once (scan_phase_space).
PhaseSpaceInput parse_phase_space(JsonNode const& node);

//! The fields of an rt_plan source (file, machine, beams); reads and checks the plan and the
//! machine file (io/RtPlanFile.hh, sources/MachineModel.hh).
PlanInput parse_plan(JsonNode const& node);
} // namespace mcdose
