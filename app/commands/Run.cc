//! \file app/commands/Run.cc
//! `mcdose run study.json`: run a study and write its outputs.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "app/CommandRegistry.hh"
#include "app/ListOptions.hh"
#include "core/AtomicFile.hh"
#include "core/Comm.hh"
#include "dose/RunSummary.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"

namespace mcdose::app
{
namespace
{
std::atomic<int> g_signals{0};

/*!
 * SIGINT and SIGTERM (what batch schedulers send): the first stops the run
 * within about a second and the results so far are written, marked
 * incomplete; a second ends the process at once, removing the temporary
 * files of any output being written (finished outputs stay; no half file
 * ever carries a final name). Only async-signal-safe calls here.
 */
extern "C" void on_stop_signal(int sig)
{
    if (g_signals.fetch_add(1) == 0)
    {
        static char const note[] = "\nmcdose: stopping: the results so far will be written "
                                   "(signal again to end at once)\n";
        (void)!::write(STDERR_FILENO, note, sizeof(note) - 1);
        return;
    }
    remove_registered_temporaries();
    ::_exit(128 + sig);
}

//! Installs on_stop_signal for SIGINT and SIGTERM; restores the previous handlers.
class StopSignals
{
  public:
    StopSignals()
    {
        struct sigaction action = {};
        action.sa_handler = on_stop_signal;
        action.sa_flags = SA_RESTART; // the run's reads and writes carry on
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, &previous_int_);
        ::sigaction(SIGTERM, &action, &previous_term_);
    }
    ~StopSignals()
    {
        ::sigaction(SIGINT, &previous_int_, nullptr);
        ::sigaction(SIGTERM, &previous_term_, nullptr);
    }
    StopSignals(StopSignals const&) = delete;
    StopSignals& operator=(StopSignals const&) = delete;

