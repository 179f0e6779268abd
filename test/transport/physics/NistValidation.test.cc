//! \file test/transport/physics/NistValidation.test.cc
//! Acceptance of the physics tables (the transported ones, as `mcdose materials` prints
//! them) against NIST XCOM (photons) and ESTAR (electrons) for water and dry air.
//! Tolerances are the physics data's acceptance tolerances; where a model is documented
//! in docs/physics.md as limited, the tested range says so explicitly.
#include <cmath>

#include <gtest/gtest.h>

#include "NistReference.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose::test
{
namespace
{
struct Case
{
    char const* material;
    char const* photon_file;
    char const* electron_file;
};

Case const cases[] = {{"water", "nist/nist_photon_water.csv", "nist/nist_estar_water.csv"},
                      {"air", "nist/nist_photon_air_dry.csv", "nist/nist_estar_air_dry.csv"}};

//! The transport's tables with the study defaults up to 50 MeV, with the dosimetry columns.
PhysicsTables const& tables()
{
    static PhysicsTables const t = []
    {
        TransportOptions o;
        o.emax_MeV = 50;
        PhysicsTableOptions options = physics_table_options(o);
        options.dosimetry = true;
        return PhysicsTables({find_material("water"), find_material("air")}, options);
    }();
    return t;
}

double rel(double a, double b)
{
    return (a - b) / b;
}
} // namespace

TEST(NistXcom, MassAttenuation)
{
    for (auto const& c : cases)
    {
        auto const ref = read_reference_csv(c.photon_file);
        auto const mi = tables().material_index(c.material);
        for (std::size_t i = 0; i < ref.rows(); ++i)
        {
            double const e = ref["energy_MeV"][i];
            double const mu = tables().photon(mi, PhotonColumn::mu, e);
            // 1% from 10 keV to 20 MeV (the acceptance criterion). Measured: -0.80% at 20 MeV,
            // where the radiative corrections that XCOM includes (pair, Compton) are not modelled.
            double const tol = 0.01;
            EXPECT_LT(std::fabs(rel(mu, ref["mu_rho_cm2_g"][i])), tol)
                << c.material << " E=" << e << " MeV: mu/rho " << mu << " vs XCOM "
                << ref["mu_rho_cm2_g"][i];
        }
    }
}

TEST(NistXcom, MassEnergyAbsorption)
{
    for (auto const& c : cases)
    {
        auto const ref = read_reference_csv(c.photon_file);
        auto const mi = tables().material_index(c.material);
        for (std::size_t i = 0; i < ref.rows(); ++i)
        {
            double const e = ref["energy_MeV"][i];
            double const muen = tables().photon(mi, PhotonColumn::mu_en, e);
            // Measured: +1.5% at 20 MeV (g lacks the positrons' annihilation in flight,
            // docs/physics.md, Known limitations).
            double const tol = 0.02;
            EXPECT_LT(std::fabs(rel(muen, ref["mu_en_rho_cm2_g"][i])), tol)
                << c.material << " E=" << e << " MeV: mu_en/rho " << muen << " vs NIST "
                << ref["mu_en_rho_cm2_g"][i];
        }
    }
}

TEST(NistEstar, StoppingPowersRangeYieldDelta)
{
    using Q = ElectronColumn;
    for (auto const& c : cases)
    {
        auto const ref = read_reference_csv(c.electron_file);
        auto const mi = tables().material_index(c.material);
        for (std::size_t i = 0; i < ref.rows(); ++i)
        {
            double const T = ref["energy_MeV"][i];
            double const scol = tables().electron(mi, Q::s_col_electron, T);
            double const srad = tables().electron(mi, Q::s_rad, T);
            double const range = tables().electron(mi, Q::csda_range_electron, T);
            double const delta = tables().electron(mi, Q::density_effect, T);
            EXPECT_LT(std::fabs(rel(scol, ref["s_col_MeV_cm2_g"][i])), 0.01)
                << c.material << " T=" << T << ": S_col " << scol << " vs ESTAR "
                << ref["s_col_MeV_cm2_g"][i];
            // Radiative: 5% from 100 keV; at 10 keV the Elwert-corrected Born model is
            // ~7.5% high (documented limitation; S_rad/S_col ~ 2e-4 there).
            double const rad_tol = T >= 0.1 ? 0.05 : 0.08;
            EXPECT_LT(std::fabs(rel(srad, ref["s_rad_MeV_cm2_g"][i])), rad_tol)
                << c.material << " T=" << T << ": S_rad " << srad << " vs ESTAR "
                << ref["s_rad_MeV_cm2_g"][i];
            EXPECT_LT(std::fabs(rel(range, ref["csda_g_cm2"][i])), 0.015)
                << c.material << " T=" << T << ": CSDA range " << range << " vs ESTAR "
                << ref["csda_g_cm2"][i];
            EXPECT_LT(std::fabs(delta - ref["density_effect"][i]), 0.05)
                << c.material << " T=" << T << ": delta " << delta << " vs ESTAR "
                << ref["density_effect"][i];
        }
    }
}

TEST(NistEstar, RadiationYield)
{
    for (auto const& c : cases)
    {
        auto const ref = read_reference_csv(c.electron_file);
        auto const mi = tables().material_index(c.material);
        for (std::size_t i = 0; i < ref.rows(); ++i)
        {
            double const T = ref["energy_MeV"][i];
            double const y = tables().electron(mi, ElectronColumn::radiation_yield, T);
            // The yield integrates S_rad/S_tot from 0, so it inherits the radiative
            // model's overestimate below 0.1 MeV: +15% at 10 keV (documented limitation).
            double const tol = T >= 0.1 ? 0.05 : 0.2;
            EXPECT_LT(std::fabs(rel(y, ref["radiation_yield"][i])), tol)
                << c.material << " T=" << T << ": Y " << y << " vs ESTAR "
                << ref["radiation_yield"][i];
        }
    }
}
} // namespace mcdose::test
