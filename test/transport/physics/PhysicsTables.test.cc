//! \file test/transport/physics/PhysicsTables.test.cc
#include "transport/physics/PhysicsTables.hh"

#include <cmath>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/physics/ElectronPhysics.hh"
#include "transport/physics/PhotonCrossSections.hh"
#include "transport/physics/PhotonPhysics.hh"

namespace mcdose::test
{
namespace
{
//! The transport's tables up to 50 MeV with the study defaults, as `mcdose materials`
//! builds them.
PhysicsTableOptions printed_options()
{
    TransportOptions o;
    o.emax_MeV = 50;
    PhysicsTableOptions t = physics_table_options(o);
    t.dosimetry = true;
    return t;
}

PhysicsTables const& tables()
{
    static PhysicsTables const t({find_material("water"), find_material("lead")},
                                 printed_options());
    return t;
}

//! Whether an absorption edge of material m lies in [e0, e1] (the uniform grid smears an
//! edge over the bin that holds it: LogGrid.hh).
bool bin_has_edge(Material const& m, double e0, double e1)
{
    for (auto const& c : m.components)
    {
        if (!photo_edges_MeV(c.atomic_number, e0 * (1 - 1e-3), e1 * (1 + 1e-3)).empty())
            return true;
    }
    return false;
}

//! Geometric midpoints of every `stride`-th bin of `grid` (where the interpolation error is
//! largest), leaving out bins of material m that hold an absorption edge and, with
//! `skip_after_edge`, the bin above them (mu_en of lead: xraylib's partial shell cross
//! sections jump slightly off the edge energy; docs/physics.md).
std::vector<double> midpoints(TableGrid const& grid, Material const* m, unsigned stride,
                              bool skip_after_edge = false)
{
    std::vector<double> result;
    for (unsigned i = 0; i + 1 < grid.size; i += stride)
    {
        double const e0 = grid.energy_MeV(i);
        double const e1 = grid.energy_MeV(i + 1);
        if (m && bin_has_edge(*m, e0, e1))
            continue;
        if (m && skip_after_edge && i > 0 && bin_has_edge(*m, grid.energy_MeV(i - 1), e0))
            continue;
        result.push_back(std::sqrt(e0 * e1));
    }
    return result;
}
} // namespace

TEST(PhysicsTables, ElectronInterpolationBelowPointOnePercent)
{
    using C = ElectronColumn;
    auto const& o = tables().options();
    for (std::uint32_t mi = 0; mi < 2; ++mi)
    {
        ElectronPhysics const ep(tables().materials()[mi]);
        for (double T : midpoints(o.electron_grid, nullptr, 3))
        {
            auto check = [&](C c, double direct)
            {
                double const interp = tables().electron(mi, c, T);
                EXPECT_NEAR(interp / direct, 1.0, 1e-3)
                    << tables().materials()[mi].name << " " << to_cstring(c) << " T=" << T;
            };
            check(C::s_col_electron, ep.collision_stopping(T, Lepton::electron));
            check(C::s_col_positron, ep.collision_stopping(T, Lepton::positron));
            check(C::s_rad, ep.radiative_stopping(T));
            check(C::restricted_col_electron,
                  ep.restricted_collision_stopping(T, o.delta_cut_MeV, Lepton::electron));
            check(C::restricted_col_positron,
                  ep.restricted_collision_stopping(T, o.delta_cut_MeV, Lepton::positron));
            check(C::restricted_rad, ep.restricted_radiative_stopping(T, o.brems_cut_MeV));
            check(C::transport_xs_electron, ep.transport_cross_section(T, Lepton::electron));
            check(C::transport_xs2_positron,
                  ep.second_transport_cross_section(T, Lepton::positron));
            check(C::annihilation, ep.annihilation_cross_section(T));
            // Hard cross sections vanish at 2x (Møller) and 1x (brems) the cut: test above
            if (T > 4 * o.delta_cut_MeV)
                check(C::hard_moller,
                      ep.hard_collision_cross_section(T, o.delta_cut_MeV, Lepton::electron));
            if (T > 2 * o.brems_cut_MeV)
                check(C::hard_brems, ep.hard_brems_cross_section(T, o.brems_cut_MeV));
        }
    }
}

TEST(PhysicsTables, PhotonInterpolationBelowPointOnePercent)
{
    using C = PhotonColumn;
    auto const& o = tables().options();
    for (std::uint32_t mi = 0; mi < 2; ++mi)
    {
        auto const& m = tables().materials()[mi];
        YieldFunction yield = [&](double T)
        { return tables().electron(mi, ElectronColumn::radiation_yield, T); };
        for (double e : midpoints(o.photon_grid, &m, 7, /* skip_after_edge = */ true))
        {
            auto const c = photon_coefficients(m, e, yield);
            auto check = [&](C col, double direct)
            {
                double const interp = tables().photon(mi, col, e);
                EXPECT_NEAR(interp / direct, 1.0, 1e-3)
                    << m.name << " " << to_cstring(col) << " E=" << e;
            };
            check(C::mu, c.mu);
            check(C::mu_en, c.mu_en);
            check(C::incoherent, c.incoherent);
            check(C::coherent, c.coherent);
            check(C::photo, c.photo);
            if (e > 3.0)
                check(C::pair, c.pair());
        }
    }
}

TEST(PhysicsTables, RangeAndYieldAreMonotonic)
{
    auto const& grid = tables().options().electron_grid;
    for (std::uint32_t mi = 0; mi < 2; ++mi)
    {
        // The range always grows; the yield grows above 0.1 MeV (below, in lead, S_rad/S_tot
        // falls with T where S_col is continued below the Bethe maximum).
        for (auto c : {ElectronColumn::csda_range_electron, ElectronColumn::radiation_yield})
        {
            auto const v = tables().electron_column(mi, c);
            for (unsigned i = 1; i < grid.size; ++i)
            {
                if (c == ElectronColumn::radiation_yield && grid.energy_MeV(i - 1) < 0.1)
                    continue;
                EXPECT_GT(v[i], v[i - 1]) << to_cstring(c) << " at " << grid.energy_MeV(i);
            }
        }
    }
}

// The dosimetry option adds columns and changes none of the transported ones, and the
// transport takes its mu/rho from the same builder: the printed mu is the transported one.
TEST(PhysicsTables, PrintedTablesAreTheTransportedOnes)
{
    TransportOptions o;
    o.emax_MeV = 50;
    PhysicsTables const plain({find_material("water"), find_material("lead")},
                              physics_table_options(o));
    for (std::uint32_t m = 0; m < 2; ++m)
    {
        for (auto c : {PhotonColumn::photo, PhotonColumn::incoherent, PhotonColumn::coherent,
                       PhotonColumn::pair, PhotonColumn::mu})
        {
            auto const a = plain.photon_column(m, c);
            auto const b = tables().photon_column(m, c);
            ASSERT_EQ(a.size(), b.size());
            for (std::size_t i = 0; i < a.size(); ++i)
                ASSERT_EQ(a[i], b[i]) << to_cstring(c) << " " << i;
        }
        for (std::uint32_t c = 0; c < static_cast<std::uint32_t>(ElectronColumn::size_); ++c)
        {
            auto const col = static_cast<ElectronColumn>(c);
            if (is_dosimetry(col))
                continue;
            auto const a = plain.electron_column(m, col);
            auto const b = tables().electron_column(m, col);
            ASSERT_EQ(a.size(), b.size());
            for (std::size_t i = 0; i < a.size(); ++i)
                ASSERT_EQ(a[i], b[i]) << to_cstring(col) << " " << i;
        }
    }

    GridGeometry g;
    g.dims = {{1, 1, 2}};
    g.spacing_cm = {{1, 1, 1}};
    VoxelGridParams const voxels(g, {0, 1}, {1.0f, 11.35f}, 2);
    TransportParams const params({find_material("water"), find_material("lead")}, voxels, o);
    EXPECT_EQ(params.energies_MeV(), tables().options().photon_grid.energies_MeV());
    for (std::uint32_t m = 0; m < 2; ++m)
    {
        auto const mu = tables().photon_column(m, PhotonColumn::mu);
        EXPECT_EQ(params.mu_rho(m), std::vector<double>(mu.begin(), mu.end()));
    }
}

TEST(PhysicsTables, LookupAndErrors)
{
    EXPECT_EQ(tables().material_index("lead"), 1u);
    EXPECT_THROW(tables().material_index("lede"), RuntimeError);
    EXPECT_THROW(tables().material_index("air"), RuntimeError); // catalogue, not in tables
    PhysicsTableOptions bad = printed_options();
    bad.delta_cut_MeV = 0;
    EXPECT_THROW(PhysicsTables({find_material("water")}, bad), RuntimeError);
    bad = printed_options();
    bad.electron_grid = {};
    EXPECT_THROW(PhysicsTables({find_material("water")}, bad), RuntimeError); // mu_en: yield
    bad.dosimetry = false;
    PhysicsTables const photons_only({find_material("water")}, bad);
    EXPECT_FALSE(photons_only.has_electrons());
    EXPECT_THROW(photons_only.photon_column(0, PhotonColumn::mu_en), RuntimeError);
    EXPECT_THROW(photons_only.electron(0, ElectronColumn::hard_moller, 1.0), RuntimeError);
    // Clamped outside the grid; the grid values at the grid points (to the rounding of
    // ln E in the bin search)
    auto const& grid = tables().options().photon_grid;
    double const lo = tables().photon(0, PhotonColumn::mu, 1e-6);
    EXPECT_DOUBLE_EQ(lo, tables().photon(0, PhotonColumn::mu, grid.energy_MeV(0)));
    double const at_17 = tables().photon_column(0, PhotonColumn::mu)[17];
    EXPECT_NEAR(tables().photon(0, PhotonColumn::mu, grid.energy_MeV(17)), at_17, 1e-12 * at_17);
}
} // namespace mcdose::test
