//! \file test/transport/physics/MaterialsCommand.test.cc
//! The `mcdose materials` CSV is a script interface: its columns are fixed by issue 5.
#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"

namespace mcdose::test
{
TEST(MaterialsCommand, PhotonCsvColumns)
{
    auto const r = run_command(mcdose_exe()
                               + " materials --material water --particle photon --csv "
                                 "--energies 0.1,1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.substr(0, r.output.find('\n')),
              "energy_MeV,mu_rho_cm2_g,mu_en_rho_cm2_g,photo_cm2_g,incoherent_cm2_g,"
              "coherent_cm2_g,pair_cm2_g");
    EXPECT_NE(r.output.find("\n0.1,0.1707"), std::string::npos) << r.output;
}

TEST(MaterialsCommand, ElectronCsvColumns)
{
    auto const r = run_command(mcdose_exe()
                               + " materials --material air --particle electron --csv "
                                 "--energies 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.substr(0, r.output.find('\n')),
              "energy_MeV,s_col_MeV_cm2_g,s_rad_MeV_cm2_g,s_tot_MeV_cm2_g,csda_g_cm2,"
              "radiation_yield,density_effect");
    EXPECT_NE(r.output.find("\n1,1.66"), std::string::npos) << r.output;
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
}  // namespace mcdose::test
