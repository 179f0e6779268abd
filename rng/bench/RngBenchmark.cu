//! \file rng/bench/RngBenchmark.cu
//! Device benchmark of our engines through their views; cuRAND runs in
//! CurandBenchmark.cu (its Philox header clashes with Random123's).
#include "rng/Distributions.hh"
#include "rng/RngKind.hh"
#include "rng/bench/BenchDevice.hh"

namespace mcdose
{
namespace
{
using namespace detail;

template <class Engine>
MCDOSE_KERNEL void consume_kernel(typename Engine::View view, size_type n, size_type count,
                                  Span<float> out)
{
    auto const j = size_type(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    Engine rng(view, j);
    float sum = 0;
    for (size_type k = 0; k < count; ++k)
        sum += generate_canonical<float>(rng);
    out[j] += sum;
}

template <class Engine>
RngBenchRow bench_engine(RngKind kind, RngBenchInput const& in, size_type n)
{
    RngOptions opts;
    opts.seed = in.seed;
    bool const lfg = kind == RngKind::lagged_fibonacci;
    RngBenchRow row = detail::make_bench_row(Engine::name, "gpu", n, in.words_per_thread,
                                             double(Engine::state_bytes_per_thread), lfg);
    try
    {
        auto store = make_rng_store<Engine>(opts, n, MemSpace::device);
        if constexpr (std::is_same<Engine, LaggedFibonacciEngine>::value)
        {
            row = detail::make_bench_row(Engine::name, "gpu", n, in.words_per_thread,
                                         double(store.memory_bytes()) / double(n), lfg);
        }
        DeviceBuffer<float> out(n);
        out.zero();
        int runs = 0;
        row.seconds =
            time_best(in.repeats,
                      [&]
                      {
                          ++runs;
                          for (size_type first = 0; first < in.words_per_thread;)
                          {
                              size_type const count =
                                  std::min(store.words_per_batch(), in.words_per_thread - first);
                              auto const view = store.begin_batch(); // LFG: refill kernel (timed)
                              consume_kernel<Engine><<<num_blocks(n), block_size>>>(
                                  view, n, count, out.device_span());
                              MCDOSE_CUDA_CHECK_LAUNCH();
                              store.end_batch();
                              first += count;
                          }
                      });
        row.ran = true;
        row.numbers_per_second = double(n) * in.words_per_thread / row.seconds;
        row.checksum = checksum_of(out) / runs;
        row.note = lfg ? "includes the refill kernel of every round" : "";
    }
    catch (RuntimeError const& e)
    {
        row.note = e.what();
    }
    return row;
}

} // namespace

std::vector<RngBenchRow> run_rng_benchmark_device(RngBenchInput const& input)
{
    std::vector<RngBenchRow> rows;
    for (size_type n : input.thread_counts)
    {
        for (auto kind : all_rng_kinds())
        {
            rows.push_back(
                visit_rng(kind, [&](auto tag)
                          { return bench_engine<typename decltype(tag)::type>(kind, input, n); }));
        }
        for (auto& row : bench_curand_generators(input, n))
            rows.push_back(row);
    }
    return rows;
}
} // namespace mcdose
