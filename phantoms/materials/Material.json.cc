//! \file phantoms/materials/Material.json.cc
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/Assert.hh"
#include "phantoms/materials/Element.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "phantoms/materials/MaterialJson.hh"
#include "phantoms/materials/NameMatch.hh"

namespace mcdose
{
namespace
{
using nlohmann::json;

std::vector<std::string> const allowed_keys = {
    "name", "density_g_cm3", "elements", "mean_excitation_energy_eV", "conductor", "description"};

Material material_from(json const& j, std::string const& where)
{
    MCDOSE_VALIDATE(j.is_object(), << where
                                   << ": a material must be a JSON object with 'name', "
                                      "'density_g_cm3' and 'elements'");
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        bool known = false;
        for (auto const& k : allowed_keys)
            known = known || (k == it.key());
        MCDOSE_VALIDATE(known, << where << "/" << it.key() << ": unknown field"
                               << closest_name_hint(it.key(), allowed_keys)
                               << "; allowed: name, density_g_cm3, elements, "
                                  "mean_excitation_energy_eV, conductor, description");
    }
    MaterialInput in;
    MCDOSE_VALIDATE(j.contains("name") && j["name"].is_string(),
                    << where << "/name: missing or not a string; give the material a name");
    in.name = j["name"].get<std::string>();
    MCDOSE_VALIDATE(j.contains("density_g_cm3") && j["density_g_cm3"].is_number(),
                    << where
                    << "/density_g_cm3: missing or not a number; give the density in "
                       "g/cm^3 (e.g. 1.0)");
    in.density_g_cm3 = j["density_g_cm3"].get<double>();
    if (j.contains("mean_excitation_energy_eV"))
    {
        MCDOSE_VALIDATE(j["mean_excitation_energy_eV"].is_number() &&
                            j["mean_excitation_energy_eV"].get<double>() > 0,
                        << where
                        << "/mean_excitation_energy_eV: must be a positive number in eV "
                           "(omit it for Bragg additivity)");
        in.mean_excitation_energy_eV = j["mean_excitation_energy_eV"].get<double>();
    }
    if (j.contains("conductor"))
    {
        MCDOSE_VALIDATE(j["conductor"].is_boolean(),
                        << where << "/conductor: must be true or false");
        in.conductor = j["conductor"].get<bool>();
    }
    if (j.contains("description") && j["description"].is_string())
        in.description = j["description"].get<std::string>();
    MCDOSE_VALIDATE(j.contains("elements") && j["elements"].is_object() && !j["elements"].empty(),
                    << where
                    << "/elements: missing or not an object; give mass fractions by "
                       "symbol, e.g. {\"H\": 0.111894, \"O\": 0.888106}");
    for (auto it = j["elements"].begin(); it != j["elements"].end(); ++it)
    {
        MCDOSE_VALIDATE(it.value().is_number(), << where << "/elements/" << it.key()
                                                << ": the mass fraction must be a number");
        in.components.push_back({atomic_number_from_symbol(it.key()), it.value().get<double>()});
    }
    try
    {
        return make_material(std::move(in));
    }
    catch (RuntimeError const& e)
    {
        throw RuntimeError(where + ": " + e.what());
    }
}
} // namespace

std::vector<Material> materials_from_json(std::string const& json_text, std::string const& source)
{
    json doc;
    try
    {
        doc = json::parse(json_text);
    }
    catch (json::parse_error const& e)
    {
        MCDOSE_VALIDATE(false, << source << ": invalid JSON (" << e.what()
                               << "); fix the syntax at the given byte");
    }
    catch (json::exception const&)
    {
        // Beyond the double range (the study's materials are checked by its reader).
        MCDOSE_VALIDATE(false, << source << ": invalid JSON (a number too large for a double)");
    }
    json list;
    std::string prefix = source + ": ";
    if (doc.is_object() && doc.contains("materials"))
    {
        list = doc["materials"];
        prefix += "/materials";
    }
    else if (doc.is_array())
        list = doc;
    else
        list = json::array({doc});
    MCDOSE_VALIDATE(list.is_array(), << prefix << ": expected an array of materials");

    std::vector<Material> result;
    std::set<std::string> names;
    auto const builtin = catalogue_material_names();
    for (std::size_t i = 0; i < list.size(); ++i)
    {
        std::string const where = prefix + "/" + std::to_string(i);
        Material m = material_from(list[i], where);
        MCDOSE_VALIDATE(names.insert(m.name).second,
                        << where << "/name: material '" << m.name
                        << "' is defined twice; give each material a unique name");
        for (auto const& b : builtin)
        {
            MCDOSE_VALIDATE(b != m.name, << where << "/name: '" << m.name
                                         << "' is a built-in material; choose another name");
        }
        result.push_back(std::move(m));
    }
    return result;
}

std::vector<Material> materials_from_json_file(std::string const& path)
{
    std::ifstream in(path);
    MCDOSE_VALIDATE(in.good(), << path << ": cannot open the materials file; check the path");
    std::ostringstream text;
    text << in.rdbuf();
    return materials_from_json(text.str(), path);
}
} // namespace mcdose
