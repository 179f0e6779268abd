//! \file tally/DoseFold.cu
//! Kernels of the device batch fold (launch code only: the per-voxel
//! arithmetic is tally/detail/BatchFold.hh, shared with the host threads).
#include <algorithm>
#include <cstddef>
#include <type_traits>

#include <cub/device/device_scan.cuh>

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "tally/AtomicPolicies.hh"
#include "tally/DoseFold.hh"
#include "tally/DoseTallyView.hh"
#include "tally/EnergyMask.hh"
#include "tally/detail/BatchFold.hh"

namespace mcdose
{
namespace
{
constexpr unsigned full_warp = 0xffffffffu;
constexpr int block_threads = 256;

//! Sum of x over a full warp (lane order fixed by the xor butterfly).
template <class T>
MCDOSE_DEVICE_FUNCTION MCDOSE_FORCEINLINE T warp_sum(T x)
{
    for (int offset = 16; offset > 0; offset /= 2)
        x += __shfl_xor_sync(full_warp, x, offset);
    return x;
}

//! Add one voxel's batch contribution to its slab: when the whole warp is in
//! one slab (the usual case along the slowest axis), one atomic per warp.
template <class T>
MCDOSE_DEVICE_FUNCTION MCDOSE_FORCEINLINE void add_to_slab(T* slab_sums, unsigned slab, T x)
{
    unsigned const active = __activemask();
    unsigned const peers = __match_any_sync(active, slab);
    if (peers == full_warp)
    {
        T const sum = warp_sum(x);
        if ((threadIdx.x & 31u) == 0)
            atomicAdd(slab_sums + slab, sum);
    }
    else
    {
        atomicAdd(slab_sums + slab, x);
    }
}

//! One warp per strip of 2^tally_strip_shift = 32 voxels at a time, over the
//! grids in order: a strip no deposit of a grid touched holds zeros there, whose
//! fold changes no bit, so the warp skips it on one flag (the fold costs in
//! proportion to the strips each batch touched; the lanes read 32 grids' flags at
//! once); a voxel's totals stay in registers from the first grid with a deposit
//! to the last.
template <class Policy>
MCDOSE_KERNEL void fold_batches_kernel(DeviceBatchGrids grids, size_type voxels, double quantum,
                                       DeviceTotals totals, SlabSpec slabs,
                                       std::uint64_t* slab_words)
{
    static_assert((1 << tally_strip_shift) == 32, "one lane per voxel of a strip");
    using word_type = typename Policy::word_type;
    size_type const strips = (voxels + 31) / 32;
    size_type const warps = size_type(gridDim.x) * (blockDim.x / 32);
    size_type const lane = threadIdx.x & 31u;
    // Whole warps only (the ballots below need every lane): the loop bound is per warp.
    for (size_type strip = (size_type(blockIdx.x) * blockDim.x + threadIdx.x) / 32; strip < strips;
         strip += warps)
    {
        size_type const v = strip * 32 + lane;
        bool const in_grid = v < voxels;
        detail::VoxelTotals t{};
        bool loaded = false;
        for (size_type k0 = 0; k0 < grids.slots; k0 += 32)
        {
            size_type const mine = k0 + lane; // this lane reads grid k0 + lane's flag
            bool const touched =
                mine < grids.slots &&
                (!grids.touched || grids.touched[mine * grids.slot_strips + strip] != 0);
            for (unsigned todo = __ballot_sync(full_warp, touched); todo != 0; todo &= todo - 1)
            {
                size_type const k = k0 + size_type(__ffs(int(todo)) - 1);
                if (!in_grid)
                    continue;
                word_type* const words =
                    reinterpret_cast<word_type*>(grids.words + k * grids.slot_words64);
                word_type const w = words[v];
                double const e = Policy::decode(w, quantum);
                if (w != 0) // a zero changes no bit of the totals: their memory is left alone
                {
                    words[v] = 0;
                    if (!loaded)
                        t = {totals.hi[v], totals.lo[v], totals.sum_sq[v]};
                    loaded = true;
                    detail::fold_energy(e, t, grids.sq_weights ? grids.sq_weights[k] : 1.0);
                }
                if (slabs.enabled())
                {
                    auto const slab = static_cast<unsigned>(slabs.slab_of(v));
                    std::uint64_t* const sums = slab_words + k * slabs.count();
                    if constexpr (std::is_same<Policy, FxPolicy>::value)
                        add_to_slab(reinterpret_cast<unsigned long long*>(sums), slab,
                                    static_cast<unsigned long long>(w));
                    else
                        add_to_slab(reinterpret_cast<double*>(sums), slab, e);
                }
            }
        }
        if (loaded)
        {
            totals.hi[v] = t.hi;
            totals.lo[v] = t.lo;
            totals.sum_sq[v] = t.sum_sq;
        }
    }
}

//! The final energy and uncertainty of voxel v.
struct VoxelResult
{
    double energy;
    double sigma;
};

//! The uncertainty of totals `t` (quiet NaN with fewer than 2 batches).
MCDOSE_DEVICE_FUNCTION MCDOSE_FORCEINLINE double voxel_sigma(detail::VoxelTotals const& t,
                                                             BatchCount batches)
{
    return batches.batches < 2 ? __longlong_as_double(0x7ff8000000000000LL)
                               : detail::batch_sigma(t, batches.batches, batches.effective);
}

MCDOSE_DEVICE_FUNCTION MCDOSE_FORCEINLINE VoxelResult voxel_result(double const* hi,
                                                                   double const* lo,
                                                                   double const* sum_sq,
                                                                   size_type v, BatchCount batches)
{
    detail::VoxelTotals const t{hi[v], lo[v], sum_sq[v]};
    return {detail::total_energy(t), voxel_sigma(t, batches)};
}

MCDOSE_KERNEL void batch_result_kernel(double const* hi, double const* lo, double const* sum_sq,
                                       size_type voxels, BatchCount batches, double* energy,
                                       double* sigma)
{
    size_type const stride = size_type(gridDim.x) * blockDim.x;
    for (size_type v = size_type(blockIdx.x) * blockDim.x + threadIdx.x; v < voxels; v += stride)
    {
        VoxelResult const r = voxel_result(hi, lo, sum_sq, v, batches);
        energy[v] = r.energy;
        sigma[v] = r.sigma;
    }
}

//! The mask as 32-bit halves of its words (little-endian: half 2w is bits 0-31 of word
//! w), one warp per half; `odd` set where a voxel without energy has an uncertainty
//! other than +0.
MCDOSE_KERNEL void result_mask_kernel(double const* hi, double const* lo, double const* sum_sq,
                                      size_type voxels, BatchCount batches, std::uint32_t* halves,
                                      size_type half_count, unsigned* odd)
{
    unsigned const lane = threadIdx.x & 31u;
    size_type const warps = size_type(gridDim.x) * (blockDim.x / 32);
    for (size_type h = (size_type(blockIdx.x) * blockDim.x + threadIdx.x) / 32; h < half_count;
         h += warps)
    {
        size_type const v = 32 * h + lane;
        bool has = false, stray = false;
        if (v < voxels)
        {
            // The uncertainty (a division and a square root) only where there is no energy.
            detail::VoxelTotals const t{hi[v], lo[v], sum_sq[v]};
            has = detail::total_energy(t) != 0;
            stray = !has && __double_as_longlong(voxel_sigma(t, batches)) != 0;
        }
        unsigned const bits = __ballot_sync(full_warp, has);
        bool const any_stray = __any_sync(full_warp, stray);
        if (lane == 0)
        {
            halves[h] = bits;
            if (any_stray)
                atomicOr(odd, 1u);
        }
    }
}

MCDOSE_KERNEL void mask_counts_kernel(std::uint64_t const* mask, size_type words,
                                      std::uint64_t* counts)
{
    size_type const stride = size_type(gridDim.x) * blockDim.x;
    for (size_type w = size_type(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride)
        counts[w] = std::uint64_t(__popcll(mask[w]));
}

MCDOSE_KERNEL void result_voxels_kernel(double const* hi, double const* lo, double const* sum_sq,
                                        size_type words, BatchCount batches,
                                        std::uint64_t const* mask, std::uint64_t const* offsets,
                                        double* energy, double* sigma)
{
    size_type const stride = size_type(gridDim.x) * blockDim.x;
    for (size_type w = size_type(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride)
    {
        std::uint64_t bits = mask[w];
        size_type o = offsets[w];
        while (bits)
        {
            size_type const v = 64 * w + size_type(__ffsll(static_cast<long long>(bits)) - 1);
            bits &= bits - 1;
            VoxelResult const r = voxel_result(hi, lo, sum_sq, v, batches);
            energy[o] = r.energy;
            sigma[o] = r.sigma;
            ++o;
        }
    }
}

//! Blocks for a grid-stride loop over n items: enough to fill the device.
unsigned blocks_for(size_type n)
{
    size_type const wanted = (n + block_threads - 1) / block_threads;
    return static_cast<unsigned>(std::max<size_type>(1, std::min<size_type>(wanted, 65536)));
}
} // namespace

void fold_batches_device(TallyMethod m, double quantum_MeV, DeviceBatchGrids const& grids,
                         size_type voxels, DeviceTotals totals, SlabSpec const& slabs,
                         std::uint64_t* slab_words)
{
    MCDOSE_VALIDATE(!slabs.enabled() || slab_words, << "slab sums requested without storage");
    MCDOSE_VALIDATE(grids.slots >= 1 && (grids.slots == 1 || grids.slot_words64 > 0),
                    << "a fold of " << grids.slots << " batch grids of " << grids.slot_words64
                    << " words");
    dispatch_tally_method(m,
                          [&](auto policy)
                          {
                              using Policy = decltype(policy);
                              fold_batches_kernel<Policy><<<blocks_for(voxels), block_threads>>>(
                                  grids, voxels, quantum_MeV, totals, slabs, slab_words);
                              MCDOSE_CUDA_CHECK_LAUNCH();
                          });
}

void batch_result_device(double const* hi, double const* lo, double const* sum_sq, size_type voxels,
                         BatchCount batches, double* energy_MeV, double* sigma_MeV)
{
    batch_result_kernel<<<blocks_for(voxels), block_threads>>>(hi, lo, sum_sq, voxels, batches,
                                                               energy_MeV, sigma_MeV);
    MCDOSE_CUDA_CHECK_LAUNCH();
}

std::optional<size_type> result_mask_device(double const* hi, double const* lo,
                                            double const* sum_sq, size_type voxels,
                                            BatchCount batches, std::uint64_t* mask,
                                            std::uint64_t* offsets)
{
    size_type const words = mask_words(voxels);
    if (words == 0)
        return size_type(0);
    DeviceBuffer<unsigned> odd(1);
    odd.zero();
    size_type const halves = 2 * words;
    result_mask_kernel<<<blocks_for(32 * halves), block_threads>>>(
        hi, lo, sum_sq, voxels, batches, reinterpret_cast<std::uint32_t*>(mask), halves,
        odd.data());
    MCDOSE_CUDA_CHECK_LAUNCH();
    if (odd.to_host()[0] != 0)
        return std::nullopt;
    mask_counts_kernel<<<blocks_for(words), block_threads>>>(mask, words, offsets);
    MCDOSE_CUDA_CHECK_LAUNCH();
    std::uint64_t last[2];
    device_copy_to_host(&last[0], offsets + words - 1, sizeof(std::uint64_t));
    std::size_t scratch_bytes = 0;
    MCDOSE_CUDA_CALL(cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, offsets, words));
    DeviceBuffer<std::byte> scratch(std::max<std::size_t>(scratch_bytes, 1));
    MCDOSE_CUDA_CALL(cub::DeviceScan::ExclusiveSum(scratch.data(), scratch_bytes, offsets, words));
    device_copy_to_host(&last[1], offsets + words - 1, sizeof(std::uint64_t));
    return size_type(last[0] + last[1]);
}

void result_voxels_device(double const* hi, double const* lo, double const* sum_sq,
                          size_type voxels, BatchCount batches, std::uint64_t const* mask,
                          std::uint64_t const* offsets, double* energy_MeV, double* sigma_MeV)
{
    size_type const words = mask_words(voxels);
    if (words == 0)
        return;
    result_voxels_kernel<<<blocks_for(words), block_threads>>>(hi, lo, sum_sq, words, batches, mask,
                                                               offsets, energy_MeV, sigma_MeV);
    MCDOSE_CUDA_CHECK_LAUNCH();
}
} // namespace mcdose
