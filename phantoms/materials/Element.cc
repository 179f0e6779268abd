//! \file phantoms/materials/Element.cc
#include "phantoms/materials/Element.hh"

#include <array>
#include <cctype>
#include <mutex>
#include <vector>

#include <xraylib.h>

#include "core/Assert.hh"
#include "phantoms/materials/NameMatch.hh"

namespace mcdose
{
namespace
{
// Mean excitation energies I [eV] of the elements, Z = 1..100, as recommended in
// ICRU Report 37 (1984), "Stopping Powers for Electrons and Positrons", Table 4.3
// (identical to Seltzer & Berger, Int. J. Appl. Radiat. Isot. 33, 1189 (1982),
// Table 1, which also lists Z = 93..100 by interpolation).
constexpr std::array<double, max_atomic_number> icru37_mean_excitation_eV = {
    19.2,  41.8,  40.0,  63.7,  76.0,  78.0,  82.0,  95.0,  115.0, 137.0, // 1-10
    149.0, 156.0, 166.0, 173.0, 173.0, 180.0, 174.0, 188.0, 190.0, 191.0, // 11-20
    216.0, 233.0, 245.0, 257.0, 272.0, 286.0, 297.0, 311.0, 322.0, 330.0, // 21-30
    334.0, 350.0, 347.0, 348.0, 343.0, 352.0, 363.0, 366.0, 379.0, 393.0, // 31-40
    417.0, 424.0, 428.0, 441.0, 449.0, 470.0, 470.0, 469.0, 488.0, 488.0, // 41-50
    487.0, 485.0, 491.0, 482.0, 488.0, 491.0, 501.0, 523.0, 535.0, 546.0, // 51-60
    560.0, 574.0, 580.0, 591.0, 614.0, 628.0, 650.0, 658.0, 674.0, 684.0, // 61-70
    694.0, 705.0, 718.0, 727.0, 736.0, 746.0, 757.0, 790.0, 790.0, 800.0, // 71-80
    810.0, 823.0, 823.0, 830.0, 825.0, 794.0, 827.0, 826.0, 841.0, 847.0, // 81-90
    878.0, 890.0, 902.0, 921.0, 934.0, 939.0, 952.0, 966.0, 980.0, 994.0, // 91-100
};

// Standard atomic weights [g/mol], IUPAC/CIAAW (Meija et al., Pure Appl. Chem. 88, 265
// (2016)), conventional values for elements with an interval; for elements without a
// stable isotope, the mass number of the longest-lived isotope (in brackets there).
// (xraylib's AtomicWeight is not used: its values are rounded, e.g. H 1.01, Pb 207.21.)
constexpr std::array<double, max_atomic_number> standard_atomic_weight = {
    1.008,     4.002602, 6.94,      9.0121831, 10.81,     12.011,  14.007,     15.999,
    18.998403, 20.1797,  22.989769, 24.305,    26.981538, 28.085,  30.973762,  32.06,
    35.45,     39.948,   39.0983,   40.078,    44.955908, 47.867,  50.9415,    51.9961,
    54.938044, 55.845,   58.933194, 58.6934,   63.546,    65.38,   69.723,     72.630,
    74.921595, 78.971,   79.904,    83.798,    85.4678,   87.62,   88.90584,   91.224,
    92.90637,  95.95,    98.0,      101.07,    102.9055,  106.42,  107.8682,   112.414,
    114.818,   118.710,  121.760,   127.60,    126.90447, 131.293, 132.905452, 137.327,
    138.90547, 140.116,  140.90766, 144.242,   145.0,     150.36,  151.964,    157.25,
    158.92535, 162.500,  164.93033, 167.259,   168.93422, 173.045, 174.9668,   178.49,
    180.94788, 183.84,   186.207,   190.23,    192.217,   195.084, 196.966569, 200.592,
    204.38,    207.2,    208.9804,  209.0,     210.0,     222.0,   223.0,      226.0,
    227.0,     232.0377, 231.03588, 238.02891, 237.0,     244.0,   243.0,      247.0,
    247.0,     251.0,    252.0,     257.0,
};

// First ionization energies [eV], Z = 1..100, NIST Atomic Spectra Database
// (Kramida, Ralchenko, Reader & NIST ASD Team), rounded to 0.01 eV.
constexpr std::array<double, max_atomic_number> first_ionization_eV = {
    13.60, 24.59, 5.39,  9.32,  8.30,  11.26, 14.53, 13.62, 17.42, 21.56, // 1-10
    5.14,  7.65,  5.99,  8.15,  10.49, 10.36, 12.97, 15.76, 4.34,  6.11,  // 11-20
    6.56,  6.83,  6.75,  6.77,  7.43,  7.90,  7.88,  7.64,  7.73,  9.39,  // 21-30
    6.00,  7.90,  9.79,  9.75,  11.81, 14.00, 4.18,  5.69,  6.22,  6.63,  // 31-40
    6.76,  7.09,  7.28,  7.36,  7.46,  8.34,  7.58,  8.99,  5.79,  7.34,  // 41-50
    8.61,  9.01,  10.45, 12.13, 3.89,  5.21,  5.58,  5.54,  5.47,  5.53,  // 51-60
    5.58,  5.64,  5.67,  6.15,  5.86,  5.94,  6.02,  6.11,  6.18,  6.25,  // 61-70
    5.43,  6.83,  7.55,  7.86,  7.83,  8.44,  8.97,  8.96,  9.23,  10.44, // 71-80
    6.11,  7.42,  7.29,  8.41,  9.32,  10.75, 4.07,  5.28,  5.17,  6.31,  // 81-90
    5.89,  6.19,  6.27,  6.03,  5.97,  5.99,  6.20,  6.28,  6.37,  6.50,  // 91-100
};

// xraylib has no density for Es (99) and Fm (100): no macroscopic sample has been
// weighed. We use the estimates from the metallic radii (Haire & Baybarz 1979 for Es,
// 8.84 g/cm^3; Fm 9.7 g/cm^3, Haire 2006 in "The Chemistry of the Actinide and
// Transactinide Elements"). Only relevant if a user puts these in a material.
constexpr double estimated_density_Es_g_cm3 = 8.84;
constexpr double estimated_density_Fm_g_cm3 = 9.7;

//! Call an xraylib function, turning its error into a RuntimeError.
template <class F>
double xrl_call(F&& f, char const* what, int Z)
{
    xrl_error* err = nullptr;
    double result = f(&err);
    if (err)
    {
        std::string msg = err->message;
        xrl_error_free(err);
        MCDOSE_VALIDATE(false, << "xraylib " << what << "(Z=" << Z << ") failed: " << msg);
    }
    return result;
}

std::vector<ElementData> build_elements()
{
    std::vector<ElementData> result(max_atomic_number);
    for (int Z = 1; Z <= max_atomic_number; ++Z)
    {
        ElementData& el = result[Z - 1];
        el.atomic_number = Z;
        xrl_error* err = nullptr;
        char* sym = AtomicNumberToSymbol(Z, &err);
        MCDOSE_VALIDATE(sym && !err, << "xraylib has no symbol for Z=" << Z);
        el.symbol = sym;
        xrlFree(sym);
        el.atomic_weight_g_mol = standard_atomic_weight[Z - 1];
        el.mean_excitation_energy_eV = icru37_mean_excitation_eV[Z - 1];
        el.first_ionization_energy_eV = first_ionization_eV[Z - 1];
        if (Z == 99)
            el.density_g_cm3 = estimated_density_Es_g_cm3;
        else if (Z == 100)
            el.density_g_cm3 = estimated_density_Fm_g_cm3;
        else
            el.density_g_cm3 =
                xrl_call([Z](xrl_error** e) { return ElementDensity(Z, e); }, "ElementDensity", Z);
    }
    return result;
}

std::vector<ElementData> const& elements()
{
    static std::vector<ElementData> const table = build_elements();
    return table;
}
} // namespace

ElementData const& element_data(int atomic_number)
{
    MCDOSE_VALIDATE(atomic_number >= 1 && atomic_number <= max_atomic_number,
                    << "atomic number " << atomic_number
                    << " is outside the element table; use 1 to " << max_atomic_number);
    return elements()[atomic_number - 1];
}

int atomic_number_from_symbol(std::string const& symbol)
{
    std::vector<std::string> symbols;
    for (auto const& el : elements())
    {
        if (el.symbol == symbol)
            return el.atomic_number;
        symbols.push_back(el.symbol);
    }
    // Accept "PB"/"pb" for "Pb"
    std::string canon = symbol;
    for (std::size_t i = 0; i < canon.size(); ++i)
        canon[i] = i == 0 ? std::toupper(canon[i]) : std::tolower(canon[i]);
    for (auto const& el : elements())
    {
        if (el.symbol == canon)
            return el.atomic_number;
    }
    MCDOSE_VALIDATE(false, << "unknown element symbol '" << symbol << "'"
                           << closest_name_hint(symbol, symbols)
                           << "; use a chemical symbol such as H, C, O, Pb");
    return 0;
}
} // namespace mcdose
