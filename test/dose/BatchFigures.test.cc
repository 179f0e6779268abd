//! \file test/dose/BatchFigures.test.cc
//! The batch statistics of the structures' figures: the bootstrap over batches on a
//! structure whose voxels share each batch's fluctuation, and a common (calibration) sigma
//! carried in quadrature.
#include "dose/BatchFigures.hh"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/Constants.hh"
#include "phantoms/StructureMask.hh"

namespace mcdose::test
{
// Ten batches of a 4-voxel water structure whose voxels move together (fully correlated):
// D_mean's sigma is the standard error of the batches' mean dose, s / sqrt(B), which the
// independent-voxel model would put at half of it.
TEST(BatchFiguresTest, BootstrapOfCorrelatedVoxelsGivesTheBatchSpread)
{
    GridGeometry g;
    g.dims = {{4, 1, 1}};
    g.spacing_cm = {{1, 1, 1}};
    std::vector<float> const density(4, 1.0f);
    std::vector<MaterialIndex> const material(4, 0);
    DoseGridData data = dose_grid_view(g, {}, {}, make_span(density), make_span(material));
    StructureMask s;
    s.whole_grid_voxels = 4;
    StructureBatchFigures const figures(data, {&s}, max_bootstrap_voxels);
    ASSERT_TRUE(figures.any());
    EXPECT_EQ(0u, figures.first());
    EXPECT_EQ(4u, figures.count());

    double const per_gy = 1 / constants::gray_per_MeV_g; // MeV in 1 g for 1 Gy
    std::vector<std::vector<double>> digests;
    std::vector<double> means;
    for (int b = 0; b < 10; ++b)
    {
        double const level = 1.0 + 0.1 * ((b * 7) % 10 - 4.5) / 4.5; // the batch's dose [Gy]
        means.push_back(level);
        double const energy_MeV = level * per_gy;
        std::vector<std::uint64_t> words(4);
        for (auto& w : words)
            std::memcpy(&w, &energy_MeV, sizeof w); // HB words: doubles
        BatchEnergyView const view(words.data(), TallyMethod::hb, 0, 0, 4, 1000);
        digests.push_back(figures(view));
        ASSERT_EQ(5u, digests.back().size()); // histories, then 4 doses
        EXPECT_NEAR(level, digests.back()[1], 1e-12);
    }
    double mean = 0, ss = 0;
    for (double m : means)
        mean += m / 10;
    for (double m : means)
        ss += (m - mean) * (m - mean);
    double const standard_error = std::sqrt(ss / 9 / 10) / 1000; // per history
    std::vector<DvhFigures> dvhs(1);
    figures.set_sigmas(dvhs, digests, 0, 1.0);
    // 200 resamples: the bootstrap's sigma within about 10 % of the standard error.
    EXPECT_NEAR(standard_error, dvhs[0].d_mean.sigma, 0.15 * standard_error);
    EXPECT_NEAR(standard_error, dvhs[0].d50.sigma, 0.15 * standard_error);
}

TEST(BatchFiguresTest, CommonRelativeSigmaAddsInQuadrature)
{
    std::vector<DvhFigures> dvhs(1);
    dvhs[0].d_mean = {2.0, 0.03};
    dvhs[0].d50 = {2.0, std::nan("")};
    add_common_relative_sigma(dvhs, 0.02);
    EXPECT_NEAR(std::hypot(0.03, 0.04), dvhs[0].d_mean.sigma, 1e-15);
    EXPECT_TRUE(std::isnan(dvhs[0].d50.sigma)); // not estimated stays not estimated
}
} // namespace mcdose::test
