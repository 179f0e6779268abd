//! \file rng/bench/CurandBenchmark.cu
//! cuRAND device API (XORWOW, Philox4_32_10) with the same consuming loop as
//! our engines. cuRAND headers stay in this file.
#include <curand_kernel.h>

#include "rng/bench/BenchDevice.hh"

namespace mcdose
{
namespace detail
{
namespace
{
template <class CurandState>
MCDOSE_KERNEL void curand_init_kernel(CurandState* states, size_type n, unsigned long long seed)
{
    auto const j = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < n)
        curand_init(seed, j, 0, &states[j]); // subsequence j: independent streams
}

template <class CurandState>
MCDOSE_KERNEL void curand_consume_kernel(CurandState* states, size_type n, size_type count,
                                         Span<float> out)
{
    auto const j = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    CurandState s = states[j];
    float sum = 0;
    for (size_type k = 0; k < count; ++k)
        sum += to_unit_float(curand(&s));
    states[j] = s;
    out[j] += sum;
}

template <class CurandState>
RngBenchRow bench_curand(char const* name, RngBenchInput const& in, size_type n)
{
    RngBenchRow row = detail::make_bench_row(name, "gpu", n, in.words_per_thread,
                                             double(sizeof(CurandState)), false);
    CurandState* states = nullptr;
    MCDOSE_CUDA_CALL(cudaMalloc(&states, n * sizeof(CurandState)));
    curand_init_kernel<<<num_blocks(n), block_size>>>(states, n, in.seed);
    MCDOSE_CUDA_CHECK_LAUNCH();
    DeviceBuffer<float> out(n);
    out.zero();
    int runs = 0;
    row.seconds = time_best(in.repeats,
                            [&]
                            {
                                ++runs;
                                curand_consume_kernel<<<num_blocks(n), block_size>>>(
                                    states, n, in.words_per_thread, out.device_span());
                                MCDOSE_CUDA_CHECK_LAUNCH();
                            });
    MCDOSE_CUDA_CALL(cudaFree(states));
    row.ran = true;
    row.numbers_per_second = double(n) * in.words_per_thread / row.seconds;
    row.checksum = checksum_of(out) / runs;
    row.note = "cuRAND device API; curand_init not timed";
    return row;
}
} // namespace

std::vector<RngBenchRow> bench_curand_generators(RngBenchInput const& in, size_type n)
{
    return {bench_curand<curandStateXORWOW_t>("curand-xorwow", in, n),
            bench_curand<curandStatePhilox4_32_10_t>("curand-philox", in, n)};
}
} // namespace detail
} // namespace mcdose
