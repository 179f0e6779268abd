//! \file test/phantoms/materials/Element.test.cc
#include "phantoms/materials/Element.hh"

#include <gtest/gtest.h>

#include "core/Assert.hh"

namespace mcdose::test
{
TEST(Element, AllElementsHaveData)
{
    for (int Z = 1; Z <= max_atomic_number; ++Z)
    {
        auto const& el = element_data(Z);
        EXPECT_EQ(el.atomic_number, Z);
        EXPECT_FALSE(el.symbol.empty()) << Z;
        // Atomic weights grow roughly as 2Z..2.6Z beyond hydrogen
        EXPECT_GT(el.atomic_weight_g_mol, 0.99 * Z) << Z;
        EXPECT_LT(el.atomic_weight_g_mol, 2.7 * Z + 1) << Z;
        EXPECT_GT(el.mean_excitation_energy_eV, 15) << Z;
        EXPECT_GT(el.density_g_cm3, 0) << Z;
        EXPECT_GT(el.first_ionization_energy_eV, 3.5) << Z;
        EXPECT_LT(el.first_ionization_energy_eV, 25) << Z;
    }
}

TEST(Element, Icru37Values)
{
    // ICRU Report 37 Table 4.3
    EXPECT_DOUBLE_EQ(element_data(1).mean_excitation_energy_eV, 19.2);
    EXPECT_DOUBLE_EQ(element_data(6).mean_excitation_energy_eV, 78.0);
    EXPECT_DOUBLE_EQ(element_data(8).mean_excitation_energy_eV, 95.0);
    EXPECT_DOUBLE_EQ(element_data(13).mean_excitation_energy_eV, 166.0);
    EXPECT_DOUBLE_EQ(element_data(82).mean_excitation_energy_eV, 823.0);
    EXPECT_DOUBLE_EQ(element_data(100).mean_excitation_energy_eV, 994.0);
    EXPECT_NEAR(element_data(8).atomic_weight_g_mol, 15.999, 0.01);
    EXPECT_NEAR(element_data(82).density_g_cm3, 11.35, 0.01);
}

TEST(Element, Symbols)
{
    EXPECT_EQ(atomic_number_from_symbol("H"), 1);
    EXPECT_EQ(atomic_number_from_symbol("Pb"), 82);
    EXPECT_EQ(atomic_number_from_symbol("PB"), 82);
    EXPECT_EQ(atomic_number_from_symbol("fm"), 100);
    EXPECT_THROW(element_data(0), RuntimeError);
    EXPECT_THROW(element_data(101), RuntimeError);
    try
    {
        atomic_number_from_symbol("Ox");
        FAIL() << "expected an error";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("unknown element symbol 'Ox'"), std::string::npos)
            << e.what();
    }
}
} // namespace mcdose::test
