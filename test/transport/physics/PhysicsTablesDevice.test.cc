//! \file test/transport/physics/PhysicsTablesDevice.test.cc
//! The device reads the tables as the host prints them: the transport's lookup of every
//! column in a kernel gives the host's numbers.
#include <cmath>

#include <gtest/gtest.h>

#include "PhysicsTablesDevice.test.hh"
#include "TestMacros.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/engine/TransportParams.hh"

namespace mcdose::test
{
TEST(PhysicsTablesDevice, HostAndDeviceLookupAgree)
{
    MCDOSE_SKIP_IF_NO_GPU();
    TransportOptions o;
    o.emax_MeV = 50;
    PhysicsTableOptions options = physics_table_options(o);
    options.dosimetry = true;
    PhysicsTables const tables({find_material("water"), find_material("lead")}, options);
    std::vector<double> energies;
    for (int i = 0; i < 1000; ++i)
        energies.push_back(1e-3 * std::pow(5e4, i / 999.0));
    auto check = [&](TableGrid const& grid, Span<double const> column, auto host, char const* name)
    {
        auto const dev = device_lookup(grid, {column.begin(), column.end()}, energies);
        for (std::size_t i = 0; i < energies.size(); ++i)
        {
            double const h = host(energies[i]);
            EXPECT_NEAR(dev[i], h, 1e-12 * std::fabs(h)) << name << " E=" << energies[i];
        }
    };
    for (std::uint32_t m = 0; m < 2; ++m)
    {
        for (std::uint32_t c = 0; c < static_cast<std::uint32_t>(PhotonColumn::size_); ++c)
        {
            auto const col = static_cast<PhotonColumn>(c);
            check(
                options.photon_grid, tables.photon_column(m, col),
                [&](double e) { return tables.photon(m, col, e); }, to_cstring(col));
        }
        for (std::uint32_t c = 0; c < static_cast<std::uint32_t>(ElectronColumn::size_); ++c)
        {
            auto const col = static_cast<ElectronColumn>(c);
            check(
                options.electron_grid, tables.electron_column(m, col),
                [&](double e) { return tables.electron(m, col, e); }, to_cstring(col));
        }
    }
}
} // namespace mcdose::test
