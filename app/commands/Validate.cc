//! \file app/commands/Validate.cc
//! `mcdose validate`: run the reference cases of validation/ on this machine
//! (CPU or GPU), judge each by its stated tolerances, and write a report folder
//! (summary table in Markdown, per case the curves with sigma bands and their
//! difference). The harness is validation/harness/; this file is the command.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "app/CommandRegistry.hh"
#include "app/ListOptions.hh"
#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/Config.hh"
#include "study/StudyChecks.hh"
#include "validation/harness/ValidationHarness.hh"

namespace mcdose::app
{
namespace
{
namespace fs = std::filesystem;

struct ValidateArgs
{
    bool quick{false};
    bool full{false};
    std::string backend{"auto"};
    std::vector<std::string> cases;
    std::string cases_dir;
    std::string output_dir{"validation_report"};
    std::optional<std::string> histories;
    std::optional<int> threads;
    std::string update_doc;
    bool list{false};
};

//! The folder of the running executable (empty if unknown).
fs::path executable_dir()
{
    std::error_code ec;
    fs::path const exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

//! validation/ of the source tree this binary was built from, else of an installed bundle.
std::string default_cases_dir()
{
    if (fs::is_directory(MCDOSE_VALIDATION_SOURCE_DIR))
        return MCDOSE_VALIDATION_SOURCE_DIR;
    fs::path const installed = executable_dir() / ".." / "share" / "mcdose" / "validation";
    if (fs::is_directory(installed))
        return installed.lexically_normal().string();
    return MCDOSE_VALIDATION_SOURCE_DIR;
}

std::string utc_now()
{
    std::time_t const t = std::time(nullptr);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
    return buf;
}

std::string command_line(ValidateArgs const& a, ValidationMode mode)
{
    std::string s = "mcdose validate --" + std::string(to_string(mode)) + " --backend " + a.backend;
    for (auto const& c : a.cases)
        s += " --case " + c;
    if (a.histories)
        s += " --histories " + *a.histories;
    if (a.threads)
        s += " --threads " + std::to_string(*a.threads);
    return s;
}

std::vector<ValidationCase> select_cases(ValidateArgs const& a, std::string const& dir)
{
    auto const all = find_validation_cases(dir);
    if (a.cases.empty())
        return all;
    std::vector<ValidationCase> chosen;
    for (auto const& name : a.cases)
    {
        auto it = std::find_if(all.begin(), all.end(),
                               [&](ValidationCase const& c) { return c.name == name; });
        if (it == all.end())
        {
            std::string names;
            for (auto const& c : all)
                names += (names.empty() ? "" : ", ") + c.name;
            MCDOSE_VALIDATE(false, << "--case '" << name << "': no such case in '" << dir
                                   << "'; the cases are: " << names);
        }
        chosen.push_back(*it);
    }
    return chosen;
}

//! Copy the report's plots and CSVs beside `doc` (under <doc dir>/validation/)
//! and put the report into the doc's generated block.
void update_doc(ValidationReport const& report, std::string const& out_dir, std::string const& doc)
{
    fs::path const doc_dir = fs::path(doc).parent_path();
    for (auto const& c : report.cases)
    {
        for (std::string const& f : {c.plot_file, c.csv_file})
        {
            if (f.empty())
                continue;
            fs::path const dest = doc_dir / "validation" / f;
            fs::create_directories(dest.parent_path());
            fs::copy_file(fs::path(out_dir) / f, dest, fs::copy_options::overwrite_existing);
        }
    }
    replace_generated_block(doc, validation_report_markdown(report, "validation/"));
}

void validate_command(ValidateArgs const& a, GlobalOptions const& global)
{
    MCDOSE_VALIDATE(!(a.quick && a.full), << "give --quick or --full, not both");
    ValidationRunOptions o;
    o.mode = a.quick ? ValidationMode::quick : ValidationMode::full;
    o.backend = resolve_backend(to_backend(a.backend));
    if (a.histories)
    {
        auto const n = parse_counts(*a.histories, "--histories");
        MCDOSE_VALIDATE(n.size() == 1 && n.front() > 0,
                        << "'--histories' takes one positive number (got '" << *a.histories
                        << "'); e.g. --histories 1e5");
        o.histories = n.front();
    }
    o.cpu_threads = a.threads;
    o.output_dir = a.output_dir;
    o.quiet = global.quiet;
    std::string const dir = a.cases_dir.empty() ? default_cases_dir() : a.cases_dir;
    // The plotting script beside the cases, else the one of this build's source tree or bundle.
    o.plot_script = (fs::path(dir) / "plot_validation.py").string();
    if (!fs::is_regular_file(o.plot_script))
        o.plot_script = (fs::path(default_cases_dir()) / "plot_validation.py").string();
    auto const cases = select_cases(a, dir);
    if (a.list)
    {
        for (auto const& c : cases)
        {
            std::cout << c.name << ": " << c.title << " (quick " << c.quick_histories << ", full "
                      << c.full_histories << " histories; reference " << c.reference_label << ")\n";
        }
        return;
    }
    if (!a.update_doc.empty())
        MCDOSE_VALIDATE(fs::is_regular_file(a.update_doc),
                        << "--update-doc '" << a.update_doc << "' does not exist");
    fs::create_directories(o.output_dir);

    ValidationReport report;
    report.mode = o.mode;
    report.command = command_line(a, o.mode);
    report.build = std::string("mcdose ") + BuildInfo::version + " (" + BuildInfo::git_describe +
                   "), " + BuildInfo::build_type + ", CUDA " +
                   (MCDOSE_USE_CUDA ? std::string("architectures ") + BuildInfo::cuda_architectures
                                    : std::string("off"));
    report.machine = describe_machine();
    report.date_utc = utc_now();
    if (!global.quiet)
    {
        std::cout << "mcdose validate: " << cases.size() << " case(s), " << to_string(o.mode)
                  << " mode, from " << dir << '\n';
    }
    for (auto const& c : cases)
        report.cases.push_back(run_validation_case(c, o));

    std::string const md_path = (fs::path(o.output_dir) / "report.md").string();
    write_text_atomically(md_path, "# mcdose validation report\n\n" +
                                       validation_report_markdown(report, ""));
    if (!a.update_doc.empty())
        update_doc(report, o.output_dir, a.update_doc);
    std::cout << validation_report_markdown(report, o.output_dir + "/") << '\n'
              << "Report: " << md_path << " (Markdown; the plots and per-bin CSVs beside it)\n";
    if (!a.update_doc.empty())
        std::cout << "Updated: " << a.update_doc << '\n';
    if (!report.passed())
        command_exit_status() = 1;
}

bool const registered = register_command(
    {"validate",
     "Run the reference cases of validation/ here (CPU or GPU) and report them against their "
     "tolerances",
     [](CLI::App& sub, GlobalOptions const& global)
     {
         auto a = std::make_shared<ValidateArgs>();
         sub.add_flag("--quick", a->quick,
                      "Reduced histories (minutes on 2 CPU cores; what CI runs)");
         sub.add_flag("--full", a->full, "The cases' full history counts (the default)");
         sub.add_option("--backend", a->backend, "auto (GPU if usable), cpu or gpu")
             ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
         sub.add_option("--case", a->cases, "Run only this case (repeatable; see --list)");
         sub.add_option("--cases-dir", a->cases_dir,
                        "Folder of the cases (default: the repository's validation/)");
         sub.add_option("--output-dir", a->output_dir, "Report folder (default validation_report)");
         sub.add_option("--histories", a->histories,
                        "Histories of every case (overrides the mode's counts)");
         sub.add_option("--threads", a->threads, "CPU threads (0: all cores)")
             ->check(CLI::Range(0, 4096));
         sub.add_option("--update-doc", a->update_doc,
                        "Also put the report into this Markdown file's generated block "
                        "(e.g. docs/validation.md), with its plots beside it");
         sub.add_flag("--list", a->list, "List the cases and exit");
         sub.callback([a, &global] { validate_command(*a, global); });
     }});
} // namespace
} // namespace mcdose::app