  private:
    struct sigaction previous_int_ = {};
    struct sigaction previous_term_ = {};
};

struct RunArgs
{
    std::string study;
    std::string backend;
    std::optional<std::string> histories; //!< whole number, scientific notation allowed ("4e7")
    std::optional<int> threads;
    std::string output_dir;
    std::optional<IfExists> if_exists;
    std::optional<int> rtdose_bits;
    std::string gpus;
    int cpu_groups{1};
    std::optional<std::uint64_t> batches_per_launch;
    bool sample_sources_inline{false};
    std::string checkpoint;
    double checkpoint_every_s{0};
    std::string resume;
    bool no_table_cache{false};
    std::string table_cache_dir;
};

void print_progress(TransportProgress const& p)
{
    double const frac = double(p.histories_done) / double(p.histories_total);
    double const rate = p.elapsed_s > 0 ? p.histories_done / p.elapsed_s : 0;
    double const eta = rate > 0 ? (p.histories_total - p.histories_done) / rate : 0;
    std::fprintf(stderr, "\r  %5.1f%%  %.3g histories/s  ETA %.0f s   ", 100 * frac, rate, eta);
    std::fflush(stderr);
}

//! The run's report on stdout: what ran, how fast, the dose figures, the files written
//! (step timings only with -v).
void print_run_report(std::string const& study, StudyRunSummary const& s, bool verbose)
{
    auto const& b = s.balance;
    std::cout << "mcdose run: " << study << '\n'
              << "  backend          : " << s.backend << " (" << s.device << ")\n";
    if (s.ranks > 1)
        std::cout << "  MPI ranks        : " << s.ranks << " (" << s.device << " each)\n";
    if (s.resumed_batches > 0)
        std::cout << "  resumed          : " << s.resumed_batches
                  << " batches from the checkpoint\n";
    if (!s.phase_space_source.empty())
        std::cout << "  source           : " << s.phase_space_source << '\n';
    std::cout << "  histories        : " << s.histories << (s.complete ? "" : " (interrupted)")
              << '\n'
              << std::setprecision(4) << "  setup time       : " << s.setup_time_s << " s\n"
              << "  physics tables   : " << s.physics_tables << '\n'
              << "  transport time   : " << s.transport_time_s << " s (" << s.histories_per_s
              << " histories/s)\n";
    if (verbose)
        std::cout << "  time per step    : " << step_times_text(s.steps) << '\n';
    std::cout << "  energy (MeV/hist): emitted " << b.emitted_MeV / s.histories << ", deposited "
              << b.deposited_MeV / s.histories << ", escaped " << b.escaped_MeV / s.histories
              << ", below cut-off " << b.below_cutoff_MeV / s.histories << '\n'
              << "  energy balance   : relative imbalance " << std::scientific
              << b.relative_imbalance() << std::defaultfloat << '\n';
    std::cout << "  dose             : " << s.dose_description << '\n';
    std::cout << dose_report_text(s.report, s.uncertainty_reached, 17);
    if (!s.phase_space_output.empty())
        std::cout << "  phase space      : " << s.phase_space_output << '\n';
    for (auto const& f : s.files)
        std::cout << "  wrote            : " << f << '\n';
    if (s.zero_dose)
        std::cout << "  dose             : none deposited (see the warning above)\n";
}

void run_study_command(RunArgs const& a, GlobalOptions const& global)
{
    Comm const& comm = Comm::world();
    StudyInput study = load_study(a.study);
    if (a.rtdose_bits)
    {
        study.outputs.rtdose = true;
        study.outputs.rtdose_bits = *a.rtdose_bits;
    }
    StudyRunOptions opts;
    if (!a.backend.empty())
        opts.backend = to_backend(a.backend);
    if (a.histories)
    {
        auto const n = parse_counts(*a.histories, "--histories");
        MCDOSE_VALIDATE(n.size() == 1, << "'--histories' takes one number (got '" << *a.histories
                                       << "'); e.g. --histories 4e7");
        MCDOSE_VALIDATE(n.front() <= max_study_histories,
                        << "'--histories' " << *a.histories << " is above the limit of a run ("
                        << max_study_histories << "); give fewer");
        opts.histories = n.front();
    }
    if (a.threads)
        opts.cpu_threads = *a.threads;
    if (!a.output_dir.empty())
        opts.output_dir = a.output_dir;
    opts.if_exists = a.if_exists;
    opts.gpus = a.gpus;
    opts.cpu_groups = a.cpu_groups;
    opts.batches_per_launch = a.batches_per_launch;
    if (a.sample_sources_inline)
        opts.source_particles_ahead = 0;
    opts.checkpoint_path = a.checkpoint;
    opts.checkpoint_interval_s = a.checkpoint_every_s;
    opts.resume_path = a.resume;
    opts.table_cache = {!a.no_table_cache, a.table_cache_dir};
    opts.release_gpus = true; // the process makes no CUDA call after the study

    // Progress on stderr only for interactive runs; Ctrl-C or SIGTERM stops
    // the run (within about a second on the CPU, at the next batch boundary
    // on a GPU) and writes the results so far, marked incomplete.
    bool const show = !global.quiet && isatty(STDERR_FILENO) && comm.rank() == 0;
    g_signals.store(0);
    StopSignals const signals;
    opts.on_batch = [show](TransportProgress const& p)
    {
        if (show && p.elapsed_s > 1.0)
            print_progress(p);
        return g_signals.load() == 0;
    };
    opts.stop_requested = [] { return g_signals.load() > 0; };
    StudyRunSummary const s = run_study(study, opts);
    if (show)
        std::fprintf(stderr, "\r%60s\r", "");

    if (comm.rank() != 0)
    {
        if (!s.complete)
            command_exit_status() = 130;
        return; // rank 0 reports and writes
    }
    for (auto const& w : s.warnings)
        std::cerr << "mcdose: warning: " << w << '\n';
    if (global.quiet)
    {
        // Only what a script needs: the files written (the phase space among them), one
        // path a line.
        for (auto const& f : s.files)
            std::cout << f << '\n';
    }
    else
    {
        print_run_report(a.study, s, global.verbose);
    }
    if (!s.complete)
        command_exit_status() = 130;
}

void run_command(RunArgs const& a, GlobalOptions const& global)
{
    MpiSession const mpi; // starts MPI only under mpirun
    Comm const& comm = Comm::world();
    if (!comm.distributed())
    {
        run_study_command(a, global);
        return;
    }
    // A failing rank must not leave the others waiting in a collective: name
    // the rank and end the whole job (outputs are written only at the end, by
    // rank 0, atomically, so nothing half-written remains).
    try
    {
        run_study_command(a, global);
    }
    catch (std::exception const& e)
    {
        std::cerr << "mcdose: error: rank " << comm.rank() << ": " << e.what() << std::endl;
        comm.abort(1);
    }
}

bool const registered = register_command(
    {"run", "Run a study (JSON) and write dose, uncertainty, depth dose and a summary",
     [](CLI::App& sub, GlobalOptions const& global)
     {
         auto a = std::make_shared<RunArgs>();
         sub.add_option("study", a->study, "Study file (JSON)")
             ->required()
             ->check(CLI::ExistingFile);
         sub.add_option("--backend", a->backend, "Override the study's backend")
             ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
         sub.add_option("--histories", a->histories,
                        "Override run.histories (e.g. 1000000 or 4e7)");
         sub.add_option("--threads", a->threads, "CPU threads (0: all cores)")
             ->check(CLI::Range(0, 4096));
         sub.add_option("--output-dir", a->output_dir, "Override outputs.directory");
         sub.add_option_function<std::string>(
                "--if-exists", [a](std::string const& e) { a->if_exists = to_if_exists(e); },
                "Override outputs.if_exists: what to do with files of an earlier run")
             ->check(CLI::IsMember({"error", "overwrite", "increment"}));
         sub.add_option("--rtdose-bits", a->rtdose_bits,
                        "Write the RT Dose files (outputs.rtdose) with 16- or 32-bit pixels, "
                        "overriding outputs.rtdose_bits")
             ->check(CLI::IsMember({16, 32}));
         sub.add_option("--gpus", a->gpus,
                        "GPUs of each process: a count (2), a list (0,1; '1,' for GPU 1 alone) "
                        "or 'all' (default: all visible; one per rank when ranks share a node)");
         sub.add_option("--cpu-groups", a->cpu_groups,
                        "CPU backend: split the threads into N worker groups reduced like GPUs")
             ->check(CLI::PositiveNumber);
         sub.add_option("--batches-per-launch", a->batches_per_launch,
                        "Batches one GPU launch fills, each into its own grid (default: as "
                        "many as hold 4e6 histories and fit in half the free GPU memory); with "
                        "Philox the results do not depend on it")
             ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1000)));
         sub.add_flag("--sample-sources-inline", a->sample_sources_inline,
                      "GPU: each thread samples its history's source particle when it starts "
                      "it (default with Philox: a kernel samples each launch's particles "
                      "first); the results are the same bit for bit");
         sub.add_option("--checkpoint", a->checkpoint,
                        "Write a checkpoint to FILE at batch boundaries (atomically)");
         sub.add_option("--checkpoint-every", a->checkpoint_every_s,
                        "Seconds between checkpoints (default 0: every batch)")
             ->check(CLI::NonNegativeNumber);
         sub.add_option("--resume", a->resume,
                        "Continue the run saved in a checkpoint (same study and options)")
             ->check(CLI::ExistingFile);
         sub.add_flag("--no-table-cache", a->no_table_cache,
                      "Build the physics tables without reading or writing the table cache");
         sub.add_option("--table-cache-dir", a->table_cache_dir,
                        "Directory of the table cache (default: $MCDOSE_CACHE_DIR, else "
                        "$XDG_CACHE_HOME/mcdose, else ~/.cache/mcdose)");
         sub.callback([a, &global] { run_command(*a, global); });
     }});
} // namespace
} // namespace mcdose::app
