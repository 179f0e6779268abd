//! \file rng/bench/RngBenchmark.cc
//! Host version of the benchmark and the shared row bookkeeping.
#include "rng/bench/RngBenchmark.hh"

#include <algorithm>
#include <chrono>

#include "rng/Distributions.hh"
#include "rng/RngKind.hh"

namespace mcdose
{
namespace detail
{
RngBenchRow make_bench_row(char const* generator, char const* backend, size_type threads,
                           size_type words, double state_bytes_per_thread, bool shared_lfg)
{
    RngBenchRow row;
    row.generator = generator;
    row.backend = backend;
    row.threads = threads;
    row.words_per_thread = words;
    row.state_bytes_per_thread = state_bytes_per_thread;
    row.model_bytes_per_number =
        shared_lfg ? 16.0 + 8.0 / double(words) : 2.0 * state_bytes_per_thread / double(words);
    return row;
}
} // namespace detail

namespace
{
template <class Engine>
double consume(typename Engine::View const& view, size_type thread, size_type count)
{
    Engine rng(view, thread);
    float sum = 0;
    for (size_type k = 0; k < count; ++k)
        sum += generate_canonical<float>(rng);
    return sum;
}
} // namespace

std::vector<RngBenchRow> run_rng_benchmark_host(RngBenchInput const& input)
{
    std::vector<RngBenchRow> rows;
    for (auto kind : all_rng_kinds())
    {
        visit_rng(
            kind,
            [&](auto tag)
            {
                using Engine = typename decltype(tag)::type;
                for (size_type n : input.thread_counts)
                {
                    RngOptions opts;
                    opts.seed = input.seed;
                    bool const lfg = kind == RngKind::lagged_fibonacci;
                    double state_bytes = double(Engine::state_bytes_per_thread);
                    RngBenchRow row;
                    try
                    {
                        auto store = make_rng_store<Engine>(opts, n, MemSpace::host);
                        if constexpr (std::is_same<Engine, LaggedFibonacciEngine>::value)
                            state_bytes = double(store.memory_bytes()) / double(n);
                        row = detail::make_bench_row(Engine::name, "cpu", n, input.words_per_thread,
                                                     state_bytes, lfg);
                        double best = 1e300, checksum = 0;
                        for (int rep = 0; rep < input.repeats; ++rep)
                        {
                            auto const t0 = std::chrono::steady_clock::now();
                            checksum = 0;
                            for (size_type first = 0; first < input.words_per_thread;)
                            {
                                size_type const count = std::min(store.words_per_batch(),
                                                                 input.words_per_thread - first);
                                auto const view = store.begin_batch();
                                for (size_type j = 0; j < n; ++j)
                                    checksum += consume<Engine>(view, j, count);
                                store.end_batch();
                                first += count;
                            }
                            auto const t1 = std::chrono::steady_clock::now();
                            best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
                        }
                        row.ran = true;
                        row.seconds = best;
                        row.numbers_per_second = double(n) * input.words_per_thread / best;
                        row.checksum = checksum;
                        row.note = lfg ? "includes the refill rounds" : "";
                    }
                    catch (RuntimeError const& e)
                    {
                        row = detail::make_bench_row(Engine::name, "cpu", n, input.words_per_thread,
                                                     state_bytes, lfg);
                        row.note = e.what();
                    }
                    rows.push_back(row);
                }
            });
    }
    return rows;
}
} // namespace mcdose
