//! \file phantoms/materials/Element.hh
//! Element data for Z = 1..100: symbol, atomic weight, ICRU-37 mean excitation
//! energy and elemental density.
#pragma once

#include <string>

namespace mcdose
{
//! Largest atomic number in the element table.
inline constexpr int max_atomic_number = 100;

//! One element (host-side data; the transport sees only derived tables).
struct ElementData
{
    int atomic_number{0};
    std::string symbol;
    double atomic_weight_g_mol{0}; //!< standard atomic weight [g/mol] (IUPAC/CIAAW 2016)
    //! Mean excitation energy I [eV] of the element in its standard state
    //! (ICRU Report 37 (1984), Table 4.3 / 2.1; Z = 99, 100 from Seltzer & Berger 1982 Table 1).
    double mean_excitation_energy_eV{0};
    //! Density of the element in its standard state [g/cm^3] (xraylib ElementDensity;
    //! Z = 99, 100 are estimates, see Element.cc).
    double density_g_cm3{0};
    //! First ionization energy of the free atom [eV] (NIST Atomic Spectra Database,
    //! Kramida et al.); the free-atom binding energy of the outermost shell, used in the
    //! Sternheimer density-effect model (ICRU-37 uses free-atom binding energies,
    //! Carlson 1975), where xraylib's edges are solid-state, Fermi-level referenced.
    double first_ionization_energy_eV{0};
};

//! Element data for 1 <= Z <= 100 (throws RuntimeError otherwise).
ElementData const& element_data(int atomic_number);

//! Atomic number for a chemical symbol ("H", "Pb"; case-sensitive as in the periodic
//! table, but "pb"/"PB" are accepted). Throws with the closest symbol on failure.
int atomic_number_from_symbol(std::string const& symbol);
} // namespace mcdose
