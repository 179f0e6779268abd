//! \file study/StudyMaterials.hh
//! Materials of a study: the user materials of its "materials" section
//! (read by the catalogue's JSON reader) and the check that every material
//! the phantom names exists.
#pragma once

#include <string>
#include <vector>

#include "phantoms/PhantomBuilder.hh"
#include "phantoms/materials/Material.hh"
#include "study/StudyInput.hh"

namespace mcdose
{
//! User materials of the study (validated; errors name the file and entry).
std::vector<Material> study_user_materials(StudyInput const& study);

//! Every material name the phantom section refers to, with its JSON pointer
//! (CT phantoms: the calibration's bins; image files are not read).
struct MaterialReference
{
    std::string name;
    std::string pointer;
};
std::vector<MaterialReference> phantom_material_references(PhantomInput const& phantom);

//! Fail with an InputError naming the field (and the closest known name) if
//! a phantom material is neither a user material nor in the catalogue.
void check_phantom_materials(StudyInput const& study, std::vector<Material> const& user);

//! Nominal density [g/cm^3] of user and catalogue materials, for builders.
NominalDensityFn nominal_density_lookup(std::vector<Material> user);
} // namespace mcdose
