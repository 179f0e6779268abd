//! \file tally/bench/TallyBenchmark.cc
//! Host side of the tally benchmark: the CPU backend (std::threads grabbing
//! chunks of particles), the exact references and the sweep.
#include "tally/bench/TallyBenchmark.hh"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "rng/Philox.hh"
#include "tally/DoseTally.hh"
#include "tally/accum/DoubleWord.hh"

namespace mcdose
{
namespace
{
PhiloxRngParams philox_params(BenchSeed seed)
{
    PhiloxRngParams p;
    p.seed = seed.seed;
    return p;
}

//! Run body(engine, first, last) on `threads` threads that grab chunks of
//! particles from a shared counter (the CPU backend's work-grabbing loop).
template <class Body>
void for_each_chunk(BenchProblem const& problem, BenchSeed seed, HostShape shape, Body&& body)
{
    MCDOSE_VALIDATE(shape.threads > 0, << "'threads' must be positive (got 0)");
    MCDOSE_VALIDATE(shape.chunk > 0, << "particle chunk must be positive (got 0)");
    std::vector<PhiloxState> states = make_initial_states(philox_params(seed), shape.threads);
    PhiloxView const view = make_view(philox_params(seed), make_span(states));
    std::atomic<std::uint64_t> next{0};
    auto worker = [&](unsigned t)
    {
        PhiloxEngine engine(view, t);
        for (;;)
        {
            std::uint64_t const first = next.fetch_add(shape.chunk);
            if (first >= problem.particles)
                break;
            std::uint64_t const last = std::min(problem.particles, first + shape.chunk);
            body(t, engine, first, last);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < shape.threads; ++t)
        pool.emplace_back(worker, t);
    worker(0);
    for (auto& th : pool)
        th.join();
}

long double units_to_MeV(long double units, int exp2)
{
    long double q = 1;
    for (int i = 0; i < (exp2 < 0 ? -exp2 : exp2); ++i)
        q = exp2 < 0 ? q / 2 : q * 2;
    return units * q;
}
} // namespace

std::vector<std::uint64_t> bench_reference_bins(BenchProblem const& problem, BenchSeed seed)
{
    std::vector<std::uint64_t> bins(problem.bins, 0);
    for_each_chunk(problem, seed, {1, problem.particles + 1},
                   [&](unsigned, PhiloxEngine& engine, std::uint64_t first, std::uint64_t last)
                   {
                       for (std::uint64_t p = first; p < last; ++p)
                       {
                           engine.begin_history(p);
                           sample_bench_particle(engine, problem,
                                                 [&](size_type bin, std::uint32_t units)
                                                 { bins[bin] += units; });
                       }
                   });
    return bins;
}

std::uint64_t bench_reference_total_host(BenchProblem const& problem, BenchSeed seed,
                                         unsigned threads)
{
    std::vector<std::uint64_t> partial(threads, 0);
    for_each_chunk(problem, seed, {threads, 4096},
                   [&](unsigned t, PhiloxEngine& engine, std::uint64_t first, std::uint64_t last)
                   {
                       std::uint64_t sum = 0;
                       for (std::uint64_t p = first; p < last; ++p)
                       {
                           engine.begin_history(p);
                           sample_bench_particle(engine, problem,
                                                 [&](size_type, std::uint32_t units)
                                                 { sum += units; });
                       }
                       partial[t] += sum;
                   });
    std::uint64_t total = 0;
    for (auto s : partial)
        total += s;
    return total;
}

BenchRun run_bench_host(TallyMethod method, BenchProblem const& problem, BenchSeed seed,
                        HostShape shape)
{
    DoseTally tally({method, problem.bins, problem.max_total_energy_MeV(), Backend::cpu});
    BenchRun run;
    run.threads_per_block = shape.threads;
    dispatch_tally_method(
        method,
        [&](auto policy)
        {
            auto const view = tally.view<decltype(policy)>();
            auto const start = std::chrono::steady_clock::now();
            for_each_chunk(
                problem, seed, shape,
                [&](unsigned, PhiloxEngine& engine, std::uint64_t first, std::uint64_t last)
                {
                    for (std::uint64_t p = first; p < last; ++p)
                    {
                        engine.begin_history(p);
                        sample_bench_particle(engine, problem,
                                              [&](size_type bin, std::uint32_t units)
                                              { view.deposit(bin, bench_energy_MeV(units)); });
                    }
                });
            run.time_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        });
    run.words = tally.batch_words();
    run.energy_MeV = tally.batch_energy_MeV();
    return run;
}

std::string digest_words(std::vector<std::uint64_t> const& words)
{
    std::uint64_t h = 14695981039346656037ull; // FNV-1a 64-bit offset basis
    for (std::uint64_t w : words)
    {
        for (int b = 0; b < 8; ++b)
        {
            h ^= (w >> (8 * b)) & 0xffu;
            h *= 1099511628211ull; // FNV prime
        }
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::vector<TallyBenchRecord>
run_tally_benchmark(TallyBenchInput const& input,
                    std::function<void(TallyBenchRecord const&)> const& on_record)
{
    MCDOSE_VALIDATE(input.backend == Backend::cpu || input.backend == Backend::gpu,
                    << "tally-bench backend must be cpu or gpu");
    MCDOSE_VALIDATE(!input.methods.empty(), << "no tally methods given; use --methods all");
    std::vector<TallyBenchRecord> records;
    for (std::uint64_t particles : input.particles)
    {
        for (size_type bins : input.bins)
        {
            MCDOSE_VALIDATE(particles > 0, << "'particles' must be positive");
            MCDOSE_VALIDATE(bins > 0 && bins <= (size_type(1) << 32),
                            << "'bins' must be in [1, 2^32] (got " << bins << ")");
            BenchProblem problem;
            problem.particles = particles;
            problem.bins = bins;
            bool const gpu = input.backend == Backend::gpu;
            std::uint64_t const ref_units =
                gpu ? bench_reference_total_device(problem, input.seed, archer_launch())
                    : bench_reference_total_host(problem, input.seed, input.cpu_threads);
            long double const ref_MeV = units_to_MeV(ref_units, BenchProblem::energy_exp2);
            std::vector<std::string> launches =
                gpu ? input.launches : std::vector<std::string>{"threads"};
            for (auto const& launch : launches)
            {
                MCDOSE_VALIDATE(launch == "seed" || launch == "full" || launch == "threads",
                                << "unknown launch configuration '" << launch
                                << "'; use seed (the launch of Liu et al. 2018, 1024x64) "
                                   "or full (full occupancy)");
                for (TallyMethod method : input.methods)
                {
                    BenchRun const run =
                        gpu ? run_bench_device(method, problem, input.seed,
                                               launch == "seed" ? archer_launch()
                                                                : full_occupancy_launch())
                            : run_bench_host(method, problem, input.seed,
                                             {input.cpu_threads, 4096});
                    long double total_MeV = 0;
                    if (method == TallyMethod::fx)
                    {
                        // Exact: sum the int64 units (no overflow by the quantum's choice).
                        std::uint64_t units = 0;
                        for (auto w : run.words)
                            units += w;
                        int const e =
                            accum::fixed_point_quantum_exp2(problem.max_total_energy_MeV());
                        total_MeV = units_to_MeV(
                            static_cast<long double>(static_cast<std::int64_t>(units)), e);
                    }
                    else
                    {
                        accum::DoubleWordSum<double> sum;
                        for (double e : run.energy_MeV)
                            sum.add(e);
                        total_MeV = static_cast<long double>(sum.hi()) + sum.lo();
                    }
                    TallyBenchRecord r;
                    r.method = to_cstring(method);
                    r.backend = to_cstring(input.backend);
                    r.launch = launch;
                    r.blocks = run.blocks;
                    r.threads = run.threads_per_block;
                    r.particles = particles;
                    r.bins = bins;
                    r.deposits = particles * BenchProblem::collisions_per_particle;
                    r.time_s = run.time_s;
                    r.deposits_per_s = run.time_s > 0 ? double(r.deposits) / run.time_s : 0;
                    r.total_MeV = double(total_MeV);
                    r.reference_MeV = double(ref_MeV);
                    r.rel_error = double((total_MeV - ref_MeV) / ref_MeV);
                    r.words_digest = digest_words(run.words);
                    if (on_record)
                        on_record(r);
                    records.push_back(r);
                }
            }
        }
    }
    return records;
}
} // namespace mcdose
