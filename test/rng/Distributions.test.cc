//! Distributions: exact range limits with a scripted engine, moments with a
//! fixed seed and 5-sigma tolerances from the sample's own standard error.
#include "rng/Distributions.hh"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "rng/RngKind.hh"

namespace mcdose::test
{
namespace
{
//! Engine returning a fixed script of words (cycled).
struct ScriptedEngine
{
    using result_type = std::uint32_t;
    std::vector<std::uint32_t> words;
    size_type next{0};
    std::uint32_t operator()() { return words[next++ % words.size()]; }
};

struct Moments
{
    double mean{0}, m2{0};
    size_type n{0};
    void add(double x)
    {
        ++n;
        double const d = x - mean;
        mean += d / n;
        m2 += d * (x - mean);
    }
    double variance() const { return m2 / (n - 1); }
    double std_error() const { return std::sqrt(this->variance() / n); }
};
} // namespace

TEST(DistributionsTest, CanonicalIsInHalfOpenUnitIntervalExcludingZero)
{
    ScriptedEngine zeros{{0u}}, ones{{0xffffffffu}};
    EXPECT_EQ(std::ldexp(1.0f, -24), generate_canonical<float>(zeros));
    EXPECT_EQ(1.0f, generate_canonical<float>(ones));
    EXPECT_EQ(std::ldexp(1.0, -53), generate_canonical<double>(zeros));
    EXPECT_EQ(1.0, generate_canonical<double>(ones));
    EXPECT_EQ(3u, ones.next); // float took one word, double two
    // log is finite at the smallest value.
    EXPECT_TRUE(std::isfinite(sample_exponential<float>(zeros, 1.0f)));
    EXPECT_TRUE(std::isfinite(sample_normal_pair<double>(zeros).first));
}

TEST(DistributionsTest, MomentsMatchWithinFiveSigma)
{
    PerThreadRngStore<PhiloxEngine> store({31415u, 0u, 0u}, 1, MemSpace::host);
    auto view = store.view();
    PhiloxEngine rng(view, 0);
    size_type const n = 200000;
    Moments u, e, g, w, dir_norm_err;
    double max_norm_err = 0;
    for (size_type i = 0; i < n; ++i)
    {
        u.add(generate_canonical<double>(rng));
        e.add(sample_exponential<double>(rng, 2.5)); // mean 2.5, variance 6.25
        auto const pair = sample_normal_pair<double>(rng);
        g.add(pair.first);
        g.add(pair.second);
        auto const d = sample_isotropic<float>(rng);
        w.add(d.w);
        max_norm_err =
            std::max(max_norm_err, std::abs(double(d.u * d.u + d.v * d.v + d.w * d.w) - 1.0));
    }
    EXPECT_NEAR(0.5, u.mean, 5 * u.std_error());
    EXPECT_NEAR(2.5, e.mean, 5 * e.std_error());
    EXPECT_NEAR(0.0, g.mean, 5 * g.std_error());
    // Var of the sample variance of N(0,1) is 2/(n-1).
    EXPECT_NEAR(1.0, g.variance(), 5 * std::sqrt(2.0 / (g.n - 1)));
    EXPECT_NEAR(0.0, w.mean, 5 * w.std_error());
    EXPECT_NEAR(1.0 / 3.0, w.variance(), 5 * std::sqrt(4.0 / 45.0 / w.n)); // Var(w^2) = 4/45
    EXPECT_LT(max_norm_err, 1e-6);
}

// The azimuth is 2 pi xi with xi in (0, 1]: the smallest xi gives a tiny
// positive angle, xi = 1/4 a quarter turn, xi = 1 a full turn (on the host,
// sin and cos of 2 pi xi; on the device the same angle through sincospi).
TEST(DistributionsTest, AlignDrawsLeavesEnginesWithoutBlocksAlone)
{
    // Only a block-buffered engine (Philox, tested there) skips words.
    ScriptedEngine e{{1u, 2u, 3u, 4u, 5u}};
    e();
    align_draws(e);
    EXPECT_EQ(2u, e());
    EXPECT_EQ(2u, e.next);
}

TEST(DistributionsTest, AzimuthSinCos)
{
    ScriptedEngine zeros{{0u}}, ones{{0xffffffffu}}, quarter{{0x3fffff00u}};
    auto const tiny = sample_azimuth_sincos<float>(zeros);
    EXPECT_GT(tiny.s, 0.0f);
    EXPECT_LT(tiny.s, 1e-6f);
    EXPECT_FLOAT_EQ(1.0f, tiny.c);
    auto const full = sample_azimuth_sincos<float>(ones);
    EXPECT_NEAR(0.0f, full.s, 1e-6f);
    EXPECT_FLOAT_EQ(1.0f, full.c);
    auto const q = sample_azimuth_sincos<float>(quarter); // xi = 2^22 / 2^24 exactly
    EXPECT_FLOAT_EQ(1.0f, q.s);
    EXPECT_NEAR(0.0f, q.c, 1e-6f);
    // Double: 53-bit xi = 2^51 / 2^53 from the words (2^30 - 1, 2^32 - 2^11).
    ScriptedEngine quarter53{{0x3fffffffu, 0xfffff800u}};
    auto const qd = sample_azimuth_sincos<double>(quarter53);
    EXPECT_DOUBLE_EQ(1.0, qd.s);
    EXPECT_NEAR(0.0, qd.c, 1e-15);
}
} // namespace mcdose::test
