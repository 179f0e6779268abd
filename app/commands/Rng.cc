//! \file app/commands/Rng.cc
//! `mcdose rng dump|bench|ou|rank`: raw words for external batteries, the
//! throughput benchmark, the Ornstein–Uhlenbeck application test and the GF(2)
//! rank test. The work is in rng/; this file parses options and prints.
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "core/AtomicFile.hh"
#include "core/Config.hh"
#include "core/Device.hh"
#include "rng/WordStream.hh"
#include "rng/bench/RngBenchmark.hh"
#include "rng/quality/BinaryRank.hh"
#include "rng/quality/OrnsteinUhlenbeck.hh"

namespace mcdose::app
{
namespace
{
//! Options common to the subcommands.
struct RngCli
{
    std::string generator{"philox"};
    std::uint64_t seed{12345};
    std::uint32_t stream{0};
    size_type numbers_per_round{0};
    std::string backend{"cpu"};
    std::string json_path;

    RngOptions options(RngKind kind) const
    {
        RngOptions o;
        o.kind = kind;
        o.seed = seed;
        o.stream = stream;
        o.lfg_numbers_per_round = numbers_per_round;
        return o;
    }
    //! "all" or one name.
    std::vector<RngKind> kinds() const
    {
        if (generator == "all")
            return all_rng_kinds();
        return {to_rng_kind(generator)};
    }
    MemSpace memspace() const
    {
        auto const b = to_backend(backend);
        bool const gpu = b == Backend::gpu || (b == Backend::automatic && device_count() > 0);
        MCDOSE_VALIDATE(!gpu || device_count() > 0, << "--backend gpu: no usable GPU ("
                                                    << no_device_reason()
                                                    << "); use --backend cpu");
        return gpu ? MemSpace::device : MemSpace::host;
    }
    void write_json(nlohmann::json const& j) const
    {
        if (!json_path.empty())
            write_text_atomically(json_path, j.dump(2) + "\n");
    }
};

void add_common(CLI::App* app, RngCli& c, bool all_allowed)
{
    app->add_option("-g,--generator", c.generator,
                    std::string("hybrid-taus|lagged-fibonacci|philox|lcg|ran2") +
                        (all_allowed ? "|all" : ""))
        ->capture_default_str();
    app->add_option("--seed", c.seed, "Master seed")->capture_default_str();
    app->add_option("--stream", c.stream, "Philox stream id / first per-thread stream")
        ->capture_default_str();
    app->add_option("--numbers-per-round", c.numbers_per_round,
                    "lagged-fibonacci: words per thread per round (0 = largest race-free)")
        ->capture_default_str();
}

nlohmann::json build_json()
{
    return {{"mcdose", BuildInfo::version}, {"git", BuildInfo::git_describe}};
}

//---------------------------------------------------------------------------//
void run_dump(RngCli const& c, size_type streams, size_type count)
{
    // A reader that stops early (dieharder, head) closes the pipe: stop quietly.
    std::signal(SIGPIPE, SIG_IGN);
    WordStream words(to_rng_kind(c.generator), c.options(to_rng_kind(c.generator)), streams,
                     c.memspace());
    size_type remaining = count * streams; // 0 = endless
    while (count == 0 || remaining > 0)
    {
        auto const& chunk = words.next_chunk();
        size_type const n = count == 0 ? chunk.size() : std::min(remaining, chunk.size());
        if (std::fwrite(chunk.data(), sizeof(std::uint32_t), n, stdout) != n)
            return; // reader went away
        remaining -= count == 0 ? 0 : n;
    }
    std::fflush(stdout);
}

//---------------------------------------------------------------------------//
void run_bench(RngCli const& c, std::vector<double> const& threads, size_type words, int repeats)
{
    RngBenchInput in;
    for (double t : threads)
    {
        MCDOSE_VALIDATE(t >= 1, << "--threads: each count must be >= 1 (got " << t << ")");
        in.thread_counts.push_back(static_cast<size_type>(t));
    }
    in.words_per_thread = words;
    in.repeats = repeats;
    in.seed = c.seed;
    bool const gpu = c.memspace() == MemSpace::device;
    auto const rows = gpu ? run_rng_benchmark_device(in) : run_rng_benchmark_host(in);

    nlohmann::json j = build_json();
    j["backend"] = gpu ? "gpu" : "cpu";
    j["device"] = gpu ? device_infos().at(0).name : "host CPU (one thread)";
    j["words_per_thread"] = words;
    j["repeats"] = repeats;
    std::cout << "RNG throughput on " << j["device"].get<std::string>() << " (" << words
              << " words per thread, best of " << repeats << ")\n"
              << std::left << std::setw(18) << "generator" << std::right << std::setw(10)
              << "threads" << std::setw(14) << "numbers/s" << std::setw(12) << "state B/thr"
              << std::setw(12) << "model B/num"
              << "  note\n";
    for (auto const& r : rows)
    {
        std::ostringstream rate;
        if (r.ran)
            rate << std::scientific << std::setprecision(3) << r.numbers_per_second;
        else
            rate << "n/a";
        std::cout << std::left << std::setw(18) << r.generator << std::right << std::setw(10)
                  << r.threads << std::setw(14) << rate.str() << std::setw(12) << std::fixed
                  << std::setprecision(1) << r.state_bytes_per_thread << std::setw(12)
                  << std::setprecision(3) << r.model_bytes_per_number << "  " << r.note << '\n';
        j["rows"].push_back({{"generator", r.generator},
                             {"threads", r.threads},
                             {"ran", r.ran},
                             {"seconds", r.seconds},
                             {"numbers_per_second", r.numbers_per_second},
                             {"state_bytes_per_thread", r.state_bytes_per_thread},
                             {"model_global_bytes_per_number", r.model_bytes_per_number},
                             {"checksum", r.checksum},
                             {"note", r.note}});
    }
    c.write_json(j);
}

//---------------------------------------------------------------------------//
void run_ou_cmd(RngCli const& c, OuInput const& in)
{
    nlohmann::json j = build_json();
    bool all_passed = true;
    for (auto kind : c.kinds())
    {
        auto const r = run_ou(kind, c.options(kind), in, c.memspace());
        all_passed = all_passed && r.passed;
        std::cout << std::left << std::setw(18) << r.generator << " max|z| = " << std::fixed
                  << std::setprecision(2) << r.max_abs_z << (r.passed ? "  PASS" : "  FAIL")
                  << "  (" << r.seconds << " s)\n";
        nlohmann::json g{{"generator", r.generator}, {"max_abs_z", r.max_abs_z},
                         {"z_limit", r.z_limit},     {"passed", r.passed},
                         {"seconds", r.seconds},     {"tau_ns", r.setup.tau_ns}};
        for (auto const& row : r.rows)
        {
            std::cout << "    t = " << std::setw(9) << std::setprecision(3) << row.t_ns
                      << " ns  <x> = " << std::setprecision(4) << row.mean_nm << " (exact "
                      << row.mean_expected_nm << ", z " << std::setprecision(2) << row.mean_z
                      << ")  <x x0> = " << std::setprecision(3) << row.corr_nm2 << " (exact "
                      << row.corr_expected_nm2 << ", z " << std::setprecision(2) << row.corr_z
                      << ")\n";
            g["rows"].push_back({{"t_ns", row.t_ns},
                                 {"mean_nm", row.mean_nm},
                                 {"mean_expected_nm", row.mean_expected_nm},
                                 {"mean_se_nm", row.mean_se_nm},
                                 {"corr_nm2", row.corr_nm2},
                                 {"corr_expected_nm2", row.corr_expected_nm2},
                                 {"corr_se_nm2", row.corr_se_nm2}});
        }
        j["generators"].push_back(g);
    }
    j["oscillators"] = in.oscillators;
    j["steps"] = in.steps;
    j["dt_ns"] = in.dt_ns;
    c.write_json(j);
    if (!all_passed)
        command_exit_status() = 1;
}

//---------------------------------------------------------------------------//
void run_rank(RngCli const& c, size_type n, size_type matrices, size_type streams)
{
    nlohmann::json j = build_json();
    for (auto kind : c.kinds())
    {
        WordStream words(kind, c.options(kind), streams, c.memspace());
        auto const r = binary_rank_test([&] { return words(); }, n, matrices);
        std::cout << std::left << std::setw(18) << to_cstring(kind) << " " << n << "x" << n << " x"
                  << matrices << ": ranks n/n-1/n-2/<=n-3 = " << r.observed[0] << "/"
                  << r.observed[1] << "/" << r.observed[2] << "/" << r.observed[3] << " (expected "
                  << std::fixed << std::setprecision(1) << r.expected[0] << "/" << r.expected[1]
                  << "/" << r.expected[2] << "/" << r.expected[3] << "), min rank " << r.min_rank
                  << ", chi2 " << std::setprecision(2) << r.chi2 << ", p = " << std::scientific
                  << std::setprecision(3) << r.p_value << std::defaultfloat << '\n';
        j["generators"].push_back({{"generator", to_cstring(kind)},
                                   {"n", n},
                                   {"matrices", matrices},
                                   {"streams", streams},
                                   {"observed", r.observed},
                                   {"expected", r.expected},
                                   {"min_rank", r.min_rank},
                                   {"chi2", r.chi2},
                                   {"p_value", r.p_value}});
    }
    c.write_json(j);
}

bool const registered = register_command(
    {"rng", "Random-number generators: dump raw words, benchmark, OU and GF(2) rank tests",
     [](CLI::App& sub, GlobalOptions const&)
     {
         sub.require_subcommand(1);
         auto c = std::make_shared<RngCli>();

         auto* dump = sub.add_subcommand(
             "dump", "Write raw 32-bit words (little-endian binary) to stdout, S streams "
                     "interleaved as a warp consumes them; pipe into 'dieharder -g 200'");
         add_common(dump, *c, false);
         auto streams = std::make_shared<size_type>(1);
         auto count = std::make_shared<size_type>(0);
         dump->add_option("-s,--streams", *streams, "Number of interleaved streams (threads)")
             ->capture_default_str();
         dump->add_option("-n,--count", *count, "Words per stream (0 = until the reader stops)")
             ->capture_default_str();
         dump->add_option("--backend", c->backend, "cpu|gpu|auto")->capture_default_str();
         dump->callback([c, streams, count] { run_dump(*c, *streams, *count); });

         auto* bench = sub.add_subcommand(
             "bench", "Numbers per second inside a consuming kernel for each generator "
                      "(and cuRAND XORWOW/Philox on the GPU); prints a table, writes JSON");
         auto threads = std::make_shared<std::vector<double>>();
         auto words = std::make_shared<size_type>(4096);
         auto repeats = std::make_shared<int>(3);
         bench->add_option("--backend", c->backend, "cpu|gpu|auto")->capture_default_str();
         bench
             ->add_option("--threads", *threads,
                          "Thread counts (default GPU 1e3..1e7, CPU 1e3..1e5)")
             ->delimiter(',');
         bench->add_option("--words", *words, "Words drawn per thread")->capture_default_str();
         bench->add_option("--repeats", *repeats, "Timings per case (best is kept)")
             ->capture_default_str();
         bench->add_option("--seed", c->seed, "Master seed")->capture_default_str();
         bench->add_option("--json", c->json_path, "Write the results as JSON");
         bench->callback(
             [c, threads, words, repeats]
             {
                 auto t = *threads;
                 if (t.empty())
                 {
                     t = c->memspace() == MemSpace::device
                             ? std::vector<double>{1e3, 1e4, 1e5, 1e6, 1e7}
                             : std::vector<double>{1e3, 1e4, 1e5};
                 }
                 run_bench(*c, t, *words, *repeats);
             });

         auto* ou = sub.add_subcommand(
             "ou", "Ornstein-Uhlenbeck application test (mean and equilibrium correlation "
                   "within 4 standard errors); exit status 1 if a generator fails");
         add_common(ou, *c, true);
         auto in = std::make_shared<OuInput>();
         ou->add_option("--oscillators", in->oscillators)->capture_default_str();
         ou->add_option("--steps", in->steps, "Steps of dt")->capture_default_str();
         ou->add_option("--checkpoints", in->checkpoints, "Evenly spaced comparison times")
             ->capture_default_str();
         ou->add_option("--dt-ns", in->dt_ns)->capture_default_str();
         ou->add_option("--backend", c->backend, "cpu|gpu|auto")->capture_default_str();
         ou->add_option("--json", c->json_path, "Write the results as JSON");
         ou->callback([c, in] { run_ou_cmd(*c, *in); });

         auto* rank = sub.add_subcommand(
             "rank", "GF(2) binary-matrix-rank test on n x n matrices of consecutive words");
         add_common(rank, *c, true);
         auto size = std::make_shared<size_type>(32);
         auto matrices = std::make_shared<size_type>(1000);
         auto rank_streams = std::make_shared<size_type>(1);
         rank->add_option("--size", *size, "Matrix size n (32 or a multiple of 64)")
             ->capture_default_str();
         rank->add_option("--matrices", *matrices)->capture_default_str();
         rank->add_option("-s,--streams", *rank_streams, "Interleaved streams")
             ->capture_default_str();
         rank->add_option("--backend", c->backend, "cpu|gpu|auto")->capture_default_str();
         rank->add_option("--json", c->json_path, "Write the results as JSON");
         rank->callback([c, size, matrices, rank_streams]
                        { run_rank(*c, *size, *matrices, *rank_streams); });
     },
     /*developer=*/true});
} // namespace
} // namespace mcdose::app
