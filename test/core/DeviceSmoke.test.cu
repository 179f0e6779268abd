//! \file test/core/DeviceSmoke.test.cu
#include "DeviceSmoke.test.hh"

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"

namespace mcdose::test
{
namespace
{
MCDOSE_FORCEINLINE_FUNCTION double axpy(double a, double x, double y)
{
    return a * x + y;
}

MCDOSE_KERNEL void saxpy_kernel(double a, Span<double const> x, Span<double> y, Span<int> flag)
{
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < x.size())
    {
        y[i] = axpy(a, x[i], y[i]);
        flag[i] = MCDOSE_DEVICE_COMPILE;
    }
}

MCDOSE_KERNEL void expm1_kernel(Span<double const> x, Span<float> single, Span<double> dbl)
{
    auto i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < x.size())
    {
        single[i] = fast_expm1(float(x[i]));
        dbl[i] = fast_expm1(x[i]);
    }
}
}  // namespace

Expm1Result device_fast_expm1(std::vector<double> const& x)
{
    DeviceBuffer<double> dx(x);
    DeviceBuffer<float> ds(x.size());
    DeviceBuffer<double> dd(x.size());
    unsigned const threads = 128;
    unsigned const blocks = (x.size() + threads - 1) / threads;
    expm1_kernel<<<blocks, threads>>>(dx.device_span(), ds.device_span(), dd.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return {ds.to_host(), dd.to_host()};
}

SmokeResult device_saxpy(double a, std::vector<double> const& x, std::vector<double> const& y)
{
    DeviceBuffer<double> dx(x), dy(y);
    DeviceBuffer<int> dflag(x.size());
    dflag.zero();
    unsigned const threads = 128;
    unsigned const blocks = (x.size() + threads - 1) / threads;
    saxpy_kernel<<<blocks, threads>>>(a, dx.device_span(), dy.device_span(), dflag.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return {dy.to_host(), dflag.to_host()};
}
}  // namespace mcdose::test
