#include "core/Constants.hh"

#include <cmath>

#include <gtest/gtest.h>

namespace mcdose
{
// The CODATA values are independent adjustments, so their defining relations
// hold to the precision of the published digits (~1e-10 relative).
TEST(ConstantsTest, DefiningRelationsHold)
{
    using namespace constants;
    // r_e = alpha * hbar/(m_e c)
    EXPECT_NEAR(classical_electron_radius_cm, fine_structure * reduced_compton_wavelength_cm,
                1e-9 * classical_electron_radius_cm);
    // a_0 = hbar/(m_e c) / alpha
    EXPECT_NEAR(bohr_radius_cm, reduced_compton_wavelength_cm / fine_structure,
                1e-9 * bohr_radius_cm);
    // hbar c = m_e c^2 * hbar/(m_e c)
    EXPECT_NEAR(hbar_c_MeV_cm, electron_mass_MeV * reduced_compton_wavelength_cm,
                1e-9 * hbar_c_MeV_cm);
    // Bethe prefactor per mole of electrons: 0.307075 MeV cm^2/mol / 2 (PDG 2022, K/2)
    EXPECT_NEAR(0.307075 / 2, bethe_prefactor_MeV_cm2_mol, 1e-6);
    EXPECT_NEAR(1.602176634e-10, gray_per_MeV_g, 1e-22);
}
} // namespace mcdose
