//! \file test/core/DeviceSmoke.test.cu
#include "DeviceSmoke.test.hh"

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/WarpVote.hh"

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

MCDOSE_KERNEL void vote_kernel(Span<int const> trips, Span<int> done, Span<int> iterations,
                               Span<int> counts)
{
    unsigned const t = threadIdx.x;
    bool const loops = t % 3 != 0;
    WarpGroup const group = WarpGroup::whole_warp().select(loops);
    int d = 0, n = 0;
    if (loops)
    {
        bool going = trips[t] > 0;
        do
        {
            ++n;
            if (going)
                going = ++d < trips[t];
        } while (group.any(going));
    }
    done[t] = d;
    iterations[t] = n;
    counts[t] = block_count(t % 4 == 0);
}
} // namespace

VoteResult device_votes(std::vector<int> const& trips)
{
    DeviceBuffer<int> dt(trips);
    DeviceBuffer<int> done(trips.size()), iterations(trips.size()), counts(trips.size());
    vote_kernel<<<1, unsigned(trips.size())>>>(dt.device_span(), done.device_span(),
                                               iterations.device_span(), counts.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return {done.to_host(), iterations.to_host(), counts.to_host()};
}

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

std::uint32_t* allocate_pinned_words(std::size_t n)
{
    void* p = nullptr;
    MCDOSE_CUDA_CALL(cudaMallocHost(&p, n * sizeof(std::uint32_t)));
    return static_cast<std::uint32_t*>(p);
}

void free_pinned_words(std::uint32_t* words)
{
    cudaFreeHost(words);
}
} // namespace mcdose::test
