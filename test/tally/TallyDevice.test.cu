//! \file test/tally/TallyDevice.test.cu
#include "TallyDevice.test.hh"

#include "AccumKernels.hh"
#include "core/DeviceBuffer.hh"

#include "core/DeviceCall.hh"
#include "core/DeviceMemory.hh"
#include "tally/DoseTally.hh"

namespace mcdose::test
{
namespace
{
template <class Policy>
MCDOSE_DEVICE_FUNCTION void deposit_pattern(DoseTallyView<Policy> const& tally,
                                            DepositPattern const& p)
{
    unsigned const t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 32 >= p.active_lanes)
        return;
    for (int j = 0; j < p.per_thread; ++j)
    {
        if ((t + j) % 3 == 0)
            continue; // lanes of one warp take different branches
        tally.deposit((t / 2 + 7u * j) % p.bins, (1 + t % 13) / 256.0);
    }
}

template <class Policy>
MCDOSE_KERNEL void pattern_kernel(DoseTallyView<Policy> tally, DepositPattern p)
{
    deposit_pattern(tally, p);
}

//! The transport kernel's use of the block cache (TransportKernel.hh).
template <class Policy>
MCDOSE_KERNEL void pattern_cached_kernel(DoseTallyView<Policy> tally, DepositPattern p)
{
    extern __shared__ __align__(16) unsigned char storage[];
    BlockTallyCache<Policy> const cache(storage, p.cache_slots, tally.voxels());
    cache.clear(threadIdx.x, blockDim.x);
    __syncthreads();
    deposit_pattern(tally.with_cache(cache), p);
    __syncthreads();
    cache.flush(tally, threadIdx.x, blockDim.x);
}
//! Thread i < num_accumulators runs accumulator i; all threads then do
//! TwoSum of products for their share of the terms (a = term, w = x = next).
MCDOSE_KERNEL void accum_kernel(Span<float const> terms, Span<double> values, Span<float> products)
{
    unsigned const t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < num_accumulators)
        values[t] = run_accumulator(t, terms);
    for (unsigned i = t; i + 1 < terms.size(); i += gridDim.x * blockDim.x)
    {
        auto const r = two_sum_of_product(terms[i], terms[i + 1], terms[i + 1] * 3.0f);
        products[2 * i] = r.sum;
        products[2 * i + 1] = r.error;
    }
}
} // namespace

AccumResults accum_on_device(std::vector<float> const& terms)
{
    DeviceBuffer<float> d_terms(terms);
    DeviceBuffer<double> d_values(num_accumulators);
    DeviceBuffer<float> d_products(2 * (terms.size() - 1));
    accum_kernel<<<32, 128>>>(d_terms.device_span(), d_values.device_span(),
                              d_products.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return {d_values.to_host(), d_products.to_host()};
}

std::vector<double> pattern_on_device(TallyMethod method, DepositPattern const& p)
{
    double const max_total = double(p.blocks) * p.threads_per_block * p.per_thread * 14 / 256;
    DoseTally tally({method, p.bins, max_total, Backend::gpu});
    dispatch_tally_method(
        method,
        [&](auto policy)
        {
            using Policy = decltype(policy);
            if constexpr (Policy::block_cached)
            {
                if (p.cache_slots > 0)
                {
                    pattern_cached_kernel<<<p.blocks, p.threads_per_block,
                                            BlockTallyCache<Policy>::storage_bytes(
                                                p.cache_slots)>>>(tally.view<Policy>(), p);
                    MCDOSE_CUDA_CHECK_LAUNCH();
                    return;
                }
            }
            pattern_kernel<<<p.blocks, p.threads_per_block>>>(tally.view<Policy>(), p);
            MCDOSE_CUDA_CHECK_LAUNCH();
        });
    device_synchronize();
    return tally.batch_energy_MeV();
}
} // namespace mcdose::test
