//! \file app/commands/Calibrate.cc
//! `mcdose calibrate reference.json --point-cm X Y Z -o calibration.json`: run a reference
//! study and write the calibration of its source model (study/Calibrate.hh), which turns
//! a study's `monitor_units` into source particles.
#include <array>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "app/CommandRegistry.hh"
#include "app/ListOptions.hh"
#include "study/Calibrate.hh"
#include "study/OutputPlan.hh"
#include "study/StudyInput.hh"

namespace mcdose::app
{
namespace
{
struct CalibrateArgs
{
    std::string study;
    std::string output;
    std::array<double, 3> point_cm{{0, 0, 0}};
    double radius_cm{0};
    double dose_per_mu_Gy{0.01};
    std::string condition;
    std::optional<std::string> histories;
    std::optional<int> threads;
    std::string backend;
    std::string output_dir;
    std::optional<IfExists> if_exists;
    bool no_outputs{false};
};

void run_calibrate(CalibrateArgs const& a, GlobalOptions const& global)
{
    StudyInput const study = load_study(a.study);
    {
        // The calibration never overwrites what the run reads or writes.
        OutputInput outputs = study.outputs;
        if (!a.output_dir.empty())
            outputs.directory = a.output_dir;
        check_extra_output(study, outputs, a.output, "calibration (-o)", !a.no_outputs);
    }
    StudyRunOptions opts;
    if (a.histories)
    {
        auto const n = parse_counts(*a.histories, "--histories");
        MCDOSE_VALIDATE(n.size() == 1, << "'--histories' takes one number; e.g. --histories 1e7");
        opts.histories = n.front();
    }
    if (a.threads)
        opts.cpu_threads = *a.threads;
    if (!a.backend.empty())
        opts.backend = to_backend(a.backend);
    if (!a.output_dir.empty())
        opts.output_dir = a.output_dir;
    opts.if_exists = a.if_exists;
    opts.write_outputs = !a.no_outputs;
    opts.table_cache = {true, {}};
    CalibrateOptions c;
    c.point_cm = Real3{{a.point_cm[0], a.point_cm[1], a.point_cm[2]}};
    c.radius_cm = a.radius_cm;
    c.dose_per_monitor_unit_Gy = a.dose_per_mu_Gy;
    c.condition = a.condition.empty() ? "the reference study " + a.study : a.condition;
    StudyRunSummary summary;
    DoseCalibration const cal = calibrate_source_model(study, c, opts, &summary);
    write_calibration(a.output, cal);
    for (auto const& w : summary.warnings)
        std::cerr << "mcdose: warning: " << w << '\n';
    if (global.quiet)
        return;
    std::cout << "mcdose calibrate: " << a.study << '\n'
              << "  source model     : " << cal.source_description << '\n'
              << "  condition        : " << cal.condition << '\n'
              << "  histories        : " << summary.histories << '\n'
              << "  dose at the point: " << cal.dose_per_particle_Gy << " +- "
              << cal.dose_per_particle_sigma_Gy << " Gy per particle (" << cal.dose_to
              << ", mean of " << cal.voxels << " voxel" << (cal.voxels == 1 ? "" : "s") << ")\n"
              << "  particles per MU : " << cal.particles_per_monitor_unit() << " (at "
              << cal.dose_per_monitor_unit_Gy << " Gy/MU)\n"
              << "  wrote            : " << a.output << '\n';
}

bool const registered = register_command(
    {"calibrate",
     "Run a reference study and write the calibration (dose per particle at a reference "
     "point) that turns monitor units into particles",
     [](CLI::App& sub, GlobalOptions const& global)
     {
         auto a = std::make_shared<CalibrateArgs>();
         sub.add_option("study", a->study,
                        "Reference study (JSON): one source in the reference "
                        "condition, e.g. 10x10 cm2 at SSD 100 cm on water")
             ->required()
             ->check(CLI::ExistingFile);
         sub.add_option("-o,--output", a->output, "Calibration file to write (JSON)")->required();
         sub.add_option("--point-cm", a->point_cm,
                        "Reference point X Y Z in phantom coordinates [cm] (e.g. d_max on the "
                        "central axis)")
             ->required();
         sub.add_option("--radius-cm", a->radius_cm,
                        "Average the dose over voxel centres within this radius of the point "
                        "[cm] (default 0: the voxel holding it)")
             ->check(CLI::NonNegativeNumber);
         sub.add_option("--dose-per-mu-Gy", a->dose_per_mu_Gy,
                        "Dose per monitor unit at the reference point [Gy] (default 0.01)")
             ->check(CLI::PositiveNumber);
         sub.add_option("--condition", a->condition,
                        "The reference condition in words, stored in the file (e.g. \"10x10 "
                        "cm2, SSD 100 cm, d_max 1.5 cm, water\")");
         sub.add_option("--histories", a->histories, "Override run.histories (e.g. 1e7)");
         sub.add_option("--threads", a->threads, "CPU threads (0: all cores)")
             ->check(CLI::Range(0, 4096));
         sub.add_option("--backend", a->backend, "Override the study's backend")
             ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
         sub.add_option("--output-dir", a->output_dir,
                        "Override the reference study's outputs.directory");
         sub.add_option_function<std::string>(
                "--if-exists", [a](std::string const& e) { a->if_exists = to_if_exists(e); },
                "Override outputs.if_exists")
             ->check(CLI::IsMember({"error", "overwrite", "increment"}));
         sub.add_flag("--no-outputs", a->no_outputs,
                      "Write only the calibration, not the reference study's outputs");
         sub.callback([a, &global] { run_calibrate(*a, global); });
     }});
} // namespace
} // namespace mcdose::app
