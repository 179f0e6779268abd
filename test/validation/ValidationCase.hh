//! \file test/validation/ValidationCase.hh
//! Run a committed validation case (validation/<name>/study.json) with the CLI
//! (on the CPU unless MCDOSE_VALIDATION_BACKEND says otherwise) and read its
//! depth dose and the PENELOPE reference beside it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"
#include "validation/DepthDoseComparison.hh"

namespace mcdose::test
{
struct ValidationCurves
{
    DepthDoseCurve test, reference;
    std::string output; //!< the CLI's output
    bool ok{false};     //!< false: a failure was recorded (missing data or failed run)
};

//! `name`: case folder and output stem (e.g. "electron_20MeV_water"); the
//! reference is shared/refdata/penelope/<stem>_idd.csv with the same stem.
inline ValidationCurves run_validation_case(std::string const& name, std::string const& histories)
{
    namespace fs = std::filesystem;
    ValidationCurves c;
    std::string const ref_path = refdata_dir() + "/penelope/" + name + "_idd.csv";
    if (!fs::exists(ref_path))
    {
        ADD_FAILURE() << "reference data missing: " << ref_path
                      << " (clone with shared/ beside the repository or set MCDOSE_REFDATA)";
        return c;
    }
    // CI runs the reduced case on the CPU; the full runs on a GPU machine use the
    // same checks with MCDOSE_VALIDATION_BACKEND=gpu and MCDOSE_VALIDATION_HISTORIES=N.
    char const* backend = std::getenv("MCDOSE_VALIDATION_BACKEND");
    char const* full = std::getenv("MCDOSE_VALIDATION_HISTORIES");
    fs::path const out = fs::temp_directory_path() / ("mcdose_validation_" + name);
    fs::remove_all(out);
    auto const r =
        run_command(mcdose_exe() + " run " + source_dir() + "/validation/" + name +
                    "/study.json --backend " + (backend ? backend : "cpu") + " --histories " +
                    (full ? full : histories) + " --output-dir " + out.string());
    c.output = r.output;
    if (r.exit_code != 0)
    {
        ADD_FAILURE() << "mcdose run failed: " << r.output;
        return c;
    }
    c.test = read_depth_dose_csv((out / (name + "_depth_dose.csv")).string());
    c.reference = read_depth_dose_csv(ref_path);
    fs::remove_all(out);
    c.ok = true;
    return c;
}
//! The validation cases' bin criterion on [z_min, z_max]: |test - ref| <= 2 % of the
//! reference maximum + 4 combined sigma. Prints the table; a failure names it.
inline DepthDoseComparison expect_within_two_percent(ValidationCurves const& c, double z_min_cm,
                                                     double z_max_cm)
{
    DepthDoseComparisonOptions opts;
    opts.z_min_cm = z_min_cm;
    opts.z_max_cm = z_max_cm;
    opts.tolerance_of_max = 0.02;
    opts.sigmas = 4;
    std::ostringstream report;
    auto const cmp = compare_depth_dose(c.test, c.reference, opts, report);
    std::cout << report.str();
    EXPECT_TRUE(cmp.passed()) << report.str();
    return cmp;
}
} // namespace mcdose::test
