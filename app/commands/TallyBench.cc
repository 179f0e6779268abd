//! \file app/commands/TallyBench.cc
//! `mcdose tally-bench`: the tally-only benchmark, test 1 of the ARCHER tally
//! tests of Liu et al. 2018. Options and output only; the deposits and kernels
//! are in tally/bench/.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "app/JsonRecords.hh"
#include "app/ListOptions.hh"
#include "core/Device.hh"
#include "tally/bench/TallyBenchmark.hh"

namespace mcdose::app
{
namespace
{
struct Options
{
    std::string backend{"auto"};
    std::string particles{"1e7"};
    std::string bins{"8"};
    std::string methods{"all"};
    unsigned threads{std::max(1u, std::thread::hardware_concurrency())};
    std::string launch{"both"};
    std::uint64_t seed{BenchSeed{}.seed};
    std::string json;
};

nlohmann::json to_json(TallyBenchRecord const& r)
{
    return {{"method", r.method},       {"backend", r.backend},
            {"launch", r.launch},       {"blocks", r.blocks},
            {"threads", r.threads},     {"particles", r.particles},
            {"bins", r.bins},           {"deposits", r.deposits},
            {"time_s", r.time_s},       {"deposits_per_s", r.deposits_per_s},
            {"total_MeV", r.total_MeV}, {"reference_MeV", r.reference_MeV},
            {"rel_error", r.rel_error}, {"words_digest", r.words_digest}};
}

void print_header()
{
    std::cout << std::left << std::setw(7) << "method" << std::setw(8) << "backend" << std::setw(8)
              << "launch" << std::setw(13) << "grid" << std::right << std::setw(12) << "particles"
              << std::setw(9) << "bins" << std::setw(12) << "time_s" << std::setw(13)
              << "deposits/s" << std::setw(13) << "rel_error"
              << "  digest" << std::endl;
}

//! One row, flushed at once so a long run shows its progress.
void print_row(TallyBenchRecord const& r)
{
    std::ostringstream grid;
    if (r.backend == "gpu")
        grid << r.blocks << 'x' << r.threads;
    else
        grid << r.threads << " thr";
    std::cout << std::left << std::setw(7) << r.method << std::setw(8) << r.backend << std::setw(8)
              << r.launch << std::setw(13) << grid.str() << std::right << std::setw(12)
              << std::setprecision(3) << double(r.particles) << std::setw(9) << r.bins
              << std::setw(12) << std::setprecision(4) << r.time_s << std::setw(13)
              << std::setprecision(4) << r.deposits_per_s << std::setw(13) << std::setprecision(3)
              << r.rel_error << "  " << r.words_digest << std::endl;
}

void print_fx_reproducibility(std::vector<TallyBenchRecord> const& records)
{
    // FX reproducibility: one digest per (particles, bins) across launches.
    std::map<std::pair<std::uint64_t, size_type>, std::vector<std::string>> fx;
    for (auto const& r : records)
        if (r.method == "fx")
            fx[{r.particles, r.bins}].push_back(r.words_digest);
    for (auto const& [key, digests] : fx)
    {
        if (digests.size() < 2)
            continue;
        bool same = true;
        for (auto const& d : digests)
            same = same && d == digests.front();
        std::cout << "fx grid, " << double(key.first) << " particles, " << key.second
                  << " bins: " << (same ? "bitwise identical" : "DIFFERS") << " across "
                  << digests.size() << " launch configurations\n";
    }
}

void run(Options const& opt)
{
    TallyBenchInput input;
    Backend backend = to_backend(opt.backend);
    if (backend == Backend::automatic)
        backend = device_count() > 0 ? Backend::gpu : Backend::cpu;
    MCDOSE_VALIDATE(backend == Backend::cpu || device_count() > 0,
                    << "'--backend gpu' needs a GPU (" << no_device_reason()
                    << "); use --backend cpu");
    input.backend = backend;
    input.particles = parse_counts(opt.particles, "--particles");
    input.bins.clear();
    for (auto b : parse_counts(opt.bins, "--bins"))
        input.bins.push_back(static_cast<size_type>(b));
    input.methods = to_tally_methods(opt.methods);
    MCDOSE_VALIDATE(opt.threads > 0, << "'--threads' must be positive");
    input.cpu_threads = opt.threads;
    MCDOSE_VALIDATE(opt.launch == "seed" || opt.launch == "full" || opt.launch == "both",
                    << "'--launch' must be seed (the launch of Liu et al. 2018: 1024 "
                       "blocks x 64 threads), full (full occupancy) or both (got '"
                    << opt.launch << "')");
    input.launches = opt.launch == "both" ? std::vector<std::string>{"seed", "full"}
                                          : std::vector<std::string>{opt.launch};
    input.seed.seed = opt.seed;

    print_header();
    auto const records = run_tally_benchmark(input, print_row);
    print_fx_reproducibility(records);
    write_json_records(opt.json, records, to_json);
}

bool const registered = register_command(
    {"tally-bench",
     "Tally-only benchmark, test 1 of the ARCHER tally tests of Liu et al. 2018 (tests 2-4, "
     "20 MeV electrons on water cubes, are compare-tallies'): 10 exponential deposits (mean "
     "0.1 MeV) per particle into uniform bins, every atomic method against the exact sum",
     [](CLI::App& sub, GlobalOptions const&)
     {
         auto opt = std::make_shared<Options>();
         sub.add_option("--backend", opt->backend, "cpu, gpu or auto")->capture_default_str();
         sub.add_option("--particles", opt->particles,
                        "Particle counts, comma-separated (e.g. 1e7,3e9)")
             ->capture_default_str();
         sub.add_option("--bins", opt->bins, "Bin counts, comma-separated (e.g. 8,1000,1e6)")
             ->capture_default_str();
         sub.add_option("--methods", opt->methods,
                        "Methods, comma-separated from fa,cas,wag,kas,hb,wib,fx, or all")
             ->capture_default_str();
         sub.add_option("--threads", opt->threads, "CPU backend threads")->capture_default_str();
         sub.add_option("--launch", opt->launch,
                        "GPU launch: seed (the launch of Liu et al. 2018, 1024 blocks x 64 "
                        "threads; not an RNG seed), full (full occupancy) or both")
             ->capture_default_str();
         sub.add_option("--seed", opt->seed, "Philox seed")->capture_default_str();
         sub.add_option("--json", opt->json, "Write the records as a JSON array to FILE");
         sub.callback([opt] { run(*opt); });
     },
     /*developer=*/true});
} // namespace
} // namespace mcdose::app
