//! \file phantoms/materials/MaterialCatalogue.cc
//! Compositions (mass fractions), densities and I-values of the built-in materials.
//! Sources:
//! - ICRU Report 37 (1984), Table 5.5/5.6, as distributed with NIST ESTAR/XCOM
//!   (Berger, Coursey, Zucker & Chang, NISTIR 4999) for water, dry air, ICRP tissues
//!   (ICRP Publication 23 compositions), ICRU compact bone, PMMA, polystyrene, graphite
//!   and the elements;
//! - ICRU Report 90 (2016) for the water I-value of 78 eV;
//! - ICRU Report 44 (1989), "adult soft tissue" composition for soft_tissue_icru44 (no
//!   I-value is recommended for it: Bragg additivity is used).
#include "phantoms/materials/MaterialCatalogue.hh"

#include <sstream>

#include "core/Assert.hh"
#include "phantoms/materials/NameMatch.hh"

namespace mcdose
{
namespace
{
// Element shorthands for the composition lists below.
enum : int
{
    H = 1,
    C = 6,
    N = 7,
    O = 8,
    Na = 11,
    Mg = 12,
    Al = 13,
    P = 15,
    S = 16,
    Cl = 17,
    Ar = 18,
    K = 19,
    Ca = 20,
    Ti = 22,
    Fe = 26,
    Cu = 29,
    Zn = 30,
    W = 74,
    Pb = 82
};

//! Water (two I-values) and dry air.
std::vector<MaterialInput> water_and_air()
{
    return {
        {"water",
         {{H, 0.111894}, {O, 0.888106}},
         1.0,
         75.0,
         false,
         "liquid water, ICRU-37 (I = 75 eV)"},
        {"water_icru90",
         {{H, 0.111894}, {O, 0.888106}},
         1.0,
         78.0,
         false,
         "liquid water with the ICRU-90 I-value (78 eV)"},
        {"air",
         {{C, 0.000124}, {N, 0.755268}, {O, 0.231781}, {Ar, 0.012827}},
         1.20479e-3,
         85.7,
         false,
         "dry air near sea level, ICRU-37"},
    };
}

//! Body tissues (ICRU-44, ICRP-23 compositions).
std::vector<MaterialInput> body_tissues()
{
    return {
        {"soft_tissue_icru44",
         {{H, 0.105},
          {C, 0.256},
          {N, 0.027},
          {O, 0.602},
          {Na, 0.001},
          {P, 0.002},
          {S, 0.003},
          {Cl, 0.002},
          {K, 0.002}},
         1.03,
         0.0,
         false,
         "adult soft tissue, ICRU-44; I by Bragg additivity"},
        {"muscle_skeletal_icrp",
         {{H, 0.100637},
          {C, 0.107830},
          {N, 0.027680},
          {O, 0.754773},
          {Na, 0.000750},
          {Mg, 0.000190},
          {P, 0.001800},
          {S, 0.002410},
          {Cl, 0.000790},
          {K, 0.003020},
          {Ca, 0.000030},
          {Fe, 0.000040},
          {Zn, 0.000050}},
         1.04,
         75.3,
         false,
         "skeletal muscle, ICRP-23 composition, ICRU-37 I-value"},
        {"adipose_icrp",
         {{H, 0.119477},
          {C, 0.637240},
          {N, 0.007970},
          {O, 0.232333},
          {Na, 0.000500},
          {Mg, 0.000020},
          {P, 0.000160},
          {S, 0.000730},
          {Cl, 0.001190},
          {K, 0.000320},
          {Ca, 0.000020},
          {Fe, 0.000020},
          {Zn, 0.000020}},
         0.92,
         63.2,
         false,
         "adipose tissue, ICRP-23 composition, ICRU-37 I-value"},
        {"lung_icrp",
         {{H, 0.101278},
          {C, 0.102310},
          {N, 0.028650},
          {O, 0.757072},
          {Na, 0.001840},
          {Mg, 0.000730},
          {P, 0.000800},
          {S, 0.002250},
          {Cl, 0.002660},
          {K, 0.001940},
          {Ca, 0.000090},
          {Fe, 0.000370},
          {Zn, 0.000010}},
         1.05,
         75.3,
         false,
         "lung tissue, ICRP-23 composition (tissue density 1.05; voxel densities scale it)"},
        {"bone_cortical_icrp",
         {{H, 0.047234},
          {C, 0.144330},
          {N, 0.041990},
          {O, 0.446096},
          {Mg, 0.002200},
          {P, 0.104970},
          {S, 0.003150},
          {Ca, 0.209930},
          {Zn, 0.000100}},
         1.85,
         106.4,
         false,
         "cortical bone, ICRP-23 composition, ICRU-37 I-value"},
        {"bone_compact_icru",
         {{H, 0.063984},
          {C, 0.278000},
          {N, 0.027000},
          {O, 0.410016},
          {Mg, 0.002000},
          {P, 0.070000},
          {S, 0.002000},
          {Ca, 0.147000}},
         1.85,
         91.9,
         false,
         "compact bone, ICRU-37"},
    };
}

//! Phantom plastics, graphite and the metals of applicators and shielding.
std::vector<MaterialInput> phantom_and_shielding_materials()
{
    return {
        {"pmma",
         {{H, 0.080538}, {C, 0.599848}, {O, 0.319614}},
         1.19,
         74.0,
         false,
         "polymethyl methacrylate (C5H8O2)n, ICRU-37"},
        {"polystyrene",
         {{H, 0.077418}, {C, 0.922582}},
         1.06,
         68.7,
         false,
         "polystyrene (C8H8)n, ICRU-37"},
        {"graphite", {{C, 1.0}}, 1.7, 78.0, false, "graphite, ICRU-37 (density 1.7)"},
        {"aluminium", {{Al, 1.0}}, 2.699, 166.0, true, "aluminium, ICRU-37"},
        {"titanium", {{Ti, 1.0}}, 4.54, 233.0, true, "titanium, ICRU-37"},
        {"copper", {{Cu, 1.0}}, 8.96, 322.0, true, "copper, ICRU-37"},
        {"tungsten", {{W, 1.0}}, 19.3, 727.0, true, "tungsten, ICRU-37"},
        {"lead", {{Pb, 1.0}}, 11.35, 823.0, true, "lead, ICRU-37"},
    };
}

std::vector<Material> build_catalogue()
{
    std::vector<Material> result;
    for (auto group : {water_and_air(), body_tissues(), phantom_and_shielding_materials()})
    {
        for (auto& m : group)
            result.push_back(make_material(std::move(m)));
    }
    return result;
}
} // namespace

std::vector<Material> const& catalogue_materials()
{
    static std::vector<Material> const catalogue = build_catalogue();
    return catalogue;
}

std::vector<std::string> catalogue_material_names()
{
    std::vector<std::string> names;
    for (auto const& m : catalogue_materials())
        names.push_back(m.name);
    return names;
}

Material const& find_material(std::string const& name, std::vector<Material> const& user)
{
    for (auto const& m : user)
    {
        if (m.name == name)
            return m;
    }
    for (auto const& m : catalogue_materials())
    {
        if (m.name == name)
            return m;
    }
    std::vector<std::string> names = catalogue_material_names();
    for (auto const& m : user)
        names.push_back(m.name);
    std::ostringstream all;
    for (std::size_t i = 0; i < names.size(); ++i)
        all << (i ? ", " : "") << names[i];
    MCDOSE_VALIDATE(false, << "unknown material '" << name << "'" << closest_name_hint(name, names)
                           << "; known materials: " << all.str()
                           << " (or define it in the study's 'materials' list)");
    return catalogue_materials().front();
}

Material const& find_material(std::string const& name)
{
    static std::vector<Material> const none;
    return find_material(name, none);
}
} // namespace mcdose
