//! Validation case validation/electron_20MeV_water: mcdose's laterally
//! integrated depth dose of a 20 MeV electron pencil beam against PENELOPE-2018
//! (shared/refdata/penelope), reduced histories on the CPU. Criteria:
//! every bin before the distal fall-off within 2 % of the maximum (plus 4
//! combined sigma), R50 and Rp within 1 mm, energy deposited per history within
//! 1 %. The full run and its numbers: docs/validation.md.
#include <gtest/gtest.h>

#include "ValidationCase.hh"

namespace mcdose::test
{
TEST(ValidationTest, Electron20MeVWater)
{
    auto const c = run_validation_case("electron_20MeV_water", "40000");
    ASSERT_TRUE(c.ok);
    // Before the distal fall-off: up to where the reference drops to about
    // 83 % of its maximum beyond the peak (7.4 cm; R50 = 8.5 cm).
    auto const cmp = expect_within_two_percent(c, 0.0, 7.4);
    EXPECT_NEAR(depth_dose_r50_cm(c.reference), depth_dose_r50_cm(c.test), 0.1);
    EXPECT_NEAR(depth_dose_practical_range_cm(c.reference), depth_dose_practical_range_cm(c.test),
                0.1);
    EXPECT_NEAR(cmp.ref_total_MeV, cmp.test_total_MeV, 0.01 * cmp.ref_total_MeV);
}
} // namespace mcdose::test
