//! \file app/commands/Run.cc
//! `mcdose run study.json`: run a study and write its outputs.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "app/CommandRegistry.hh"
#include "transport/engine/StudyRunner.hh"
#include "transport/study/StudyInput.hh"

namespace mcdose::app
{
namespace
{
std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int)
{
    g_interrupted.store(true);
}

struct RunArgs
{
    std::string study;
    std::string backend;
    std::uint64_t histories{0};
    int threads{-1};
    std::string output_dir;
};

void print_progress(TransportProgress const& p)
{
    double const frac = double(p.histories_done) / double(p.histories_total);
    double const rate = p.elapsed_s > 0 ? p.histories_done / p.elapsed_s : 0;
    double const eta = rate > 0 ? (p.histories_total - p.histories_done) / rate : 0;
    std::fprintf(stderr, "\r  %5.1f%%  %.3g histories/s  ETA %.0f s   ", 100 * frac, rate, eta);
    std::fflush(stderr);
}

void run_command(RunArgs const& a, GlobalOptions const& global)
{
    StudyInput const study = load_study(a.study);
    StudyRunOptions opts;
    if (!a.backend.empty())
        opts.backend = to_backend(a.backend);
    if (a.histories > 0)
        opts.histories = a.histories;
    if (a.threads >= 0)
        opts.cpu_threads = a.threads;
    if (!a.output_dir.empty())
        opts.output_dir = a.output_dir;

    // Progress on stderr only for interactive runs; Ctrl-C stops at the next
    // batch boundary and writes the results so far, marked incomplete.
    bool const show = !global.quiet && isatty(STDERR_FILENO);
    auto const previous = std::signal(SIGINT, on_sigint);
    opts.on_batch = [show](TransportProgress const& p) {
        if (show && p.elapsed_s > 1.0)
            print_progress(p);
        return !g_interrupted.load();
    };
    StudyRunSummary const s = run_study(study, opts);
    std::signal(SIGINT, previous);
    if (show)
        std::fprintf(stderr, "\r%60s\r", "");

    for (auto const& w : s.warnings)
        std::cerr << "mcdose: warning: " << w << '\n';
    auto const& b = s.balance;
    std::cout << "mcdose run: " << a.study << '\n'
              << "  backend          : " << s.backend << " (" << s.device << ")\n"
              << "  histories        : " << s.histories << (s.complete ? "" : " (interrupted)")
              << '\n'
              << std::setprecision(4) << "  setup time       : " << s.setup_time_s << " s\n"
              << "  transport time   : " << s.transport_time_s << " s ("
              << s.histories_per_s << " histories/s)\n"
              << "  energy (MeV/hist): emitted " << b.emitted_MeV / s.histories << ", deposited "
              << b.deposited_MeV / s.histories << ", escaped " << b.escaped_MeV / s.histories
              << ", below cut-off " << b.below_cutoff_MeV / s.histories << '\n'
              << "  energy balance   : relative imbalance " << std::scientific
              << b.relative_imbalance() << std::defaultfloat << '\n';
    if (s.uncertainty_reached)
        std::cout << "  uncertainty      : " << 100 * *s.uncertainty_reached
                  << " % (mean over voxels above "
                  << 100 * study.run.uncertainty_dose_fraction << " % of the maximum dose)\n";
    for (auto const& f : s.files)
        std::cout << "  wrote            : " << f << '\n';
    if (!s.complete)
        command_exit_status() = 130;
}

bool const registered = register_command(
    {"run", "Run a study (JSON) and write dose, uncertainty, depth dose and a summary",
     [](CLI::App& sub, GlobalOptions const& global) {
         auto a = std::make_shared<RunArgs>();
         sub.add_option("study", a->study, "Study file (JSON)")->required()->check(CLI::ExistingFile);
         sub.add_option("--backend", a->backend, "Override the study's backend")
             ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
         sub.add_option("--histories", a->histories, "Override run.histories");
         sub.add_option("--threads", a->threads, "CPU threads (0: all cores)");
         sub.add_option("--output-dir", a->output_dir, "Override outputs.directory");
         sub.callback([a, &global] { run_command(*a, global); });
     }});
}  // namespace
}  // namespace mcdose::app
