//! \file test/transport/physics/MaterialsCommand.test.cc
//! The `mcdose materials` CSV is a script interface: its column names and order are fixed.
#include <string>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"

namespace mcdose::test
{
TEST(MaterialsCommand, PhotonCsvColumns)
{
    auto const r = run_command(mcdose_exe() + " materials --material water --particle photon --csv "
                                              "--energies 0.1,1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.substr(0, r.output.find('\n')),
              "energy_MeV,mu_rho_cm2_g,mu_en_rho_cm2_g,photo_cm2_g,incoherent_cm2_g,"
              "coherent_cm2_g,pair_cm2_g");
    // Second row: E = 0.1 MeV, mu/rho within 1% of XCOM's 0.1707 cm^2/g
    auto const row = r.output.find("\n0.1,");
    ASSERT_NE(row, std::string::npos) << r.output;
    EXPECT_NEAR(std::stod(r.output.substr(row + 5)), 0.1707, 0.001707) << r.output;
}

TEST(MaterialsCommand, ElectronCsvColumns)
{
    auto const r = run_command(mcdose_exe() + " materials --material air --particle electron --csv "
                                              "--energies 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.substr(0, r.output.find('\n')),
              "energy_MeV,s_col_MeV_cm2_g,s_rad_MeV_cm2_g,s_tot_MeV_cm2_g,csda_g_cm2,"
              "radiation_yield,density_effect");
    // E = 1 MeV, S_col within 1% of ESTAR's 1.661 MeV cm^2/g
    auto const row = r.output.find("\n1,");
    ASSERT_NE(row, std::string::npos) << r.output;
    EXPECT_NEAR(std::stod(r.output.substr(row + 3)), 1.661, 0.01661) << r.output;
}

// --transported prints the columns the kernel reads, with the study's cuts: the restricted
// stopping power lies below the unrestricted one, and the larger the cut the closer to it.
TEST(MaterialsCommand, TransportedElectronColumnsFollowTheCuts)
{
    auto stopping_at_1MeV = [](std::string const& cuts)
    {
        auto const r = run_command(mcdose_exe() +
                                   " materials --material water --particle electron --csv "
                                   "--transported --energies 1" +
                                   cuts);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_EQ(r.output.substr(0, r.output.find('\n')),
                  "energy_MeV,stopping_electron_MeV_cm2_g,stopping_positron_MeV_cm2_g,"
                  "moller_cm2_g,bhabha_cm2_g,brems_cm2_g,annihilation_cm2_g,"
                  "transport_xs_electron_cm2_g,transport_xs_positron_cm2_g")
            << r.output;
        auto const row = r.output.find("\n1,");
        EXPECT_NE(row, std::string::npos) << r.output;
        return row == std::string::npos ? 0.0 : std::stod(r.output.substr(row + 3));
    };
    double const study_default = stopping_at_1MeV("");
    double const wide = stopping_at_1MeV(" --delta-ray-cut-MeV 0.45 --brems-cut-MeV 0.9");
    // ESTAR water at 1 MeV: S_col 1.849, S_tot 1.862 MeV cm^2/g
    EXPECT_LT(study_default, wide);
    EXPECT_LT(wide, 1.862);
    EXPECT_GT(study_default, 0.8 * 1.849);
    auto const bad =
        run_command(mcdose_exe() + " materials --material water --brems-cut-MeV 0 --csv");
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
    EXPECT_NE(bad.output.find("brems_cut_MeV"), std::string::npos) << bad.output;
}

TEST(MaterialsCommand, TypoGivesOneLineHint)
{
    auto const r = run_command(mcdose_exe() + " materials --material watr --csv");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("did you mean 'water'"), std::string::npos) << r.output;
    auto const e = run_command(mcdose_exe() + " materials --material water --energies 100");
    EXPECT_EQ(e.exit_code, 1) << e.output;
    EXPECT_NE(e.output.find("--energies"), std::string::npos) << e.output;
}
} // namespace mcdose::test
