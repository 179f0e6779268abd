//! HU -> (material, density) conversion with the Schneider 2000 default and user tables.
#include "phantoms/HuCalibration.hh"

#include <cmath>

#include <gtest/gtest.h>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
HuConverter::Result convert(HuConverter const& c, double hu)
{
    HuConverter::Result r;
    EXPECT_TRUE(c.convert(hu, &r)) << "HU " << hu;
    return r;
}

std::string material_of(HuConverter const& c, double hu)
{
    return c.material_names()[convert(c, hu).material];
}
} // namespace

TEST(HuCalibrationTest, DefaultDensityCurveFollowsSchneider2000)
{
    HuConverter const c(schneider2000_calibration());
    // Control points are reproduced exactly (to float precision).
    EXPECT_FLOAT_EQ(0.00121f, convert(c, -1000).density_g_cm3);
    EXPECT_FLOAT_EQ(0.00121f, convert(c, -1024).density_g_cm3);
    EXPECT_FLOAT_EQ(0.93f, convert(c, -98).density_g_cm3);
    EXPECT_FLOAT_EQ(1.03f, convert(c, 14).density_g_cm3);
    EXPECT_FLOAT_EQ(1.1199f, convert(c, 100).density_g_cm3);
    EXPECT_FLOAT_EQ(1.0762f, convert(c, 101).density_g_cm3); // step onto the bone line
    EXPECT_FLOAT_EQ(2.8f, convert(c, 3000).density_g_cm3);
    // Linear in between: water-like HU 0 on the -97..14 segment.
    double const expected = 0.930486 + (0.0 - -97.0) / (14.0 - -97.0) * (1.03 - 0.930486);
    EXPECT_NEAR(expected, convert(c, 0).density_g_cm3, 1e-6);
    // Midpoint of the bone line.
    EXPECT_NEAR(0.5 * (1.0762 + 1.9642), convert(c, 850.5).density_g_cm3, 1e-6);
}

TEST(HuCalibrationTest, DefaultTissueBins)
{
    HuConverter const c(schneider2000_calibration());
    EXPECT_EQ("air", material_of(c, -1024));
    EXPECT_EQ("air", material_of(c, -951));
    EXPECT_EQ("lung_icrp", material_of(c, -950));
    EXPECT_EQ("lung_icrp", material_of(c, -121));
    EXPECT_EQ("adipose_icrp", material_of(c, -120));
    EXPECT_EQ("soft_tissue_icru44", material_of(c, 0));
    EXPECT_EQ("soft_tissue_icru44", material_of(c, 119.9));
    EXPECT_EQ("bone_cortical_icrp", material_of(c, 120));
    EXPECT_EQ("bone_cortical_icrp", material_of(c, 3071));
    EXPECT_EQ(5u, c.material_names().size());
}

TEST(HuCalibrationTest, OutOfRangeIsAnErrorUnlessClamped)
{
    HuCalibration cal = schneider2000_calibration();
    HuConverter const strict(cal);
    HuConverter::Result r;
    EXPECT_FALSE(strict.convert(-1025, &r));
    EXPECT_FALSE(strict.convert(3072, &r));
    EXPECT_FALSE(strict.convert(std::nan(""), &r));
    cal.out_of_range = HuOutOfRange::clamp;
    HuConverter const clamp(cal);
    ASSERT_TRUE(clamp.convert(-3024, &r));
    EXPECT_FLOAT_EQ(0.00121f, r.density_g_cm3);
    EXPECT_EQ("air", clamp.material_names()[r.material]);
    ASSERT_TRUE(clamp.convert(5000, &r));
    EXPECT_NEAR(2.8424, r.density_g_cm3, 1e-6);
}

TEST(HuCalibrationTest, UserTableAndSharedMaterials)
{
    HuCalibration cal;
    cal.density_curve = {{-1000, 0.001}, {0, 1.0}, {1000, 2.0}};
    cal.material_bins = {{-1000, "air"}, {-500, "water"}, {500, "air"}};
    HuConverter const c(cal);
    ASSERT_EQ(2u, c.material_names().size()); // "air" listed once
    EXPECT_EQ("air", material_of(c, 600));
    EXPECT_NEAR(0.5005, convert(c, -500).density_g_cm3, 1e-6);
}

TEST(HuCalibrationTest, InconsistentTablesAreRejected)
{
    HuCalibration cal = schneider2000_calibration();
    cal.density_curve[3].hu = cal.density_curve[2].hu; // not strictly increasing
    EXPECT_THROW(validate_calibration(cal), RuntimeError);

    cal = schneider2000_calibration();
    cal.material_bins.front().hu_lo = -900; // HU -1024..-900 would have no material
    EXPECT_THROW(validate_calibration(cal), RuntimeError);

    cal = schneider2000_calibration();
    cal.density_curve.resize(1);
    EXPECT_THROW(validate_calibration(cal), RuntimeError);

    cal = schneider2000_calibration();
    cal.density_curve[1].density_g_cm3 = -1;
    EXPECT_THROW(HuConverter{cal}, RuntimeError);
}
} // namespace mcdose
