//! \file validation/harness/ValidationHarness.cc
#include "validation/harness/ValidationHarness.hh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/Device.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"

namespace mcdose
{
namespace
{
namespace fs = std::filesystem;

std::string fixed(double x, int digits)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(digits) << x;
    return os.str();
}

//! Text for a Markdown table cell ('|' escaped).
std::string cell(std::string const& text)
{
    std::string out;
    for (char c : text)
        out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

std::string percent(double fraction, int digits = 2)
{
    return fixed(100 * fraction, digits) + " %";
}

std::string signed_percent(double fraction)
{
    return (fraction >= 0 ? "+" : "") + percent(fraction);
}

//! A range criterion |test - ref| <= limit [cm] (R50, Rp).
ValidationCriterion range_criterion(char const* name, double test_cm, double ref_cm,
                                    double limit_cm)
{
    double const d = test_cm - ref_cm;
    return {name,
            fixed(test_cm, 3) + " cm (reference " + fixed(ref_cm, 3) + ", " + (d >= 0 ? "+" : "") +
                fixed(10 * d, 2) + " mm)",
            "within " + fixed(10 * limit_cm, 1) + " mm", std::fabs(d) <= limit_cm};
}

//! Run a shell command quietly; true if it exited with 0.
bool command_succeeds(std::string const& command)
{
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

std::string shell_quote(std::string const& s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

//! Make `<case>.png` from the comparison CSV with the committed script; the
//! note says why not when it cannot.
void make_plot(ValidationCaseResult& r, ValidationRunOptions const& o)
{
    if (o.plot_script.empty() || !fs::is_regular_file(o.plot_script))
    {
        r.plot_note = "no plot: the plotting script validation/plot_validation.py was not found; "
                      "the curves are in " +
                      r.csv_file;
        return;
    }
    // The first python3 with matplotlib: $MCDOSE_PYTHON if set, else the one on the
    // PATH, else the system's.
    std::vector<std::string> candidates{"python3", "/usr/bin/python3"};
    if (char const* env = std::getenv("MCDOSE_PYTHON"))
        candidates = {env};
    std::string python;
    for (auto const& candidate : candidates)
    {
        if (command_succeeds(shell_quote(candidate) + " -c 'import matplotlib'"))
        {
            python = candidate;
            break;
        }
    }
    if (python.empty())
    {
        r.plot_note = "no plot: python3 with matplotlib was not found (install python3-matplotlib, "
                      "or point MCDOSE_PYTHON to a python3 that has it, and run again); the "
                      "curves are in " +
                      r.csv_file;
        return;
    }
    std::string const png = r.vcase.name + "/" + r.vcase.name + ".png";
    std::string const cmd =
        python + " " + shell_quote(o.plot_script) + " " +
        shell_quote((fs::path(o.output_dir) / r.csv_file).string()) + " " +
        shell_quote((fs::path(o.output_dir) / png).string()) + " --title " +
        shell_quote(r.vcase.title) + " --reference-label " + shell_quote(r.vcase.reference_label) +
        " --test-label " +
        shell_quote("mcdose, " + std::to_string(r.histories) + " histories (" + r.backend + ")") +
        " --tolerance " + std::to_string(r.vcase.tolerances.bin_of_max);
    if (command_succeeds(cmd))
        r.plot_file = png;
    else
        r.plot_note =
            "no plot: the plotting script failed (" + cmd + "); the curves are in " + r.csv_file;
}

std::string first_line_of(std::string const& path, std::string const& key)
{
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
    {
        if (line.rfind(key, 0) == 0)
        {
            auto const colon = line.find(':');
            std::string v = colon == std::string::npos ? line : line.substr(colon + 1);
            v.erase(0, v.find_first_not_of(" \t"));
            return v;
        }
    }
    return {};
}
} // namespace

bool DepthDoseVerdict::passed() const
{
    if (criteria.empty())
        return false;
    for (auto const& c : criteria)
    {
        if (!c.passed)
            return false;
    }
    return true;
}

bool ValidationReport::passed() const
{
    if (cases.empty())
        return false;
    for (auto const& c : cases)
    {
        if (!c.verdict.passed())
            return false;
    }
    return true;
}

DepthDoseVerdict judge_depth_dose(DepthDoseCurve const& test, DepthDoseCurve const& reference,
                                  DepthDoseTolerances const& tol)
{
    DepthDoseVerdict v;
    DepthDoseComparisonOptions opts;
    opts.z_min_cm = tol.z_min_cm;
    opts.z_max_cm = tol.z_max_cm;
    opts.tolerance_of_max = tol.bin_of_max;
    opts.sigmas = tol.sigmas;
    std::ostringstream table;
    v.comparison = compare_depth_dose(test, reference, opts, table);
    v.bin_table = table.str();
    auto const& c = v.comparison;
    v.energy_ratio = c.ref_total_MeV > 0 ? c.test_total_MeV / c.ref_total_MeV : 0;
    v.mean_abs_diff_of_max = c.mean_abs_diff_of_max;

    v.criteria.push_back({"energy deposited per history",
                          fixed(c.test_total_MeV, 4) + " MeV (reference " +
                              fixed(c.ref_total_MeV, 4) + "; ratio " + fixed(v.energy_ratio, 4) +
                              ")",
                          "ratio within " + percent(tol.energy_deposited, 1) + " of 1",
                          std::fabs(v.energy_ratio - 1) <= tol.energy_deposited});
    std::string const where =
        tol.z_max_cm < 1e29
            ? fixed(tol.z_min_cm, 1) + " cm <= z <= " + fixed(tol.z_max_cm, 1) + " cm"
            : "z >= " + fixed(tol.z_min_cm, 1) + " cm";
    v.criteria.push_back(
        {"bins, " + where,
         std::to_string(c.bins_compared - c.bins_failed) + " of " +
             std::to_string(c.bins_compared) + " within; worst " +
             signed_percent(c.worst_diff_of_max) + " of max at " + fixed(c.worst_z_cm, 1) +
             " cm; mean |diff| " + percent(c.mean_abs_diff_of_max) + " of max",
         "|diff| <= " + percent(tol.bin_of_max, 1) + " of max + " + fixed(tol.sigmas, 0) + " sigma",
         c.passed()});
    if (tol.r50_cm)
    {
        v.r50_test_cm = depth_dose_r50_cm(test);
        v.r50_ref_cm = depth_dose_r50_cm(reference);
        v.criteria.push_back(range_criterion("R50", *v.r50_test_cm, *v.r50_ref_cm, *tol.r50_cm));
    }
    if (tol.rp_cm)
    {
        v.rp_test_cm = depth_dose_practical_range_cm(test);
        v.rp_ref_cm = depth_dose_practical_range_cm(reference);
        v.criteria.push_back(
            range_criterion("Rp (ICRU 35)", *v.rp_test_cm, *v.rp_ref_cm, *tol.rp_cm));
    }
    return v;
}

void write_depth_dose_comparison_csv(std::string const& path, DepthDoseCurve const& test,
                                     DepthDoseCurve const& ref, DepthDoseTolerances const& tol)
{
    MCDOSE_VALIDATE(test.lo_cm.size() == ref.lo_cm.size(),
                    << "depth-dose grids differ: " << test.lo_cm.size() << " bins vs "
                    << ref.lo_cm.size() << " in the reference");
    double ref_max = 0;
    for (double e : ref.edep_MeV)
        ref_max = std::max(ref_max, e);
    MCDOSE_VALIDATE(ref_max > 0, << "the reference depth dose is zero everywhere");
    std::ostringstream os;
    os << "z_lo_cm,z_hi_cm,z_mid_cm,reference_MeV,reference_sigma_MeV,mcdose_MeV,"
          "mcdose_sigma_MeV,diff_of_max,sigma_of_max,allowed_of_max,compared,passed\n"
       << std::setprecision(7);
    for (std::size_t i = 0; i < ref.lo_cm.size(); ++i)
    {
        bool const compared =
            ref.lo_cm[i] >= tol.z_min_cm - 1e-9 && ref.hi_cm[i] <= tol.z_max_cm + 1e-9;
        double const diff = (test.edep_MeV[i] - ref.edep_MeV[i]) / ref_max;
        double const sigma = std::hypot(test.edep_sigma_MeV[i], ref.edep_sigma_MeV[i]) / ref_max;
        double const allowed = tol.bin_of_max + tol.sigmas * sigma;
        os << ref.lo_cm[i] << ',' << ref.hi_cm[i] << ',' << ref.mid_cm(i) << ',' << ref.edep_MeV[i]
           << ',' << ref.edep_sigma_MeV[i] << ',' << test.edep_MeV[i] << ','
           << test.edep_sigma_MeV[i] << ',' << diff << ',' << sigma << ',' << allowed << ','
           << int(compared) << ',' << int(!compared || std::fabs(diff) <= allowed) << '\n';
    }
    write_text_atomically(path, os.str());
}

ValidationCaseResult run_validation_case(ValidationCase const& vcase, ValidationRunOptions const& o)
{
    ValidationCaseResult r;
    r.vcase = vcase;
    r.histories = o.histories ? *o.histories : vcase.histories(o.mode);
    StudyInput const study = load_study(vcase.study_path);
    fs::path const case_out = fs::path(o.output_dir) / vcase.name;
    fs::path const run_out = case_out / "run";
    fs::create_directories(run_out);
    StudyRunOptions ro;
    ro.backend = o.backend;
    ro.histories = r.histories;
    ro.cpu_threads = o.cpu_threads;
    ro.output_dir = run_out.string();
    ro.if_exists = IfExists::overwrite;
    if (!o.quiet)
    {
        std::cout << "  " << vcase.name << ": " << r.histories << " histories ..." << std::flush;
    }
    auto const t0 = std::chrono::steady_clock::now();
    StudyRunSummary const s = run_study(study, ro);
    r.run_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.backend = s.backend;
    r.device = s.device;
    MCDOSE_VALIDATE(s.complete, << "validation case '" << vcase.name << "' was interrupted");
    std::string const stem = study.outputs.name.empty() ? fs::path(vcase.study_path).stem().string()
                                                        : study.outputs.name;
    DepthDoseCurve const test =
        read_depth_dose_csv((run_out / (stem + "_depth_dose.csv")).string());
    DepthDoseCurve const ref = read_depth_dose_csv(vcase.reference_path);
    r.verdict = judge_depth_dose(test, ref, vcase.tolerances);
    r.csv_file = vcase.name + "/comparison.csv";
    write_depth_dose_comparison_csv((fs::path(o.output_dir) / r.csv_file).string(), test, ref,
                                    vcase.tolerances);
    write_text_atomically((case_out / "bins.txt").string(), r.verdict.bin_table);
    make_plot(r, o);
    if (!o.quiet)
    {
        std::cout << ' ' << fixed(r.run_time_s, 1) << " s, "
                  << (r.verdict.passed() ? "passes" : "FAILS") << std::endl;
    }
    return r;
}

std::string describe_machine()
{
    std::string cpu = first_line_of("/proc/cpuinfo", "model name");
    if (cpu.empty())
        cpu = "CPU";
    std::string s =
        cpu + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
    for (auto const& d : device_infos())
    {
        s += "; GPU " + std::to_string(d.index) + ": " + d.name + " (compute capability " +
             std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) + ")";
    }
    return s;
}

std::string validation_report_markdown(ValidationReport const& rep, std::string const& prefix)
{
    std::ostringstream md;
    md << "Command: `" << rep.command << "` (" << to_string(rep.mode) << " mode), " << rep.date_utc
       << ".  \nBuild: " << rep.build << ".  \nMachine: " << rep.machine << ".\n\n"
       << "| case | backend | histories | energy deposited (mcdose / reference) | mean \\|diff\\| "
          "| worst diff | R50 mcdose / reference | Rp mcdose / reference | result |\n"
       << "|---|---|---|---|---|---|---|---|---|\n";
    for (auto const& c : rep.cases)
    {
        auto const& v = c.verdict;
        auto const ranges = [](std::optional<double> t, std::optional<double> r)
        { return t ? fixed(*t, 2) + " / " + fixed(*r, 2) + " cm" : std::string("—"); };
        md << "| " << c.vcase.title << " | " << c.backend << " | " << c.histories << " | "
           << fixed(v.energy_ratio, 4) << " | " << percent(v.mean_abs_diff_of_max) << " of max | "
           << signed_percent(v.comparison.worst_diff_of_max) << " of max ("
           << fixed(v.comparison.worst_z_cm, 1) << " cm) | " << ranges(v.r50_test_cm, v.r50_ref_cm)
           << " | " << ranges(v.rp_test_cm, v.rp_ref_cm) << " | "
           << (v.passed() ? "pass" : "**FAIL**") << " |\n";
    }
    md << "\nOverall: " << (rep.passed() ? "every case passes" : "**at least one case fails**")
       << ". Mean and worst diff are over the bins each case compares, in % of the reference "
          "maximum.\n";
    for (auto const& c : rep.cases)
    {
        md << "\n### " << c.vcase.title << " (`validation/" << c.vcase.name << "`)\n\n"
           << "Reference: " << c.vcase.reference_label << " (provenance: `validation/"
           << c.vcase.name << "/" << fs::path(c.vcase.provenance_path).filename().string()
           << "`). mcdose: " << c.histories << " histories on " << c.device << ", "
           << fixed(c.run_time_s, 1) << " s.\n\n"
           << "| criterion | measured | limit | result |\n|---|---|---|---|\n";
        for (auto const& k : c.verdict.criteria)
        {
            md << "| " << cell(k.quantity) << " | " << cell(k.measured) << " | " << cell(k.limit)
               << " | " << (k.passed ? "pass" : "**FAIL**") << " |\n";
        }
        if (!c.plot_file.empty())
        {
            md << "\n![" << c.vcase.title << ": depth dose with ±2σ bands, and the difference]("
               << prefix << c.plot_file << ")\n";
        }
        else
        {
            md << "\n" << c.plot_note << ".\n";
        }
        md << "\nCurves, sigmas and difference per bin: [" << c.csv_file << "](" << prefix
           << c.csv_file << ").\n";
    }
    return md.str();
}

void replace_generated_block(std::string const& doc_path, std::string const& markdown)
{
    std::ifstream in(doc_path);
    MCDOSE_VALIDATE(in, << "cannot read '" << doc_path << "' (--update-doc)");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string const text = ss.str();
    std::string const begin = "<!-- mcdose validate: begin -->\n";
    std::string const end = "<!-- mcdose validate: end -->";
    auto const b = text.find(begin);
    auto const e = text.find(end);
    MCDOSE_VALIDATE(b != std::string::npos && e != std::string::npos && e > b,
                    << "'" << doc_path << "' has no block between the lines '"
                    << "<!-- mcdose validate: begin -->' and '" << end
                    << "'; add them where the report goes");
    write_text_atomically(doc_path,
                          text.substr(0, b + begin.size()) + markdown + "\n" + text.substr(e));
}
} // namespace mcdose
