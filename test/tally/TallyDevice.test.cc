//! \file test/tally/TallyDevice.test.cc
//! Every atomic method on the device against an exact host reference:
//! divergent lanes, partial warps, several addresses per warp (WAG, KAS,
//! WIB peer groups), and the benchmark kernel under both launch shapes.
#include "TallyDevice.test.hh"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "AccumKernels.hh"

#include "TestMacros.hh"
#include "tally/DoseTally.hh"
#include "tally/EnergyMask.hh"
#include "tally/bench/TallyBenchmark.hh"

namespace mcdose::test
{
std::vector<double> pattern_reference(DepositPattern const& p)
{
    std::vector<long long> units(p.bins, 0);
    for (unsigned t = 0; t < p.blocks * p.threads_per_block; ++t)
    {
        if ((t % p.threads_per_block) % 32 >= p.active_lanes)
            continue;
        for (int j = 0; j < p.per_thread; ++j)
            if ((t + j) % 3 != 0)
                units[(t / 2 + 7u * j) % p.bins] += 1 + t % 13;
    }
    std::vector<double> result(p.bins);
    for (unsigned b = 0; b < p.bins; ++b)
        result[b] = double(units[b]) / 256;
    return result;
}

AccumResults accum_on_host(std::vector<float> const& terms)
{
    AccumResults r;
    Span<float const> const span{terms.data(), terms.size()};
    for (int i = 0; i < num_accumulators; ++i)
        r.values.push_back(run_accumulator(i, span));
    for (size_type i = 0; i + 1 < terms.size(); ++i)
    {
        auto const p = two_sum_of_product(terms[i], terms[i + 1], terms[i + 1] * 3.0f);
        r.two_sum_products.push_back(p.sum);
        r.two_sum_products.push_back(p.error);
    }
    return r;
}

namespace
{
//! The accum primitives perform the same IEEE operations on both sides, so
//! host and device must agree bit for bit; a device FMA contraction or a
//! reassociation would show here.
TEST(TallyDeviceTest, AccumulatorsBitwiseEqualOnHostAndDevice)
{
    MCDOSE_SKIP_IF_NO_GPU();
    std::mt19937_64 rng(4242);
    std::exponential_distribution<float> dist(10.0f);
    std::vector<float> terms(100000);
    for (auto& x : terms)
        x = std::min(dist(rng), 3.5f);
    auto const host = accum_on_host(terms);
    auto const device = accum_on_device(terms);
    ASSERT_EQ(host.values.size(), device.values.size());
    for (size_t i = 0; i < host.values.size(); ++i)
        EXPECT_EQ(host.values[i], device.values[i]) << "accumulator " << i;
    ASSERT_EQ(host.two_sum_products.size(), device.two_sum_products.size());
    for (size_t i = 0; i < host.two_sum_products.size(); ++i)
        ASSERT_EQ(host.two_sum_products[i], device.two_sum_products[i]) << "element " << i;
}

//! Values are multiples of 2^-8 with per-bin sums < 2^16: every method,
//! float FA included, must be exact; a lost or doubled peer shows at once.
TEST(TallyDeviceTest, EveryMethodExactOnDivergentPatterns)
{
    MCDOSE_SKIP_IF_NO_GPU();
    for (unsigned bins : {1u, 3u, 8u, 32u, 1000u})
    {
        for (unsigned active : {32u, 19u, 1u})
        {
            DepositPattern p;
            p.bins = bins;
            p.active_lanes = active;
            auto const expected = pattern_reference(p);
            for (TallyMethod m : all_tally_methods())
            {
                auto const got = pattern_on_device(m, p);
                ASSERT_EQ(expected.size(), got.size());
                for (unsigned b = 0; b < bins; ++b)
                    EXPECT_EQ(expected[b], got[b]) << to_cstring(m) << ": bin " << b << " of "
                                                   << bins << ", " << active << " active lanes";
            }
        }
    }
}

//! The CAS-loop methods through the transport kernel's block cache: direct
//! mode (bins <= slots), and hashed mode with more bins than slots (the
//! rest go to the grid); exact like the uncached methods.
TEST(TallyDeviceTest, BlockCacheExactOnDivergentPatterns)
{
    MCDOSE_SKIP_IF_NO_GPU();
    for (auto [bins, slots] : {std::pair<unsigned, unsigned>{8, 2048}, {1000, 2048}, {1000, 64}})
    {
        for (unsigned active : {32u, 19u})
        {
            DepositPattern p;
            p.bins = bins;
            p.active_lanes = active;
            p.cache_slots = slots;
            auto const expected = pattern_reference(p);
            for (TallyMethod m : {TallyMethod::cas, TallyMethod::wag, TallyMethod::kas})
            {
                auto const got = pattern_on_device(m, p);
                ASSERT_EQ(expected.size(), got.size());
                for (unsigned b = 0; b < bins; ++b)
                    EXPECT_EQ(expected[b], got[b])
                        << to_cstring(m) << ": bin " << b << " of " << bins << ", " << slots
                        << " slots, " << active << " active lanes";
            }
        }
    }
}

TEST(TallyDeviceTest, BenchmarkKernelMatchesExactReference)
{
    MCDOSE_SKIP_IF_NO_GPU();
    for (bool divergent : {false, true})
    {
        for (size_type bins : {size_type(1), size_type(8), size_type(1000)})
        {
            BenchProblem problem;
            problem.particles = 100000;
            problem.bins = bins;
            problem.divergent = divergent;
            auto const ref = bench_reference_bins_device(problem, {}, archer_launch());
            for (TallyMethod m : all_tally_methods())
            {
                std::vector<std::uint64_t> fx_words;
                for (LaunchShape shape : {archer_launch(), full_occupancy_launch()})
                {
                    BenchRun const run = run_bench_device(m, problem, {}, shape);
                    for (size_type b = 0; b < bins; ++b)
                    {
                        double const exact = double(ref[b]) * 0x1p-22;
                        double const n = double(problem.particles) * 10;
                        double const err = std::abs(run.energy_MeV[b] - exact);
                        if (m == TallyMethod::fa)
                            EXPECT_LE(err, n * 0x1p-24 / (1 - n * 0x1p-24) * exact);
                        else if (m == TallyMethod::kas)
                            EXPECT_LE(err, (2 * 0x1p-24 + 4 * n * 0x1p-48) * exact);
                        else if (m == TallyMethod::fx)
                            EXPECT_EQ(exact, run.energy_MeV[b]);
                        else
                            EXPECT_LE(err, n * 0x1p-53 * exact) << to_cstring(m);
                    }
                    if (m == TallyMethod::fx)
                    {
                        if (fx_words.empty())
                            fx_words = run.words;
                        else
                            EXPECT_EQ(fx_words, run.words)
                                << "FX differs between launch configurations";
                    }
                }
            }
            // Total reference path used by the benchmark agrees with the per-bin one.
            std::uint64_t total = 0;
            for (auto u : ref)
                total += u;
            EXPECT_EQ(total, bench_reference_total_device(problem, {}, full_occupancy_launch()));
        }
    }
}
std::uint64_t bits_of(double x)
{
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

//! Batch words of method m for `voxels` voxels: FX int64 units, or doubles
//! (HB's storage) with a wide spread of magnitudes.
std::vector<std::uint64_t> random_batch_words(TallyMethod m, size_type voxels, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> words(voxels);
    for (auto& w : words)
    {
        if (m == TallyMethod::fx)
        {
            w = rng() >> 22;
            continue;
        }
        double const e = std::ldexp(double(rng() >> 11), -int(rng() % 80));
        std::memcpy(&w, &e, sizeof e);
    }
    return words;
}

//! `device`'s result written into grids of its own equals `host` bit for bit, with the
//! mask of its voxels with energy.
void expect_grids_equal(DoseResult const& host, DoseTally const& device, std::string const& what)
{
    size_type const voxels = host.energy_MeV.size();
    DoseGrids into(voxels);
    DoseResult const r = device.result(&into);
    EXPECT_TRUE(r.energy_MeV.empty()) << what;
    EXPECT_EQ(host.batches, r.batches) << what;
    size_type energy_differs = 0, sigma_differs = 0;
    for (size_type v = 0; v < voxels; ++v)
    {
        energy_differs += bits_of(host.energy_MeV[v]) != bits_of(into.energy_MeV[v]);
        sigma_differs += bits_of(host.energy_sigma_MeV[v]) != bits_of(into.energy_sigma_MeV[v]);
    }
    EXPECT_EQ(0u, energy_differs) << what;
    EXPECT_EQ(0u, sigma_differs) << what;
    EXPECT_EQ(energy_mask(make_span(host.energy_MeV)), into.has_energy) << what;
}

/*!
 * The device fold (tally/DoseFold.cu) against the host threads' fold of the
 * same batches: totals, sums of squares, energies and sigmas bitwise equal
 * (the same IEEE operations, none contracted), the batch grid cleared, and
 * the slab sums bitwise equal for FX (integer sums) and within rounding for
 * HB (the device adds doubles in atomic order). A checkpoint's totals
 * restored on the device continue the same way.
 */
TEST(TallyDeviceTest, DeviceFoldEqualsHostFold)
{
    MCDOSE_SKIP_IF_NO_GPU();
    size_type const dims[3] = {37, 64, 45};
    size_type const voxels = dims[0] * dims[1] * dims[2];
    for (TallyMethod m : {TallyMethod::fx, TallyMethod::hb})
    {
        for (int axis : {0, 2})
        {
            DoseFoldOptions fold;
            fold.host_threads = 3;
            fold.slabs.axis = axis;
            std::copy(dims, dims + 3, fold.slabs.dims);
            DoseTally host({m, voxels, 1e13, Backend::cpu}, fold);
            DoseTallyInput const input{m, voxels, 1e13, Backend::gpu};
            DoseTally device(input, fold);
            {
                // Before any batch is folded: no energy and no uncertainty.
                DoseResult const none = device.result();
                EXPECT_EQ(std::vector<double>(voxels, 0.0), none.energy_MeV);
                EXPECT_TRUE(std::isnan(none.energy_sigma_MeV.front()));
                DoseGrids into(voxels);
                device.result(&into);
                EXPECT_EQ(0.0, into.energy_MeV[voxels - 1]);
                EXPECT_TRUE(std::isnan(into.energy_sigma_MeV[0]));
                EXPECT_EQ(std::vector<std::uint64_t>(mask_words(voxels), 0), into.has_energy);
            }
            for (int b = 0; b < 5; ++b)
            {
                auto const words = random_batch_words(m, voxels, 10 * b + axis);
                host.set_batch_words(words);
                device.set_batch_words(words);
                host.end_batch(100);
                device.end_batch(100);
                auto const& hs = host.last_batch_slabs();
                auto const& ds = device.last_batch_slabs();
                ASSERT_EQ(hs.size(), ds.size());
                for (size_type k = 0; k < hs.size(); ++k)
                {
                    if (m == TallyMethod::fx)
                        EXPECT_EQ(hs[k], ds[k]) << "slab " << k;
                    else
                        EXPECT_NEAR(hs[k], ds[k], 1e-12 * std::abs(hs[k])) << "slab " << k;
                }
                if (b == 2)
                {
                    // Resume the device tally from its own checkpoint totals.
                    DoseTally resumed(input, fold);
                    resumed.restore(device.totals());
                    device = std::move(resumed);
                }
            }
            auto const cleared = device.batch_words();
            EXPECT_EQ(std::vector<std::uint64_t>(cleared.size(), 0), cleared);
            DoseTallyTotals const ht = host.totals(), dt = device.totals();
            EXPECT_EQ(ht.total_hi, dt.total_hi) << to_cstring(m);
            EXPECT_EQ(ht.total_lo, dt.total_lo) << to_cstring(m);
            EXPECT_EQ(ht.sum_sq, dt.sum_sq) << to_cstring(m);
            DoseResult const hr = host.result(), dr = device.result();
            EXPECT_EQ(hr.energy_MeV, dr.energy_MeV) << to_cstring(m);
            EXPECT_EQ(hr.energy_sigma_MeV, dr.energy_sigma_MeV) << to_cstring(m);
            EXPECT_EQ(5u, dr.batches);
            expect_grids_equal(hr, device, to_cstring(m));
        }
    }
}

/*!
 * A GPU result written into the caller's grids crosses as its voxels with energy (their
 * mask, then their values a chunk at a time): the same grids, bit for bit, as the host
 * fold's, with a mostly empty grid, a grid with energy in more voxels than one chunk
 * holds, a grid whose size is not a multiple of 64, and one batch (no uncertainty: the
 * grids cross whole).
 */
TEST(TallyDeviceTest, ResultVoxelsEqualHostGrids)
{
    MCDOSE_SKIP_IF_NO_GPU();
    size_type const voxels = 5000003;
    for (TallyMethod m : {TallyMethod::fx, TallyMethod::hb})
    {
        for (double dosed : {0.01, 0.9})
        {
            for (int batches : {1, 3})
            {
                DoseTally host({m, voxels, 1e13, Backend::cpu});
                DoseTally device({m, voxels, 1e13, Backend::gpu});
                std::mt19937_64 pick(17);
                for (int b = 0; b < batches; ++b)
                {
                    auto words = random_batch_words(m, voxels, 31 * b + 1);
                    for (auto& w : words)
                    {
                        if (double(pick() >> 11) * 0x1p-53 >= dosed)
                            w = 0;
                    }
                    host.set_batch_words(words);
                    device.set_batch_words(words);
                    host.end_batch(100);
                    device.end_batch(100);
                }
                std::string const what = std::string(to_cstring(m)) + ", dosed " +
                                         std::to_string(dosed) + ", batches " +
                                         std::to_string(batches);
                expect_grids_equal(host.result(), device, what);
            }
        }
    }
}
} // namespace
} // namespace mcdose::test
