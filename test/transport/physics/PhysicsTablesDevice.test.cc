//! \file test/transport/physics/PhysicsTablesDevice.test.cc
//! The same interpolation on host and device gives the same numbers.
#include <cmath>

#include <gtest/gtest.h>

#include "PhysicsTablesDevice.test.hh"
#include "TestMacros.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose::test
{
TEST(PhysicsTablesDevice, HostAndDeviceInterpolationAgree)
{
    MCDOSE_SKIP_IF_NO_GPU();
    PhysicsTables const tables({find_material("water"), find_material("lead")});
    std::vector<double> energies;
    for (int i = 0; i < 1000; ++i)
        energies.push_back(1e-3 * std::pow(5e4, i / 999.0));
    for (std::uint32_t m = 0; m < 2; ++m)
    {
        for (std::uint32_t q = 0; q < static_cast<std::uint32_t>(PhotonQuantity::size_); ++q)
        {
            auto const dev = device_interpolate(tables.photon_device_view(), m, q, energies);
            for (std::size_t i = 0; i < energies.size(); ++i)
            {
                double const host = interpolate(tables.photon_host_view(), m, q, energies[i]);
                EXPECT_NEAR(dev[i], host, 1e-12 * std::fabs(host)) << m << " " << q << " " << i;
            }
        }
        for (std::uint32_t q = 0; q < static_cast<std::uint32_t>(ElectronQuantity::size_); ++q)
        {
            auto const dev = device_interpolate(tables.electron_device_view(), m, q, energies);
            for (std::size_t i = 0; i < energies.size(); ++i)
            {
                double const host = interpolate(tables.electron_host_view(), m, q, energies[i]);
                EXPECT_NEAR(dev[i], host, 1e-12 * std::fabs(host)) << m << " " << q << " " << i;
            }
        }
    }
}
} // namespace mcdose::test
