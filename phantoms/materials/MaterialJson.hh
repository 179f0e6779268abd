//! \file phantoms/materials/MaterialJson.hh
//! User materials from JSON (implemented in Material.json.cc; no JSON header here).
//!
//! One material:
//! \code
//! {"name": "gel", "density_g_cm3": 1.02,
//!  "elements": {"H": 0.105, "C": 0.12, "O": 0.775},   // mass fractions, sum 1
//!  "mean_excitation_energy_eV": 74.0,                  // optional: Bragg additivity
//!  "conductor": false}                                 // optional
//! \endcode
//! A document may be one such object, an array of them, or {"materials": [...]}.
#pragma once

#include <string>
#include <vector>

#include "phantoms/materials/Material.hh"

namespace mcdose
{
//! Parse materials from JSON text; `source` (a file name) prefixes error messages.
//! Names must be unique and must not repeat a built-in catalogue name.
std::vector<Material> materials_from_json(std::string const& json_text,
                                          std::string const& source = "<json>");

//! Read a JSON file of materials.
std::vector<Material> materials_from_json_file(std::string const& path);
} // namespace mcdose
