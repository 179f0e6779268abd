//! \file phantoms/materials/Material.cc
#include "phantoms/materials/Material.hh"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "phantoms/materials/Element.hh"

namespace mcdose
{
double Material::z_over_a() const
{
    double sum = 0;
    for (auto const& c : components)
        sum +=
            c.mass_fraction * c.atomic_number / element_data(c.atomic_number).atomic_weight_g_mol;
    return sum;
}

double Material::electron_density_cm3() const
{
    return density_g_cm3 * z_over_a() * constants::avogadro;
}

double bragg_mean_excitation_energy_eV(std::vector<MaterialComponent> const& components)
{
    double num = 0;
    double den = 0;
    for (auto const& c : components)
    {
        auto const& el = element_data(c.atomic_number);
        double const electrons = c.mass_fraction * el.atomic_number / el.atomic_weight_g_mol;
        num += electrons * std::log(el.mean_excitation_energy_eV);
        den += electrons;
    }
    MCDOSE_VALIDATE(den > 0, << "cannot compute a mean excitation energy of an empty mixture");
    return std::exp(num / den);
}

Material make_material(MaterialInput input)
{
    std::string const what = "material '" + input.name + "'";
    MCDOSE_VALIDATE(!input.name.empty(), << "a material needs a non-empty 'name'");
    MCDOSE_VALIDATE(!input.components.empty(),
                    << what
                    << ": 'elements' is empty; list at least one element with its mass "
                       "fraction");
    MCDOSE_VALIDATE(input.density_g_cm3 > 0 && std::isfinite(input.density_g_cm3),
                    << what << ": 'density_g_cm3' must be positive (got " << input.density_g_cm3
                    << ")");
    MCDOSE_VALIDATE(input.mean_excitation_energy_eV >= 0,
                    << what
                    << ": 'mean_excitation_energy_eV' must be positive, or omitted for "
                       "Bragg additivity (got "
                    << input.mean_excitation_energy_eV << ")");
    std::map<int, double> merged;
    double total = 0;
    for (auto const& c : input.components)
    {
        element_data(c.atomic_number); // validates Z
        MCDOSE_VALIDATE(c.mass_fraction > 0 && c.mass_fraction <= 1,
                        << what << ": mass fraction of Z=" << c.atomic_number
                        << " must be in (0, 1] (got " << c.mass_fraction << ")");
        merged[c.atomic_number] += c.mass_fraction;
        total += c.mass_fraction;
    }
    MCDOSE_VALIDATE(std::fabs(total - 1) < 1e-3, << what << ": mass fractions sum to " << total
                                                 << "; they must sum to 1 (within 1e-3)");

    Material m;
    m.name = std::move(input.name);
    for (auto const& [Z, w] : merged)
        m.components.push_back({Z, w / total});
    m.density_g_cm3 = input.density_g_cm3;
    m.conductor = input.conductor;
    m.description = std::move(input.description);
    if (input.mean_excitation_energy_eV > 0)
    {
        m.mean_excitation_energy_eV = input.mean_excitation_energy_eV;
        m.mean_excitation_source = MeanExcitationSource::given;
    }
    else
    {
        m.mean_excitation_energy_eV = bragg_mean_excitation_energy_eV(m.components);
        m.mean_excitation_source = MeanExcitationSource::bragg_additivity;
    }
    return m;
}
} // namespace mcdose
