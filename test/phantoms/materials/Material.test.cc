//! \file test/phantoms/materials/Material.test.cc
#include "phantoms/materials/Material.hh"

#include <cmath>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "phantoms/materials/Element.hh"
#include "phantoms/materials/MaterialCatalogue.hh"

namespace mcdose::test
{
TEST(MaterialCatalogue, AllIssueMaterialsPresent)
{
    for (char const* name :
         {"water", "water_icru90", "air", "soft_tissue_icru44", "muscle_skeletal_icrp",
          "adipose_icrp", "lung_icrp", "bone_cortical_icrp", "bone_compact_icru", "pmma",
          "polystyrene", "graphite", "aluminium", "titanium", "copper", "tungsten", "lead"})
    {
        Material const& m = find_material(name);
        EXPECT_EQ(m.name, name);
        double sum = 0;
        for (auto const& c : m.components)
            sum += c.mass_fraction;
        EXPECT_NEAR(sum, 1.0, 1e-12) << name;
        EXPECT_GT(m.density_g_cm3, 0) << name;
        EXPECT_GT(m.mean_excitation_energy_eV, 40) << name;
    }
    EXPECT_DOUBLE_EQ(find_material("water").mean_excitation_energy_eV, 75.0);
    EXPECT_DOUBLE_EQ(find_material("water_icru90").mean_excitation_energy_eV, 78.0);
    EXPECT_EQ(find_material("soft_tissue_icru44").mean_excitation_source,
              MeanExcitationSource::bragg_additivity);
}

TEST(MaterialCatalogue, WaterElectronDensity)
{
    // Z/A of H2O = 10 / 18.015 = 0.5551 mol/g
    EXPECT_NEAR(find_material("water").z_over_a(), 10 / 18.0153, 2e-4);
    EXPECT_NEAR(find_material("water").electron_density_cm3(), 3.343e23, 0.002e23);
}

TEST(MaterialCatalogue, TypoSuggestsClosestName)
{
    try
    {
        find_material("watr");
        FAIL() << "expected an error";
    }
    catch (RuntimeError const& e)
    {
        std::string const what = e.what();
        EXPECT_NE(what.find("did you mean 'water'"), std::string::npos) << what;
        EXPECT_NE(what.find("known materials"), std::string::npos) << what;
    }
}

TEST(Material, BraggAdditivity)
{
    // ln I = sum w (Z/A) ln I_i / sum w (Z/A), computed here independently for H2O
    double const wh = 0.111894;
    double const wo = 0.888106;
    double const eh = wh * 1 / element_data(1).atomic_weight_g_mol;
    double const eo = wo * 8 / element_data(8).atomic_weight_g_mol;
    double const expected = std::exp((eh * std::log(19.2) + eo * std::log(95.0)) / (eh + eo));
    auto m = make_material({"w", {{1, wh}, {8, wo}}, 1.0, 0.0, false, ""});
    EXPECT_NEAR(m.mean_excitation_energy_eV, expected, 1e-9);
    EXPECT_EQ(m.mean_excitation_source, MeanExcitationSource::bragg_additivity);
}

TEST(Material, ValidationNamesTheField)
{
    auto expect_error = [](MaterialInput in, char const* fragment)
    {
        try
        {
            make_material(std::move(in));
            ADD_FAILURE() << "expected an error containing " << fragment;
        }
        catch (RuntimeError const& e)
        {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    expect_error({"x", {{1, 0.5}, {8, 0.4}}, 1.0, 0, false, ""}, "sum to");
    expect_error({"x", {{1, 1.0}}, -1.0, 0, false, ""}, "density_g_cm3");
    expect_error({"x", {}, 1.0, 0, false, ""}, "'elements' is empty");
    expect_error({"x", {{0, 1.0}}, 1.0, 0, false, ""}, "atomic number 0");
    expect_error({"x", {{1, 1.0}}, 1.0, -5, false, ""}, "mean_excitation_energy_eV");
}

TEST(Material, DuplicatesMergedAndSorted)
{
    auto m = make_material({"x", {{8, 0.5}, {1, 0.25}, {8, 0.25}}, 1.0, 70, false, ""});
    ASSERT_EQ(m.components.size(), 2u);
    EXPECT_EQ(m.components[0].atomic_number, 1);
    EXPECT_DOUBLE_EQ(m.components[1].mass_fraction, 0.75);
}
} // namespace mcdose::test
