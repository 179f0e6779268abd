//! \file test/transport/physics/PhysicsTables.test.cc
#include "transport/physics/PhysicsTables.hh"

#include <cmath>
#include <type_traits>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/physics/ElectronPhysics.hh"
#include "transport/physics/PhotonPhysics.hh"

namespace mcdose::test
{
static_assert(std::is_trivially_copyable<PhysicsTableView>::value,
              "the table view is passed by value to kernels");

namespace
{
PhysicsTables const& tables()
{
    static PhysicsTables const t({find_material("water"), find_material("lead")});
    return t;
}

//! Geometric midpoints of the grid of (material, quantity): where log–log interpolation
//! error is largest. Intervals that bracket an absorption edge (jumps by construction)
//! are skipped, and with `skip_after_edge` also the interval just above an edge doublet
//! (mu_en of lead: xraylib's partial (shell) cross sections jump slightly off the edge
//! energy, giving up to 2.8% there; documented in docs/physics.md).
std::vector<double> midpoints(TableData const& d, std::uint32_t m, std::uint32_t q, int stride,
                              bool skip_after_edge = false)
{
    auto const r = d.refs[m * d.num_quantities + q];
    auto const e = [&](std::uint32_t i) { return d.energy_MeV[r.grid_offset + i]; };
    std::vector<double> result;
    for (std::uint32_t i = 0; i + 1 < r.size; i += stride)
    {
        if (e(i + 1) / e(i) < 1 + 1e-3)
            continue; // edge doublet
        if (skip_after_edge && i > 0 && e(i) / e(i - 1) < 1 + 1e-3)
            continue;
        result.push_back(std::sqrt(e(i) * e(i + 1)));
    }
    return result;
}
} // namespace

TEST(PhysicsTables, ElectronInterpolationBelowPointOnePercent)
{
    using Q = ElectronQuantity;
    auto const& o = tables().options();
    for (std::uint32_t mi = 0; mi < 2; ++mi)
    {
        ElectronPhysics const ep(tables().materials()[mi]);
        for (double T : midpoints(tables().electron_data(), mi, 0, 3))
        {
            auto check = [&](Q q, double direct)
            {
                double const interp = tables().electron(mi, q, T);
                EXPECT_NEAR(interp / direct, 1.0, 1e-3)
                    << tables().materials()[mi].name << " " << to_cstring(q) << " T=" << T;
            };
            check(Q::s_col_electron, ep.collision_stopping(T, Lepton::electron));
            check(Q::s_col_positron, ep.collision_stopping(T, Lepton::positron));
            check(Q::s_rad, ep.radiative_stopping(T));
            check(Q::restricted_col_electron,
                  ep.restricted_collision_stopping(T, o.electron_cut_MeV, Lepton::electron));
            check(Q::restricted_rad, ep.restricted_radiative_stopping(T, o.photon_cut_MeV));
            check(Q::transport_xs_electron, ep.transport_cross_section(T, Lepton::electron));
            // Hard cross sections vanish at 2x (Møller) and 1x (brems) the cut: test above
            if (T > 4 * o.electron_cut_MeV)
                check(Q::hard_moller,
                      ep.hard_collision_cross_section(T, o.electron_cut_MeV, Lepton::electron));
            if (T > 2 * o.photon_cut_MeV)
                check(Q::hard_brems, ep.hard_brems_cross_section(T, o.photon_cut_MeV));
        }
    }
}

TEST(PhysicsTables, PhotonInterpolationBelowPointOnePercent)
{
    using Q = PhotonQuantity;
    auto const ev = tables().electron_host_view();
    for (std::uint32_t mi = 0; mi < 2; ++mi)
    {
        auto const& m = tables().materials()[mi];
        YieldFunction yield = [&](double T) {
            return interpolate(ev, mi,
                               static_cast<std::uint32_t>(ElectronQuantity::radiation_yield), T);
        };
        for (double e : midpoints(tables().photon_data(), mi, 0, 2, /* skip_after_edge = */ true))
        {
            auto const c = photon_coefficients(m, e, yield);
            auto check = [&](Q q, double direct)
            {
                double const interp = tables().photon(mi, q, e);
                EXPECT_NEAR(interp / direct, 1.0, 1e-3)
                    << m.name << " " << to_cstring(q) << " E=" << e;
            };
            check(Q::mu, c.mu);
            check(Q::mu_en, c.mu_en);
            check(Q::incoherent, c.incoherent);
            check(Q::coherent, c.coherent);
            check(Q::photo, c.photo);
            if (e > 3.0)
                check(Q::pair_nuclear, c.pair_nuclear);
        }
    }
}

TEST(PhysicsTables, RangeAndYieldAreMonotonic)
{
    auto const& d = tables().electron_data();
    for (std::uint32_t mi = 0; mi < 2; ++mi)
    {
        // The range always grows; the yield grows above 0.1 MeV (below, in lead, S_rad/S_tot
        // falls with T where S_col is continued below the Bethe maximum).
        for (auto q : {ElectronQuantity::csda_range_electron, ElectronQuantity::radiation_yield})
        {
            auto const r = d.refs[mi * d.num_quantities + static_cast<std::uint32_t>(q)];
            for (std::uint32_t i = 1; i < r.size; ++i)
            {
                if (q == ElectronQuantity::radiation_yield &&
                    d.energy_MeV[r.grid_offset + i - 1] < 0.1)
                    continue;
                EXPECT_GT(d.values[r.value_offset + i], d.values[r.value_offset + i - 1])
                    << to_cstring(q) << " at " << d.energy_MeV[r.grid_offset + i];
            }
        }
    }
}

TEST(PhysicsTables, LookupAndErrors)
{
    EXPECT_EQ(tables().material_index("lead"), 1u);
    EXPECT_THROW(tables().material_index("lede"), RuntimeError);
    EXPECT_THROW(tables().material_index("air"), RuntimeError); // catalogue, not in tables
    PhysicsTableOptions bad;
    bad.electron_cut_MeV = 0;
    EXPECT_THROW(PhysicsTables({find_material("water")}, bad), RuntimeError);
    // Clamped outside the grid
    double const lo = tables().photon(0, PhotonQuantity::mu, 1e-6);
    EXPECT_DOUBLE_EQ(lo, tables().photon(0, PhotonQuantity::mu, 1e-3));
}
} // namespace mcdose::test
