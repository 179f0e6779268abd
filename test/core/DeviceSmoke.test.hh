//! \file test/core/DeviceSmoke.test.hh
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"

namespace mcdose::test
{
//! y[i] = a * x[i] + y[i] computed by a kernel, plus a per-thread record of
//! the device pass having run (the MCDOSE_DEVICE_COMPILE macro).
struct SmokeResult
{
    std::vector<double> y;
    std::vector<int> device_compiled;
};

#if MCDOSE_USE_CUDA
SmokeResult device_saxpy(double a, std::vector<double> const& x, std::vector<double> const& y);
#else
inline SmokeResult device_saxpy(double, std::vector<double> const&, std::vector<double> const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
}  // namespace mcdose::test
