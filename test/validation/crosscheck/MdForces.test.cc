//! \file test/validation/crosscheck/MdForces.test.cc
//! CI-sized version of the MD force-accumulation study (after Narumi et al.
//! 2008): the qualitative results must hold on the CPU backend.
#include <algorithm>
#include <map>
#include <numeric>

#include <gtest/gtest.h>

#include "CrosscheckSystems.hh"

#include "validation/crosscheck/SeededUniform.hh"
#include "validation/crosscheck/md/MdStudy.hh"

namespace mcdose::crosscheck::test
{
namespace
{

std::map<AccumMethod, ForceMetrics> by_method(std::vector<MdRecord> const& records,
                                              ExclusionMode mode)
{
    std::map<AccumMethod, ForceMetrics> m;
    for (auto const& r : records)
    {
        if (r.exclusions == mode)
            m[r.method] = r.metrics;
    }
    return m;
}

bool same_bits(ForceResult const& a, ForceResult const& b)
{
    return a.fx == b.fx && a.fy == b.fy && a.fz == b.fz;
}
} // namespace

TEST(LJSystem, CloudHasNoOverlapsAndRandomTypes)
{
    auto const& s = ci_cloud();
    ASSERT_EQ(s.size(), 1024u);
    double min_r2 = 1e300;
    for (size_type i = 0; i < s.size(); ++i)
        for (size_type j = i + 1; j < s.size(); ++j)
        {
            double const dx = s.x[i] - s.x[j], dy = s.y[i] - s.y[j], dz = s.z[i] - s.z[j];
            min_r2 = std::min(min_r2, dx * dx + dy * dy + dz * dz);
        }
    EXPECT_GE(std::sqrt(min_r2), s.min_pair_distance);
    std::vector<int> seen(s.num_types, 0);
    for (auto t : s.type)
        seen.at(t) = 1;
    EXPECT_EQ(std::accumulate(seen.begin(), seen.end(), 0), 16);
    // Same seed, same system.
    LJCloudOptions o;
    o.num_particles = 1024;
    EXPECT_EQ(make_lj_cloud(o).x, s.x);
}

TEST(MdForces, FixedPointMethodsHaveZeroOffsetAndIgnoreOrder)
{
    auto const& sys = ci_cloud();
    AccumConfig const config =
        make_accum_config(measure_force_bound_host(sys, ExclusionMode::none));
    std::vector<std::uint32_t> reversed(sys.size()), shuffled(sys.size());
    std::iota(reversed.rbegin(), reversed.rend(), 0u);
    std::iota(shuffled.begin(), shuffled.end(), 0u);
    SeededUniform rng(7);
    for (size_type k = shuffled.size() - 1; k > 0; --k)
        std::swap(shuffled[k], shuffled[rng.index(k + 1)]);

    ForceResult const ref = compute_forces_host(sys, {AccumMethod::G, ExclusionMode::none, config});
    for (AccumMethod m : {AccumMethod::F, AccumMethod::H})
    {
        SCOPED_TRACE(to_cstring(m));
        ForceRequest const req{m, ExclusionMode::none, config};
        ForceResult const natural = compute_forces_host(sys, req);
        EXPECT_EQ(compare_forces(natural, ref).offset, 0.0);
        EXPECT_TRUE(same_bits(natural, compute_forces_host(sys, req, reversed)));
        EXPECT_TRUE(same_bits(natural, compute_forces_host(sys, req, shuffled, 1)));
    }
    // A plain float sum is not order independent (the reason for F and H).
    ForceRequest const a{AccumMethod::A, ExclusionMode::none, config};
    EXPECT_FALSE(same_bits(compute_forces_host(sys, a), compute_forces_host(sys, a, shuffled)));
}

void print(std::vector<MdRecord> const& records)
{
    for (auto const& r : records)
    {
        std::cout << r.system << ' ' << to_cstring(r.exclusions) << ' ' << to_cstring(r.method)
                  << ": force error " << r.metrics.avg_error << ", accumulation error "
                  << r.metrics.accum_error << ", offset " << r.metrics.offset
                  << ", max per-particle " << r.metrics.max_rel_error << '\n';
    }
}

TEST(MdForces, ErrorOrderingOnTheCloud)
{
    MdStudyOptions opts;
    opts.backend = Backend::cpu;
    auto const records = run_md_study(ci_cloud(), "cloud", {ExclusionMode::none}, opts);
    ASSERT_EQ(records.size(), 8u);
    print(records);
    auto m = by_method(records, ExclusionMode::none);
    EXPECT_EQ(m[AccumMethod::G].avg_error, 0.0);
    // B sums the float pair forces in double, i.e. practically exactly: its
    // error against G is the floor set by single-precision pair forces
    // (G's level for float forces).
    double const floor = m[AccumMethod::B].avg_error;
    EXPECT_GT(floor, 0.0);
    for (AccumMethod k : {AccumMethod::C, AccumMethod::E, AccumMethod::F, AccumMethod::H})
    {
        SCOPED_TRACE(to_cstring(k));
        EXPECT_LE(m[k].avg_error, 1.01 * floor);
        // Accumulation error bounds (tally/accum): C 2 n u^2 A, E gamma n u LARGE,
        // F and H n q / 2 -- all orders of magnitude below the float-force floor.
        EXPECT_LE(m[k].accum_error, 0.01 * floor);
        // ... and A's float sum at least 100 times worse.
        EXPECT_GE(m[AccumMethod::A].accum_error, 100 * m[k].accum_error);
    }
    EXPECT_GT(m[AccumMethod::A].avg_error, floor);
    EXPECT_EQ(m[AccumMethod::F].offset, 0.0);
    EXPECT_EQ(m[AccumMethod::H].offset, 0.0);
    EXPECT_GT(m[AccumMethod::A].offset, 0.0);
}

TEST(MdForces, ExclusionsOnTheFlyVersusSubtractedAfterwards)
{
    auto const& sys = ci_chains();
    MdStudyOptions opts;
    opts.backend = Backend::cpu;
    auto const records = run_md_study(
        sys, "chains", {ExclusionMode::on_the_fly, ExclusionMode::subtract_after}, opts);
    print(records);
    auto fly = by_method(records, ExclusionMode::on_the_fly);
    auto after = by_method(records, ExclusionMode::subtract_after);
    double const floor = fly[AccumMethod::B].avg_error;
    // Excluded pairs at 0.5 sigma contribute forces ~1e5 times the net force:
    // subtracting them afterwards cancels catastrophically in a float sum ...
    EXPECT_GE(after[AccumMethod::A].avg_error, 100 * fly[AccumMethod::A].avg_error);
    // ... but not in the compensated and fixed-point sums.
    for (AccumMethod k : {AccumMethod::C, AccumMethod::E, AccumMethod::F, AccumMethod::H})
    {
        SCOPED_TRACE(to_cstring(k));
        EXPECT_LE(after[k].avg_error, 1.01 * floor);
    }
    // F and H add -f_ij for the very bits of f_ij they added: with the same
    // quantum both modes give the same integers.
    AccumConfig const config =
        make_accum_config(measure_force_bound_host(sys, ExclusionMode::subtract_after));
    for (AccumMethod k : {AccumMethod::F, AccumMethod::H})
    {
        SCOPED_TRACE(to_cstring(k));
        EXPECT_TRUE(
            same_bits(compute_forces_host(sys, {k, ExclusionMode::on_the_fly, config}),
                      compute_forces_host(sys, {k, ExclusionMode::subtract_after, config})));
        EXPECT_EQ(after[k].offset, 0.0);
    }
}
} // namespace mcdose::crosscheck::test
