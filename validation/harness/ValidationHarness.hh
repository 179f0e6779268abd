//! \file validation/harness/ValidationHarness.hh
//! `mcdose validate`: run each reference case on this machine (CPU or GPU),
//! judge it by the tolerances of its case.json, and write a report folder: per
//! case the two curves with their sigma bands and their difference (CSV, and a
//! PNG when python3 with matplotlib is present), and one summary table
//! (Markdown) with pass/fail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/Types.hh"
#include "dose/DepthDoseCurve.hh"
#include "validation/DepthDoseComparison.hh"
#include "validation/harness/ValidationCase.hh"

namespace mcdose
{
//! One criterion of a case: what was measured, the limit, the verdict.
struct ValidationCriterion
{
    std::string quantity; //!< e.g. "energy deposited"
    std::string measured; //!< e.g. "19.263 / 19.245 MeV = 1.0009"
    std::string limit;    //!< e.g. "|ratio - 1| <= 1 %"
    bool passed{false};
};

//! The judged comparison of one case (no files, no transport: see judge_depth_dose).
struct DepthDoseVerdict
{
    DepthDoseComparison comparison; //!< bin-by-bin figures (validation/DepthDoseComparison.hh)
    std::string bin_table;          //!< the readable bin-by-bin table
    double energy_ratio{0};         //!< E_test / E_ref over the whole phantom
    double mean_abs_diff_of_max{0}; //!< mean |test - ref| / max(ref) over the compared bins
    std::optional<double> r50_test_cm, r50_ref_cm, rp_test_cm, rp_ref_cm;
    std::vector<ValidationCriterion> criteria;
    bool passed() const;
};

//! Judge `test` against `reference` with `tol` (the grids must match).
DepthDoseVerdict judge_depth_dose(DepthDoseCurve const& test, DepthDoseCurve const& reference,
                                  DepthDoseTolerances const& tol);

//! Write the curves, their sigmas and the difference, one row per bin:
//! z_lo_cm, z_hi_cm, z_mid_cm, reference_MeV, reference_sigma_MeV, mcdose_MeV,
//! mcdose_sigma_MeV, diff_of_max, sigma_of_max, allowed_of_max, compared, passed.
void write_depth_dose_comparison_csv(std::string const& path, DepthDoseCurve const& test,
                                     DepthDoseCurve const& reference,
                                     DepthDoseTolerances const& tol);

struct ValidationRunOptions
{
    ValidationMode mode{ValidationMode::quick};
    Backend backend{Backend::automatic};
    std::optional<std::uint64_t> histories; //!< overrides the case's count for every case
    std::optional<int> cpu_threads;
    std::string output_dir{"validation_report"};
    std::string plot_script; //!< validation/plot_validation.py ("": CSV only)
    bool quiet{false};
};

struct ValidationCaseResult
{
    ValidationCase vcase;
    std::uint64_t histories{0};
    std::string backend, device;
    double run_time_s{0};
    DepthDoseVerdict verdict;
    std::string csv_file;  //!< relative to the report folder
    std::string plot_file; //!< relative to the report folder; empty when no plot was made
    std::string plot_note; //!< why there is no plot
};

struct ValidationReport
{
    std::string command;  //!< the command line that made it
    std::string build;    //!< mcdose version, commit, build type, CUDA architectures
    std::string machine;  //!< CPU model and threads; GPU names
    std::string date_utc; //!< when it ran
    ValidationMode mode{ValidationMode::quick};
    std::vector<ValidationCaseResult> cases;
    bool passed() const;
};

//! Run one case (its study with the mode's histories) into
//! `<output_dir>/<case>/` and judge it.
ValidationCaseResult run_validation_case(ValidationCase const& vcase,
                                         ValidationRunOptions const& options);

//! The report as Markdown: the summary table, then per case its criteria and
//! plot. Image and CSV links are prefixed with `link_prefix` ("" in the report
//! folder).
std::string validation_report_markdown(ValidationReport const& report,
                                       std::string const& link_prefix);

//! The CPU model and thread count, and each GPU with its compute capability.
std::string describe_machine();

//! Replace the text between the lines `<!-- mcdose validate: begin -->` and
//! `<!-- mcdose validate: end -->` of `doc_path` by `markdown` (atomically);
//! throws RuntimeError naming the file if either marker is missing.
void replace_generated_block(std::string const& doc_path, std::string const& markdown);
} // namespace mcdose
