//! \file tally/bench/TallyBenchmark.cu
//! Device launches of the tally benchmark (launch code only: the deposit
//! sampling is tally/bench/BenchDeposits.hh, the atomics tally/AtomicPolicies.hh).
#include "tally/bench/TallyBenchmark.hh"

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "rng/Philox.hh"
#include "tally/DoseTally.hh"

namespace mcdose
{
namespace
{
//! This thread's share of the particles (grid-stride loop); each particle
//! re-keys Philox to its index, so its deposits do not depend on the launch.
template <class F>
MCDOSE_DEVICE_FUNCTION MCDOSE_FORCEINLINE void
for_each_thread_deposit(PhiloxView const& rng, BenchProblem const& problem, F&& deposit)
{
    size_type const tid = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    size_type const stride = size_type(gridDim.x) * blockDim.x;
    PhiloxEngine engine(rng, tid);
    for (std::uint64_t p = tid; p < problem.particles; p += stride)
    {
        engine.begin_history(p);
        sample_bench_particle(engine, problem, deposit);
    }
}

template <class Policy>
MCDOSE_KERNEL void bench_deposit_kernel(DoseTallyView<Policy> tally, PhiloxView rng,
                                        BenchProblem problem)
{
    for_each_thread_deposit(rng, problem,
                            [&](size_type bin, std::uint32_t units)
                            { tally.deposit(bin, bench_energy_MeV(units)); });
}

//! Exact integer total: per-thread sums, one 64-bit atomic per thread.
MCDOSE_KERNEL void bench_reference_kernel(PhiloxView rng, BenchProblem problem,
                                          unsigned long long* total_units)
{
    unsigned long long sum = 0;
    for_each_thread_deposit(rng, problem, [&](size_type, std::uint32_t units) { sum += units; });
    atomicAdd(total_units, sum);
}

//! Exact per-bin integer sums (one 64-bit atomic per deposit; tests only).
MCDOSE_KERNEL void bench_reference_bins_kernel(PhiloxView rng, BenchProblem problem,
                                               Span<unsigned long long> bins)
{
    for_each_thread_deposit(rng, problem,
                            [&](size_type bin, std::uint32_t units)
                            { atomicAdd(&bins[bin], static_cast<unsigned long long>(units)); });
}

//! Resolve blocks == 0 to the number of co-resident blocks of `kernel`.
template <class K>
LaunchShape resolve_shape(K kernel, LaunchShape shape)
{
    MCDOSE_VALIDATE(shape.threads_per_block > 0 && shape.threads_per_block % 32 == 0 &&
                        shape.threads_per_block <= 1024,
                    << "threads per block must be a multiple of 32 in [32, 1024] (got "
                    << shape.threads_per_block << ")");
    if (shape.blocks == 0)
    {
        int device = 0, sms = 0, per_sm = 0;
        MCDOSE_CUDA_CALL(cudaGetDevice(&device));
        MCDOSE_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        MCDOSE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, kernel, static_cast<int>(shape.threads_per_block), 0));
        shape.blocks = static_cast<unsigned>(sms * per_sm);
    }
    return shape;
}

struct PhiloxDeviceStates
{
    DeviceBuffer<PhiloxState> states;
    PhiloxView view;

    PhiloxDeviceStates(BenchSeed seed, size_type threads)
    {
        PhiloxRngParams params;
        params.seed = seed.seed;
        states = DeviceBuffer<PhiloxState>(make_initial_states(params, threads));
        view = make_view(params, states.device_span());
    }
};

//! Time one launch with CUDA events [s].
template <class Launch>
double time_launch(Launch&& launch)
{
    cudaEvent_t start, stop;
    MCDOSE_CUDA_CALL(cudaEventCreate(&start));
    MCDOSE_CUDA_CALL(cudaEventCreate(&stop));
    MCDOSE_CUDA_CALL(cudaEventRecord(start));
    launch();
    MCDOSE_CUDA_CHECK_LAUNCH();
    MCDOSE_CUDA_CALL(cudaEventRecord(stop));
    MCDOSE_CUDA_CALL(cudaEventSynchronize(stop));
    float ms = 0;
    MCDOSE_CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));
    MCDOSE_CUDA_CALL(cudaEventDestroy(start));
    MCDOSE_CUDA_CALL(cudaEventDestroy(stop));
    return ms * 1e-3;
}
} // namespace

BenchRun run_bench_device(TallyMethod method, BenchProblem const& problem, BenchSeed seed,
                          LaunchShape shape)
{
    DoseTally tally({method, problem.bins, problem.max_total_energy_MeV(), Backend::gpu});
    BenchRun run;
    dispatch_tally_method(
        method,
        [&](auto policy)
        {
            using P = decltype(policy);
            auto const kernel = bench_deposit_kernel<P>;
            shape = resolve_shape(kernel, shape);
            PhiloxDeviceStates rng(seed, size_type(shape.blocks) * shape.threads_per_block);
            auto const view = tally.view<P>();
            // Warm-up launch with no particles: loads the module (lazy loading)
            // so that the timed launch measures only the deposits.
            BenchProblem empty = problem;
            empty.particles = 0;
            kernel<<<1, 32>>>(view, rng.view, empty);
            MCDOSE_CUDA_CHECK_LAUNCH();
            device_synchronize();
            run.time_s = time_launch(
                [&]
                { kernel<<<shape.blocks, shape.threads_per_block>>>(view, rng.view, problem); });
        });
    run.blocks = shape.blocks;
    run.threads_per_block = shape.threads_per_block;
    run.words = tally.batch_words();
    run.energy_MeV = tally.batch_energy_MeV();
    return run;
}

std::uint64_t bench_reference_total_device(BenchProblem const& problem, BenchSeed seed,
                                           LaunchShape shape)
{
    shape = resolve_shape(bench_reference_kernel, shape);
    PhiloxDeviceStates rng(seed, size_type(shape.blocks) * shape.threads_per_block);
    DeviceBuffer<unsigned long long> total(1);
    total.zero();
    bench_reference_kernel<<<shape.blocks, shape.threads_per_block>>>(rng.view, problem,
                                                                      total.data());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    return total.to_host()[0];
}

std::vector<std::uint64_t> bench_reference_bins_device(BenchProblem const& problem, BenchSeed seed,
                                                       LaunchShape shape)
{
    shape = resolve_shape(bench_reference_bins_kernel, shape);
    PhiloxDeviceStates rng(seed, size_type(shape.blocks) * shape.threads_per_block);
    DeviceBuffer<unsigned long long> bins(problem.bins);
    bins.zero();
    bench_reference_bins_kernel<<<shape.blocks, shape.threads_per_block>>>(rng.view, problem,
                                                                           bins.device_span());
    MCDOSE_CUDA_CHECK_LAUNCH();
    device_synchronize();
    auto const host = bins.to_host();
    return {host.begin(), host.end()};
}
} // namespace mcdose
