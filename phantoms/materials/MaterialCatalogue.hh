//! \file phantoms/materials/MaterialCatalogue.hh
//! Built-in materials with ICRU/ICRP compositions, looked up by name.
#pragma once

#include <string>
#include <vector>

#include "phantoms/materials/Material.hh"

namespace mcdose
{
//! Names of the built-in materials, in catalogue order.
std::vector<std::string> catalogue_material_names();

//! The built-in material `name`. On a typo, the error suggests the closest name
//! and lists the catalogue.
Material const& find_material(std::string const& name);

//! All built-in materials, in catalogue order.
std::vector<Material> const& catalogue_materials();

//! Find `name` in `user` first (user materials may shadow nothing: duplicates of a
//! catalogue name are rejected by the JSON reader), then in the catalogue.
Material const& find_material(std::string const& name, std::vector<Material> const& user);
} // namespace mcdose
