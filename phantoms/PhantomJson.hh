//! \file phantoms/PhantomJson.hh
//! Parse the phantom section of a study (format: docs/study-reference.md).
//! Includes nlohmann/json (through JsonInput.hh): for `.json.cc` files only.
#pragma once

#include <string>

#include "io/JsonInput.hh"
#include "phantoms/HuCalibration.hh"
#include "phantoms/PhantomInput.hh"

namespace mcdose
{
//! Parse and range-check `node` (the "phantom" object). Relative image paths
//! are resolved against `base_dir` (the study file's directory). Files are
//! not opened here; building the phantom reads them.
PhantomInput parse_phantom(JsonNode const& node, std::string const& base_dir);

//! Parse a HU calibration; absent parts keep the built-in default's.
HuCalibration parse_calibration(JsonNode const& node);

//! One shape (box, slab, sphere, cylinder; docs/study-reference.md), with its material fill,
//! or without (`with_fill` false: a region, e.g. of a volume source; a material is refused).
ShapeInput parse_shape(JsonNode const& node, bool with_fill = true);
} // namespace mcdose
