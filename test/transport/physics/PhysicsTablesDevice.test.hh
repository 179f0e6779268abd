//! \file test/transport/physics/PhysicsTablesDevice.test.hh
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose::test
{
#if MCDOSE_USE_CUDA
//! The transport's lookup (LogGridView::find, lerp_table) of `column` on `grid` at each
//! energy, evaluated in a kernel in double.
std::vector<double> device_lookup(TableGrid const& grid, std::vector<double> const& column,
                                  std::vector<double> const& energies);
#else
inline std::vector<double> device_lookup(TableGrid const&, std::vector<double> const&,
                                         std::vector<double> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::test
