//! \file phantoms/StructuresJson.hh
//! Parse the structures section of a study (format: docs/study-reference.md).
//! Includes nlohmann/json (through JsonInput.hh): for `.json.cc` files only.
#pragma once

#include <string>

#include "io/JsonInput.hh"
#include "phantoms/StructureInput.hh"

namespace mcdose
{
//! Parse and range-check `node` (the "structures" object). Relative paths are
//! resolved against `base_dir`. Files are not opened here.
StructuresInput parse_structures(JsonNode const& node, std::string const& base_dir);
} // namespace mcdose
