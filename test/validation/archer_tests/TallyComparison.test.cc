//! compare_tally_methods on a small photon study (CPU): the records, the
//! reference, and the deviations whose size follows from the methods' bounds.
#include "validation/archer_tests/TallyComparison.hh"

#include <cmath>

#include <gtest/gtest.h>

#include "PhotonStudy.hh"
#include "TestMacros.hh"
#include "core/Assert.hh"

namespace mcdose::test
{
TEST(CompareGridsTest, DeviationsOverTheVoxelsAboveTheFraction)
{
    // Reference max 10: with fraction 0.05, voxels above 0.5 are compared (not the 0.1 one).
    std::vector<double> const ref{10, 2, 0.1, 0};
    std::vector<double> const test{11, 1.8, 0.3, 0};
    GridDeviation const d = compare_grids(test, ref, 0.05);
    EXPECT_EQ(2u, d.voxels);
    EXPECT_NEAR((13.1 - 12.1) / 12.1, d.rel_total, 1e-15);
    EXPECT_NEAR(0.1, d.max_rel_voxel, 1e-15);
    EXPECT_NEAR(0.1, d.rms_rel_voxel, 1e-15); // +0.1 and -0.1

    GridDeviation const self = compare_grids(ref, ref, 0.01);
    EXPECT_EQ(0.0, self.rel_total);
    EXPECT_EQ(0.0, self.max_rel_voxel);
    EXPECT_EQ(0.0, self.rms_rel_voxel);

    std::vector<double> const empty(4, 0.0);
    EXPECT_THROW(compare_grids(test, empty, 0.01), RuntimeError);
}

TEST(TallyComparisonTest, EveryMethodAndPrecisionAgainstDoubleHb)
{
    TallyComparisonInput in;
    in.study = parse_study(photon_study_json(4000), "photon.json");
    in.label = "photon";
    in.methods = {TallyMethod::fa, TallyMethod::kas, TallyMethod::fx, TallyMethod::fa};
    in.precisions = {Precision::double_, Precision::single_};
    in.histories = {4000};
    in.backend = Backend::cpu;
    in.cpu_threads = 2;
    std::size_t seen = 0;
    auto const records = compare_tally_methods(in, [&](TallyRunRecord const&) { ++seen; });

    // Reference (double HB), double fa/kas/fx, float hb/fa/kas/fx; the repeated fa runs once.
    ASSERT_EQ(8u, records.size());
    EXPECT_EQ(records.size(), seen);
    auto const& ref = records.front();
    EXPECT_TRUE(ref.reference);
    EXPECT_EQ("hb", ref.method);
    EXPECT_EQ("double", ref.precision);
    EXPECT_EQ(0.0, ref.rel_dev_total);
    EXPECT_EQ(0.0, ref.max_rel_dev_voxel);
    EXPECT_EQ(0.0, ref.rms_rel_dev_voxel);
    EXPECT_GT(ref.voxels_compared, 0u);

    double const u = std::ldexp(1.0, -24); // float unit roundoff
    for (auto const& r : records)
    {
        SCOPED_TRACE(r.method + "/" + r.precision);
        EXPECT_EQ("photon", r.test);
        EXPECT_EQ("cpu", r.backend);
        EXPECT_EQ(4000u, r.histories);
        EXPECT_EQ(1, r.batches);
        EXPECT_GT(r.time_s, 0);
        EXPECT_GT(r.histories_per_s, 0);
        EXPECT_GT(r.total_MeV, 0);
        EXPECT_TRUE(std::isfinite(r.rel_dev_total));
        EXPECT_TRUE(std::isfinite(r.max_rel_dev_voxel));
        EXPECT_EQ(r.reference, &r == &ref);
        if (r.precision == "double")
        {
            // Same transport: the tally-only deviation is the deviation from the reference.
            EXPECT_EQ(r.rel_dev_total, r.tally_rel_dev_total);
        }
        if (r.method == "hb")
        {
            EXPECT_EQ(0.0, r.tally_rel_dev_total);
        }
        if (r.method == "fx")
        {
            // FX rounds each deposit to a quantum ~2^-62 of the run's maximum total energy.
            EXPECT_LT(std::fabs(r.tally_rel_dev_total), 1e-9);
            EXPECT_LT(r.tally_max_rel_dev_voxel, 1e-9);
        }
        if (r.method == "kas")
        {
            // Kahan in float: |error| <= (2u + 2 n u^2) sum|x| per voxel; n u^2 is
            // negligible here (n < 4000 histories x a few deposits).
            EXPECT_LT(r.tally_max_rel_dev_voxel, 2.5 * u);
        }
    }
}

TEST(TallyComparisonTest, InputErrorsNameTheOption)
{
    TallyComparisonInput in;
    in.study = parse_study(photon_study_json(100), "photon.json");
    in.precisions = {Precision::double_};
    in.histories = {100};
    EXPECT_THROW(compare_tally_methods(in), RuntimeError); // no methods
    in.methods = {TallyMethod::fa};
    in.batches = 0;
    try
    {
        compare_tally_methods(in);
        ADD_FAILURE() << "batches 0 accepted";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("'--batches'"), std::string::npos) << e.what();
    }
}
} // namespace mcdose::test
