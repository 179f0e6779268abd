//! \file study/StudyMaterials.cc
#include "study/StudyMaterials.hh"

#include <algorithm>

#include "io/InputError.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "phantoms/materials/MaterialJson.hh"

namespace mcdose
{
std::vector<Material> study_user_materials(StudyInput const& study)
{
    if (study.user_materials_json.empty())
        return {};
    return materials_from_json(study.user_materials_json, study.study_file + ": /materials");
}

std::vector<MaterialReference> phantom_material_references(PhantomInput const& phantom)
{
    std::vector<MaterialReference> refs;
    std::string const& p = phantom.pointer;
    switch (phantom.kind)
    {
    case PhantomKind::shapes:
        refs.push_back({phantom.shapes.background.material, p + "/background/material"});
        for (auto const& s : phantom.shapes.shapes)
            refs.push_back({s.fill.material, s.pointer + "/material"});
        break;
    case PhantomKind::ct_image:
    {
        auto const& bins = phantom.ct.calibration.material_bins;
        for (std::size_t b = 0; b < bins.size(); ++b)
        {
            refs.push_back({bins[b].material,
                            p + "/calibration/material_bins/" + std::to_string(b) + "/material"});
        }
        break;
    }
    case PhantomKind::material_image:
    {
        auto const& mats = phantom.material_image.materials;
        for (std::size_t m = 0; m < mats.size(); ++m)
            refs.push_back({mats[m], p + "/materials/" + std::to_string(m)});
        break;
    }
    }
    return refs;
}

void check_phantom_materials(StudyInput const& study, std::vector<Material> const& user)
{
    for (auto const& ref : phantom_material_references(study.phantom))
    {
        try
        {
            find_material(ref.name, user);
        }
        catch (RuntimeError const& e)
        {
            // The catalogue's message names the closest material and lists them all.
            throw InputError(study.study_file, ref.pointer, e.what());
        }
    }
}

NominalDensityFn nominal_density_lookup(std::vector<Material> user)
{
    return [user = std::move(user)](std::string const& name)
    { return find_material(name, user).density_g_cm3; };
}
} // namespace mcdose
