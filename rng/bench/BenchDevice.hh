//! \file rng/bench/BenchDevice.hh
//! Launch geometry and CUDA-event timing shared by the device benchmarks
//! (include only from .cu files).
#pragma once

#include <algorithm>
#include <cuda_runtime_api.h>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "rng/bench/RngBenchmark.hh"

namespace mcdose
{
namespace detail
{
inline constexpr unsigned block_size = 256;

inline unsigned num_blocks(size_type n)
{
    return static_cast<unsigned>((n + block_size - 1) / block_size);
}

//! Same conversion as generate_canonical<float>: ((w >> 8) + 1) 2^-24.
MCDOSE_FORCEINLINE_FUNCTION float to_unit_float(std::uint32_t w)
{
    return static_cast<float>((w >> 8) + 1u) * 5.9604644775390625e-08f;
}

//! Best-of-`repeats` wall time of `run()` measured with CUDA events.
template <class F>
double time_best(int repeats, F&& run)
{
    cudaEvent_t start, stop;
    MCDOSE_CUDA_CALL(cudaEventCreate(&start));
    MCDOSE_CUDA_CALL(cudaEventCreate(&stop));
    run(); // warm-up (module load, caches)
    MCDOSE_CUDA_CALL(cudaDeviceSynchronize());
    double best = 1e300;
    for (int r = 0; r < repeats; ++r)
    {
        MCDOSE_CUDA_CALL(cudaEventRecord(start));
        run();
        MCDOSE_CUDA_CALL(cudaEventRecord(stop));
        MCDOSE_CUDA_CALL(cudaEventSynchronize(stop));
        float ms = 0;
        MCDOSE_CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));
        best = std::min(best, 1e-3 * ms);
    }
    MCDOSE_CUDA_CALL(cudaEventDestroy(start));
    MCDOSE_CUDA_CALL(cudaEventDestroy(stop));
    return best;
}

inline double checksum_of(DeviceBuffer<float> const& out)
{
    double sum = 0;
    for (float x : out.to_host())
        sum += x;
    return sum;
}

//! cuRAND XORWOW and Philox rows for n threads (CurandBenchmark.cu).
std::vector<RngBenchRow> bench_curand_generators(RngBenchInput const& in, size_type n);
} // namespace detail
} // namespace mcdose
