//! \file test/transport/physics/VoxelDensity.test.cc
//! The density dependence of the electron physics: the Sternheimer density-effect
//! correction at a voxel's own density, and the density nodes the transport
//! interpolates the soft stopping power on.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "core/Constants.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/engine/ElectronTables.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/physics/DensityEffect.hh"
#include "transport/physics/ElectronPhysics.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose::test
{
namespace
{
Material water_at(double density_g_cm3)
{
    Material m = find_material("water");
    m.density_g_cm3 = density_g_cm3;
    return m;
}

PhysicsTables const& water_tables()
{
    static PhysicsTables const t({find_material("water")}, physics_table_options(
                                                               []
                                                               {
                                                                   TransportOptions o;
                                                                   o.emax_MeV = 50;
                                                                   return o;
                                                               }()));
    return t;
}

double beta_gamma(double T_MeV)
{
    double const tau = T_MeV / constants::electron_mass_MeV;
    return std::sqrt(tau * (tau + 2));
}
} // namespace

// Far above every oscillator energy delta tends to 2 ln(h nu_p / I) + 2 ln(beta gamma) - 1
// whatever the oscillators (Sternheimer 1952; ICRU-37 Eq. 4.22 with C = 2 ln(I/h nu_p) + 1),
// with the plasma energy h nu_p = 28.816 sqrt(rho Z/A) eV (ICRU-37 Eq. 4.19, rho in g/cm^3):
// an independent check of delta at liquid and at vapour density.
TEST(DensityEffect, WaterHighEnergyLimitAtOneAndAThousandthGramPerCm3)
{
    double const z_over_a = 0.555087; // H2O: 10 electrons / 18.0153 g/mol
    double const T = 1e5;             // MeV: beta gamma = 2e5
    for (double rho : {1.0, 1e-3})
    {
        Material const w = water_at(rho);
        ASSERT_NEAR(w.z_over_a(), z_over_a, 1e-5);
        DensityEffect const delta(w);
        double const plasma_eV = 28.816 * std::sqrt(rho * z_over_a);
        EXPECT_NEAR(delta.plasma_energy_eV() / plasma_eV, 1, 1e-4) << rho;
        double const limit =
            2 * std::log(plasma_eV / w.mean_excitation_energy_eV) + 2 * std::log(beta_gamma(T)) - 1;
        EXPECT_NEAR(delta.at_kinetic_energy(T), limit, 2e-3) << rho;
    }
    // A gas has no density effect until beta gamma is large (ICRU-37 Sec. 4.3: X0 about 1.8
    // for water vapour, beta gamma 60): none at 1 MeV, where liquid water already has some.
    EXPECT_EQ(DensityEffect(water_at(1e-3)).at_kinetic_energy(1.0), 0.0);
    EXPECT_GT(DensityEffect(water_at(1.0)).at_kinetic_energy(1.0), 0.2);
}

// S_col differs between densities only through delta: by 2 pi r_e^2 m c^2 n_e / beta^2 times
// the difference of delta (ICRU-37 Eq. 2.1), written out here.
TEST(DensityEffect, CollisionStoppingAtADensityDiffersOnlyByDelta)
{
    PhysicsTables const& t = water_tables();
    auto const at_vapour = t.restricted_collision_at_density(0, 1e-3);
    auto const at_liquid = t.restricted_collision_at_density(0, 1.0);
    auto const column = t.electron_column(0, ElectronColumn::restricted_col_electron);
    DensityEffect const d_vapour(water_at(1e-3));
    DensityEffect const d_liquid(water_at(1.0));
    double const re = constants::classical_electron_radius_cm;
    double const k = constants::two_pi * re * re * constants::electron_mass_MeV *
                     constants::avogadro * find_material("water").z_over_a();
    TableGrid const& grid = t.options().electron_grid;
    for (unsigned i = 0; i < grid.size; i += 37)
    {
        double const T = grid.energy_MeV(i);
        if (T < 0.01)
            continue; // below the Bethe maximum's continuation both are delta free
        EXPECT_EQ(at_liquid[0][i], column[i]) << "the material's own density: the column itself";
        double const tau = T / constants::electron_mass_MeV;
        double const beta2 = tau * (tau + 2) / ((tau + 1) * (tau + 1));
        double const expected =
            k / beta2 * (d_liquid.at_kinetic_energy(T) - d_vapour.at_kinetic_energy(T));
        EXPECT_NEAR(at_vapour[0][i] - at_liquid[0][i], expected, 1e-9 * at_liquid[0][i]) << T;
        EXPECT_GE(at_vapour[1][i],
                  t.electron_column(0, ElectronColumn::restricted_col_positron)[i]);
    }
    // The size of the effect that matters in lung: S_col at 20 MeV, 0.26 vs 1.05 g/cm^3.
    Material lung = find_material("lung_icrp");
    PhysicsTables const lt({lung}, t.options());
    double const nominal = lt.electron(0, ElectronColumn::restricted_col_electron, 20.0);
    auto const at_lung = lt.restricted_collision_at_density(0, 0.26);
    TableGrid const& g = lt.options().electron_grid;
    unsigned const i20 = static_cast<unsigned>(std::lround((std::log(20.0) - g.ln_emin) / g.delta));
    double const ratio =
        at_lung[0][i20] / lt.electron_column(0, ElectronColumn::restricted_col_electron)[i20];
    EXPECT_GT(ratio, 1.02) << nominal;
    EXPECT_LT(ratio, 1.08) << nominal;
}

// The transport interpolates the soft stopping power linearly in ln rho between density
// nodes; at densities drawn over the whole range the error stays at the stated tolerance.
TEST(DensityNodes, InterpolationInLnRhoWithinTolerance)
{
    PhysicsTables const& t = water_tables();
    DensityRange const range{1e-3, 2.0};
    auto const nodes = density_node_tables(t, 0, range);
    ASSERT_GT(nodes.nodes.count, 2u);
    ASSERT_EQ(nodes.stopping.size(), nodes.nodes.count);
    EXPECT_NEAR(nodes.nodes.density_g_cm3(0), 1e-3, 1e-12);
    EXPECT_NEAR(nodes.nodes.density_g_cm3(nodes.nodes.count - 1), 2.0, 1e-12);
    auto const rad = t.electron_column(0, ElectronColumn::restricted_rad);
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> ln_rho(std::log(range.min_g_cm3),
                                                  std::log(range.max_g_cm3));
    double worst = 0;
    for (int trial = 0; trial < 40; ++trial)
    {
        double const x = (ln_rho(gen) - nodes.nodes.ln_density_min) / nodes.nodes.ln_step;
        unsigned const k = std::min<unsigned>(static_cast<unsigned>(x), nodes.nodes.count - 2);
        double const g = x - k;
        double const rho = nodes.nodes.density_g_cm3(0) * std::exp(x * nodes.nodes.ln_step);
        auto const direct = t.restricted_collision_at_density(0, rho);
        for (unsigned l = 0; l < 2; ++l)
        {
            for (std::size_t i = 0; i < rad.size(); ++i)
            {
                double const lo = nodes.stopping[k][l][i];
                double const hi = nodes.stopping[k + 1][l][i];
                double const want = direct[l][i] + rad[i];
                worst = std::max(worst, std::fabs((lo + g * (hi - lo)) / want - 1));
            }
        }
    }
    EXPECT_LT(worst, density_node_tolerance * 1.5)
        << nodes.nodes.count << " nodes, worst " << worst;
}

// One density (or the nominal model): one node, exactly at that density; the material's
// own density gives the builder's columns bit for bit.
TEST(DensityNodes, SingleDensityIsExact)
{
    PhysicsTables const& t = water_tables();
    auto const own = density_node_tables(t, 0, DensityRange{1.0, 1.0});
    ASSERT_EQ(own.nodes.count, 1u);
    auto const col = t.electron_column(0, ElectronColumn::restricted_col_electron);
    auto const rad = t.electron_column(0, ElectronColumn::restricted_rad);
    for (std::size_t i = 0; i < col.size(); ++i)
        ASSERT_EQ(own.stopping[0][0][i], col[i] + rad[i]);
    auto const other = density_node_tables(t, 0, DensityRange{0.26, 0.26});
    ASSERT_EQ(other.nodes.count, 1u);
    auto const direct = t.restricted_collision_at_density(0, 0.26);
    for (std::size_t i = 0; i < col.size(); ++i)
        ASSERT_EQ(other.stopping[0][1][i], direct[1][i] + rad[i]);
}

// The kernel's lookup (ElectronTransportView::stopping_rows / soft_stopping) on a phantom
// of water at two densities: each density reads its own node, one in between interpolates;
// the nominal model has one row per material whatever the densities.
TEST(DensityNodes, TransportViewReadsTheVoxelDensity)
{
    GridGeometry g;
    g.dims = {{2, 1, 1}};
    g.spacing_cm = {{1, 1, 1}};
    VoxelGridParams const grid(g, {0, 0}, {1.0f, 0.3f}, 1);
    TransportOptions o;
    o.emax_MeV = 20;
    TransportParams const voxel({find_material("water")}, grid, o);
    o.electron.density_effect = DensityEffectModel::nominal;
    TransportParams const nominal({find_material("water")}, grid, o);
    auto const v = voxel.view<double>(MemSpace::host).electron;
    auto const n = nominal.view<double>(MemSpace::host).electron;
    ASSERT_EQ(n.density_nodes.size(), 1u);
    EXPECT_EQ(n.density_nodes[0].count, 1u);
    EXPECT_EQ(n.stopping.size(), 2u * n.grid.size);
    ASSERT_GT(v.density_nodes[0].count, 1u);

    PhysicsTables const t({find_material("water")}, physics_table_options(o));
    auto const rad = t.electron_column(0, ElectronColumn::restricted_rad);
    for (double rho : {1.0, 0.3, 0.55})
    {
        auto const direct = t.restricted_collision_at_density(0, float(rho));
        auto const rows = v.stopping_rows(0, 0, rho);
        for (unsigned i = 0; i + 1 < v.grid.size; i += 11)
        {
            double const want = direct[0][i] + rad[i];
            double const got = v.soft_stopping(rows, i, 0.0);
            double const tol = rho == 0.55 ? density_node_tolerance * 1.5 : 1e-6;
            EXPECT_NEAR(got / want, 1, tol) << rho << " g/cm^3, point " << i;
            // The nominal model reads liquid water's value at every density.
            EXPECT_EQ(n.soft_stopping(n.stopping_rows(0, 0, rho), i, 0.0),
                      t.electron_column(0, ElectronColumn::restricted_col_electron)[i] + rad[i]);
        }
    }
}
} // namespace mcdose::test
