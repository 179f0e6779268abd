//! HU -> (material, density) conversion with the Schneider 2000 default and user tables.
#include "phantoms/HuCalibration.hh"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "core/GridGeometry.hh"
#include "phantoms/PhantomBuilder.hh"

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

//! Schneider, Bortfeld & Schlegel 2000 (Phys. Med. Biol. 45:459), the mass
//! density as a function of the CT number H, written here from the equations
//! as quoted (eqs. 17, 21, 23, 19; see phantoms/HuCalibration.cc for the
//! sources and the caveat), independently of the control-point table. At
//! -98 HU eq. 17 (adipose tissue 3, 0.93) is used; eq. 21 gives 0.9305 there.
double schneider2000_density(double h)
{
    if (h <= -98)
        return 0.00121 + (h + 1000) * (0.93 - 0.00121) / (1000 - 98); // eq. 17, air - adipose 3
    if (h <= 14)
        return 1.018 + 0.893e-3 * h; // eq. 21
    if (h < 23)
        return 1.03;
    if (h <= 100)
        return 1.003 + 1.169e-3 * h; // eq. 23
    return 1.017 + 0.592e-3 * h;     // eq. 19
}

TEST(HuCalibrationTest, DefaultDensityCurveIsSchneider2000AtEveryIntegerHu)
{
    HuConverter const c(schneider2000_calibration());
    // Each equation is a straight line and the control points lie on it, so the
    // curve must reproduce it at every integer HU, up to the rounding of the
    // stored float density (at most 2.84 x 2^-24 = 1.7e-7 g/cm^3).
    int checked = 0;
    for (int h = -1000; h <= 3071; ++h, ++checked)
    {
        ASSERT_NEAR(schneider2000_density(h), convert(c, h).density_g_cm3, 4e-7) << "HU " << h;
    }
    EXPECT_EQ(4072, checked);
    // Below -1000: air, flat (our extension to the 12-bit minimum).
    EXPECT_FLOAT_EQ(0.00121f, convert(c, -1024).density_g_cm3);
    EXPECT_FLOAT_EQ(0.00121f, convert(c, -1012.5).density_g_cm3);
}

TEST(HuCalibrationTest, DefaultDensityCurvePassesThroughTheReferenceTissues)
{
    // The tissues whose (CT number, density) the lines connect, as quoted with the
    // equations. The equations print 3 decimals in the intercept and 3
    // significant digits in the slope (x 1e-3), so they can miss a tissue by
    // up to 0.0005 + 0.0005e-3 |H| g/cm^3.
    struct Tissue
    {
        char const* name;
        double hu;
        double density_g_cm3;
    };
    Tissue const tissues[] = {
        {"air", -1000, 0.00121},          {"adipose tissue 3", -98, 0.93},
        {"adrenal gland", 14, 1.03},      {"small intestine (wall)", 23, 1.03},
        {"connective tissue", 100, 1.12}, {"cortical bone", 1524, 1.92}};
    HuConverter const c(schneider2000_calibration());
    for (Tissue const& t : tissues)
    {
        double const tolerance = 0.0005 + 0.0005e-3 * std::fabs(t.hu) + 1e-7;
        EXPECT_NEAR(t.density_g_cm3, convert(c, t.hu).density_g_cm3, tolerance) << t.name;
    }
    // The steps between the segments: onto the constant 1.03 after 14 HU, and
    // from the soft-tissue line (connective tissue) down onto the bone line.
    EXPECT_FLOAT_EQ(1.03f, convert(c, 15).density_g_cm3);
    EXPECT_FLOAT_EQ(1.03f, convert(c, 22).density_g_cm3);
    EXPECT_FLOAT_EQ(float(1.003 + 1.169e-3 * 100), convert(c, 100).density_g_cm3);
    EXPECT_FLOAT_EQ(float(1.017 + 0.592e-3 * 101), convert(c, 101).density_g_cm3);
    // Beyond the paper's last tissue bin (1600 HU) the bone line continues to
    // the 12-bit maximum.
    EXPECT_FLOAT_EQ(float(1.017 + 0.592e-3 * 3071), convert(c, 3071).density_g_cm3);
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
    EXPECT_NEAR(1.017 + 0.592e-3 * 3071, r.density_g_cm3, 1e-6); // the top of the curve
}

TEST(HuCalibrationTest, CtPhantomOfManyPiecesCountsEveryVoxelOutside)
{
    // A grid converted in pieces on all cores (163,840 voxels: pieces of at least 65,536):
    // each voxel's material and density are the converter's, and the voxels outside the
    // calibration are counted over all pieces, the first of them named.
    GridGeometry g;
    g.dims = {{64, 64, 40}};
    g.spacing_cm = {{0.1, 0.1, 0.1}};
    size_type const n = g.num_voxels();
    std::vector<double> hu(n);
    for (size_type v = 0; v < n; ++v)
        hu[v] = -1000.0 + double(v % 4000);
    HuCalibration const cal = schneider2000_calibration();
    Phantom const p = build_ct_phantom(g, hu, cal);
    HuConverter const convert(cal);
    size_type wrong = 0;
    for (size_type v = 0; v < n; ++v)
    {
        HuConverter::Result r;
        ASSERT_TRUE(convert.convert(hu[v], &r));
        wrong += p.grid.material()[v] != r.material || p.grid.density_g_cm3()[v] != r.density_g_cm3;
    }
    EXPECT_EQ(0u, wrong);
    for (size_type v : {size_type(150000), size_type(70000), size_type(120000)})
        hu[v] = -5000;
    try
    {
        build_ct_phantom(g, hu, cal);
        ADD_FAILURE() << "CT numbers outside the calibration were accepted";
    }
    catch (RuntimeError const& e)
    {
        Int3 const first = g.ijk(70000);
        std::string const expected = "3 voxels have CT numbers outside the calibration";
        std::string const at = "the first -5000 at voxel (" + std::to_string(first[0]) + ", " +
                               std::to_string(first[1]) + ", " + std::to_string(first[2]) + ")";
        EXPECT_NE(std::string::npos, std::string(e.what()).find(expected)) << e.what();
        EXPECT_NE(std::string::npos, std::string(e.what()).find(at)) << e.what();
    }
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
