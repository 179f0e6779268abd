//! Validation case validation/electron_20MeV_water: mcdose's laterally
//! integrated depth dose of a 20 MeV electron pencil beam against PENELOPE-2018
//! (shared/refdata/penelope), reduced histories on the CPU. Criteria of issue 7:
//! every bin before the distal fall-off within 2 % of the maximum (plus 4
//! combined sigma), R50 and Rp within 1 mm, energy deposited per history within
//! 1 %. The full run and its numbers: docs/validation.md.
#include <filesystem>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "TestMacros.hh"
#include "validation/DepthDoseComparison.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
TEST(ValidationTest, Electron20MeVWater)
{
    std::string const ref_path = refdata_dir() + "/penelope/electron_20MeV_water_idd.csv";
    ASSERT_TRUE(fs::exists(ref_path))
        << "reference data missing: " << ref_path
        << " (clone with shared/ beside the repository or set MCDOSE_REFDATA)";
    fs::path const out = fs::temp_directory_path() / "mcdose_validation_electron20";
    fs::remove_all(out);
    auto const r = run_command(mcdose_exe() + " run " + source_dir()
                               + "/validation/electron_20MeV_water/study.json --backend cpu "
                                 "--histories 40000 --output-dir "
                               + out.string());
    ASSERT_EQ(0, r.exit_code) << r.output;

    auto const test_curve
        = read_depth_dose_csv((out / "electron_20MeV_water_depth_dose.csv").string());
    auto const ref_curve = read_depth_dose_csv(ref_path);
    // Before the distal fall-off: up to where the reference drops below 80 %
    // of its maximum beyond the peak (7.4 cm; R50 = 8.5 cm).
    DepthDoseComparisonOptions opts;
    opts.z_max_cm = 7.4;
    opts.tolerance_of_max = 0.02;
    opts.sigmas = 4;
    std::ostringstream report;
    auto const cmp = compare_depth_dose(test_curve, ref_curve, opts, report);
    std::cout << report.str();
    EXPECT_TRUE(cmp.passed()) << report.str();
    EXPECT_NEAR(depth_dose_r50_cm(ref_curve), depth_dose_r50_cm(test_curve), 0.1);
    EXPECT_NEAR(depth_dose_practical_range_cm(ref_curve),
                depth_dose_practical_range_cm(test_curve), 0.1);
    EXPECT_NEAR(cmp.ref_total_MeV, cmp.test_total_MeV, 0.01 * cmp.ref_total_MeV);
    fs::remove_all(out);
}
}  // namespace mcdose::test
