//! \file phantoms/materials/Material.hh
//! A material: a mass-fraction mixture of elements with a density and a mean
//! excitation energy.
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
//! One element of a mixture.
struct MaterialComponent
{
    int atomic_number{0};
    double mass_fraction{0}; //!< w_i, sums to 1 over the material
};

//! Where a material's mean excitation energy came from.
enum class MeanExcitationSource
{
    given,           //!< a measured/recommended value for the material (e.g. ICRU-37)
    bragg_additivity //!< ln I = sum_i w_i (Z/A)_i ln I_i / sum_i w_i (Z/A)_i (ICRU-37 Eq. 4.3)
};

//! Immutable material description (host side).
struct Material
{
    std::string name;
    std::vector<MaterialComponent> components; //!< sorted by Z, fractions normalised
    double density_g_cm3{0};
    double mean_excitation_energy_eV{0};
    MeanExcitationSource mean_excitation_source{MeanExcitationSource::given};
    //! Treat the valence (outermost-shell) electrons as free conduction electrons in the
    //! Sternheimer density-effect model (ICRU-37 Sec. 4.3: true for metals).
    bool conductor{false};
    std::string description; //!< provenance of the composition

    //! Electrons per gram divided by N_A: sum_i w_i Z_i / A_i [mol/g].
    double z_over_a() const;
    //! Electrons per cm^3 [1/cm^3].
    double electron_density_cm3() const;
};

//! Optional arguments of make_material.
struct MaterialInput
{
    std::string name;
    std::vector<MaterialComponent> components; //!< fractions must sum to 1 within 1e-3
    double density_g_cm3{0};
    double mean_excitation_energy_eV{0}; //!< 0: Bragg additivity from the elements
    bool conductor{false};
    std::string description;
};

//! Validate (names the field and the fix on error), merge duplicate elements,
//! normalise the fractions, sort by Z and fill I by Bragg additivity if not given.
Material make_material(MaterialInput input);

//! ln I by Bragg additivity of the ICRU-37 elemental I-values [eV] (ICRU-37 Eq. 4.3).
double bragg_mean_excitation_energy_eV(std::vector<MaterialComponent> const& components);
} // namespace mcdose
