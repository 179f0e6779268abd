//! \file test/transport/physics/PhysicsTablesDevice.test.hh
#pragma once

#include <cstdint>
#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "transport/physics/PhysicsTableView.hh"

namespace mcdose::test
{
#if MCDOSE_USE_CUDA
//! interpolate(view, material, quantity, e) for each e, evaluated in a kernel.
std::vector<double> device_interpolate(PhysicsTableView const& device_view, std::uint32_t material,
                                       std::uint32_t quantity, std::vector<double> const& energies);
#else
inline std::vector<double> device_interpolate(PhysicsTableView const&, std::uint32_t, std::uint32_t,
                                              std::vector<double> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::test
