//! \file test/tally/DoseTally.test.cc
//! Dose grid: batches by history ranges, folding, batch-method uncertainty.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/HostMemory.hh"
#include "tally/DoseTally.hh"
#include "tally/EnergyMask.hh"
#include "tally/HistoryScratch.hh"
#include "tally/accum/DoubleWord.hh"

namespace mcdose::test
{
namespace
{
TEST(DoseTallyTest, BatchRangesPartitionTheHistories)
{
    for (std::uint64_t histories : {1ull, 7ull, 1000ull, 1000003ull})
    {
        for (std::uint64_t batches : {1ull, 3ull, 10ull})
        {
            if (batches > histories)
                continue;
            std::uint64_t next = 0, smallest = histories, largest = 0;
            for (std::uint64_t b = 0; b < batches; ++b)
            {
                auto const r = batch_history_range(histories, batches, b);
                EXPECT_EQ(next, r.begin);
                next = r.end;
                smallest = std::min(smallest, r.end - r.begin);
                largest = std::max(largest, r.end - r.begin);
            }
            EXPECT_EQ(histories, next);
            EXPECT_LE(largest, smallest + 1);
        }
    }
    EXPECT_THROW(batch_history_range(10, 3, 3), RuntimeError);
}

//! The slot of a history is its batch's index within the launch, for any
//! split (histories, batches, granule) and any first batch of the launch.
TEST(DoseTallyTest, SlotMapFollowsTheBatchRanges)
{
    for (std::uint64_t granule : {1ull, 3ull})
    {
        for (std::uint64_t granules : {7ull, 100ull, 1009ull})
        {
            for (std::uint64_t batches : {1ull, 4ull, 7ull})
            {
                BatchSlotMap map;
                map.granule = granule;
                map.base = granules / batches;
                map.extra = granules % batches;
                std::uint64_t const firsts[] = {0, batches / 2};
                for (std::uint64_t first : firsts)
                {
                    map.first_batch = first;
                    for (std::uint64_t b = first; b < batches; ++b)
                    {
                        auto const r = batch_history_range(granules, batches, b);
                        for (std::uint64_t h = r.begin * granule; h < r.end * granule; ++h)
                            ASSERT_EQ(b - first, map.slot_of(h))
                                << "history " << h << ", granule " << granule << ", " << granules
                                << " granules in " << batches << " batches";
                    }
                }
            }
        }
    }
    EXPECT_EQ(0u, BatchSlotMap{}.slot_of(123456789)); // one batch per launch
}

TEST(DoseTallyTest, BadInputIsRefusedWithTheField)
{
    EXPECT_THROW(DoseTally({TallyMethod::fx, 0, 1.0, Backend::cpu}), RuntimeError);
    try
    {
        DoseTally({TallyMethod::fx, 10, 0.0, Backend::cpu});
        FAIL();
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string::npos, std::string(e.what()).find("max_total_energy_MeV"));
    }
}

//! Per history: with probability p = 0.3 deposit Exp(mean 0.5 MeV) into
//! voxel 0, and always 1 MeV into voxel 1 (zero variance). Exact moments of
//! the voxel-0 total over N histories: mean N p mu, variance N (2 p mu^2 -
//! (p mu)^2). The batch estimate of sigma has relative standard deviation
//! about 1/sqrt(2(B-1)); the tolerances below are 4 of those sigmas.
TEST(DoseTallyTest, BatchUncertaintyMatchesTheKnownVariance)
{
    std::uint64_t const histories = 200000;
    std::uint64_t const batches = 50;
    double const p = 0.3, mu = 0.5;
    DoseTally tally({TallyMethod::fx, 2, histories * 10.0, Backend::cpu});
    auto view = tally.view<FxPolicy>();
    for (std::uint64_t b = 0; b < batches; ++b)
    {
        auto const range = batch_history_range(histories, batches, b);
        for (std::uint64_t h = range.begin; h < range.end; ++h)
        {
            std::mt19937_64 rng(h); // per-history stream: reproducible batches
            std::uniform_real_distribution<double> uni(0, 1);
            if (uni(rng) < p)
                view.deposit(0, -mu * std::log1p(-uni(rng)));
            view.deposit(1, 1.0);
        }
        tally.end_batch(range.end - range.begin);
    }
    DoseResult const r = tally.result();
    EXPECT_EQ(batches, r.batches);
    EXPECT_EQ(histories, r.histories);

    double const true_mean = histories * p * mu;
    double const true_sigma = std::sqrt(histories * (2 * p * mu * mu - p * p * mu * mu));
    EXPECT_NEAR(true_mean, r.energy_MeV[0], 4 * true_sigma);
    double const sigma_rel_sd = 1 / std::sqrt(2.0 * (batches - 1));
    EXPECT_NEAR(1.0, r.energy_sigma_MeV[0] / true_sigma, 4 * sigma_rel_sd);

    // Voxel 1: exactly 1 MeV per history, no spread (batch sizes are equal).
    EXPECT_EQ(double(histories), r.energy_MeV[1]);
    EXPECT_NEAR(0.0, r.energy_sigma_MeV[1], 1e-6);
}

// Batches of unequal size (a phase space's particles used `recycle` times stay in one batch):
// each is weighed by its history count. A voxel with exactly 1 MeV per history has no spread
// (the unweighted batch formula would give the spread of the batch sizes), the uncertainty
// of a random voxel matches the known variance, and the estimate is the weighted formula.
TEST(DoseTallyTest, UnequalBatchesAreWeighedByTheirHistories)
{
    std::uint64_t const batches = 40;
    double const p = 0.3, mu = 0.5;
    DoseTally tally({TallyMethod::fx, 2, 1e7, Backend::cpu});
    auto view = tally.view<FxPolicy>();
    std::uint64_t h = 0;
    std::vector<double> sums, sizes;
    for (std::uint64_t b = 0; b < batches; ++b)
    {
        std::uint64_t const n = b % 2 ? 5000 : 3000;
        double e0 = 0;
        for (std::uint64_t end = h + n; h < end; ++h)
        {
            std::mt19937_64 rng(h);
            std::uniform_real_distribution<double> uni(0, 1);
            if (uni(rng) < p)
            {
                double const e = -mu * std::log1p(-uni(rng));
                view.deposit(0, e);
                e0 += e;
            }
            view.deposit(1, 1.0);
        }
        tally.end_batch(n);
        sums.push_back(e0);
        sizes.push_back(double(n));
    }
    DoseResult const r = tally.result();
    EXPECT_EQ(h, r.histories);
    EXPECT_EQ(double(h), r.energy_MeV[1]);
    EXPECT_NEAR(0.0, r.energy_sigma_MeV[1], 1e-6 * double(h));

    double const true_sigma = std::sqrt(double(h) * (2 * p * mu * mu - p * p * mu * mu));
    EXPECT_NEAR(1.0, r.energy_sigma_MeV[0] / true_sigma, 4 / std::sqrt(2.0 * (batches - 1)));
    // s^2 = N / (B - 1) sum_b (E_b - n_b E / N)^2 / n_b (the FX words round each deposit).
    double const total = r.energy_MeV[0], n_all = double(h);
    double s2 = 0;
    for (std::size_t b = 0; b < sums.size(); ++b)
        s2 += std::pow(sums[b] - sizes[b] * total / n_all, 2) / sizes[b];
    s2 *= n_all / double(batches - 1);
    EXPECT_NEAR(std::sqrt(s2), r.energy_sigma_MeV[0], 1e-6 * std::sqrt(s2));
}

TEST(DoseTallyTest, OneBatchHasNoUncertainty)
{
    DoseTally tally({TallyMethod::hb, 1, 10.0, Backend::cpu});
    tally.view<HbPolicy>().deposit(0, 2.5);
    tally.end_batch(1);
    auto const r = tally.result();
    EXPECT_EQ(2.5, r.energy_MeV[0]);
    EXPECT_TRUE(std::isnan(r.energy_sigma_MeV[0]));
    // end_batch cleared the grid
    EXPECT_EQ(0.0, tally.batch_energy_MeV()[0]);
}

TEST(DoseTallyTest, ResultIntoCallersGridsWithTheirMask)
{
    DoseTally tally({TallyMethod::hb, 70, 10.0, Backend::cpu});
    for (double e : {1.0, 2.0, 4.0})
    {
        tally.view<HbPolicy>().deposit(1, e);
        tally.view<HbPolicy>().deposit(2, 0.5);
        tally.view<HbPolicy>().deposit(69, 0.25); // in the mask's second word
        tally.end_batch(1);
    }
    DoseResult const made_here = tally.result();
    DoseGrids into(70);
    DoseResult const written = tally.result(&into);
    EXPECT_TRUE(written.energy_MeV.empty());
    EXPECT_TRUE(written.energy_sigma_MeV.empty());
    EXPECT_EQ(made_here.batches, written.batches);
    EXPECT_EQ(made_here.histories, written.histories);
    for (size_type v = 0; v < 70; ++v)
    {
        EXPECT_EQ(made_here.energy_MeV[v], into.energy_MeV[v]) << v;
        EXPECT_EQ(made_here.energy_sigma_MeV[v], into.energy_sigma_MeV[v]) << v;
    }
    EXPECT_EQ(7.0, into.energy_MeV[1]);
    EXPECT_EQ((std::vector<std::uint64_t>{0b110, 0b100000}), into.has_energy);
    DoseGrids wrong(71);
    EXPECT_THROW(tally.result(&wrong), RuntimeError);
}

TEST(EnergyMaskTest, AnyBitInARange)
{
    // Voxels 3, 64 and 190 of a mask of three words.
    std::vector<std::uint64_t> mask(3, 0);
    for (size_type v : {3, 64, 190})
        mask[v / 64] |= std::uint64_t(1) << (v % 64);
    std::uint64_t const* m = mask.data();
    EXPECT_TRUE(any_bit_in(m, 0, 192));
    EXPECT_TRUE(any_bit_in(m, 3, 4));
    EXPECT_FALSE(any_bit_in(m, 4, 64));   // the rest of word 0
    EXPECT_TRUE(any_bit_in(m, 4, 65));    // into word 1
    EXPECT_FALSE(any_bit_in(m, 65, 190)); // across the end of word 1 and most of word 2
    EXPECT_TRUE(any_bit_in(m, 65, 191));
    EXPECT_FALSE(any_bit_in(m, 191, 192));
    EXPECT_FALSE(any_bit_in(m, 0, 3));
    EXPECT_FALSE(any_bit_in(m, 10, 10)); // empty
}

// Batches of unequal size with nothing deposited: no uncertainty, and a checkpoint's totals
// keep the reference size, so a restored tally weighs the next batches alike.
TEST(DoseTallyTest, UnequalBatchesRestoreTheirReference)
{
    DoseTally tally({TallyMethod::cas, 1, 10.0, Backend::cpu});
    tally.end_batch(10);
    tally.end_batch(20);
    DoseResult const r = tally.result();
    EXPECT_EQ(0.0, r.energy_sigma_MeV[0]);
    DoseTallyTotals const t = tally.totals();
    EXPECT_EQ(10u, t.reference_batch_histories);
    DoseTally restored({TallyMethod::cas, 1, 10.0, Backend::cpu});
    restored.restore(t);
    EXPECT_EQ(10u, restored.totals().reference_batch_histories);
}

//! FX with batches: thread count changes the order of the adds, not one bit
//! of the folded result.
TEST(DoseTallyTest, FxBatchedResultIsBitwiseIndependentOfThreads)
{
    auto run = [](unsigned threads)
    {
        std::uint64_t const histories = 60000, batches = 6;
        DoseTally tally({TallyMethod::fx, 16, histories * 4.0, Backend::cpu});
        auto const view = tally.view<FxPolicy>();
        for (std::uint64_t b = 0; b < batches; ++b)
        {
            auto const range = batch_history_range(histories, batches, b);
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < threads; ++t)
            {
                pool.emplace_back(
                    [=]
                    {
                        for (std::uint64_t h = range.begin + t; h < range.end; h += threads)
                        {
                            std::mt19937_64 rng(h);
                            std::exponential_distribution<double> e(1.0 / 0.3);
                            for (int c = 0; c < 4; ++c)
                                view.deposit(rng() % 16, std::min(e(rng), 1.0));
                        }
                    });
            }
            for (auto& th : pool)
                th.join();
            tally.end_batch(range.end - range.begin);
        }
        return tally.result();
    };
    DoseResult const one = run(1);
    for (unsigned threads : {3u, 8u})
    {
        DoseResult const many = run(threads);
        for (size_type i = 0; i < one.energy_MeV.size(); ++i)
        {
            EXPECT_EQ(one.energy_MeV[i], many.energy_MeV[i]) << threads << " threads, voxel " << i;
            EXPECT_EQ(one.energy_sigma_MeV[i], many.energy_sigma_MeV[i]);
        }
    }
}
//! Random FX batch words: int64 units up to 2^40 (a few of them negative, as
//! a positron's rest-mass booking can make a batch's deposit).
std::vector<std::uint64_t> random_fx_words(size_type voxels, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> words(voxels);
    for (auto& w : words)
    {
        auto const units = static_cast<std::int64_t>(rng() >> 24);
        w = static_cast<std::uint64_t>(rng() % 50 == 0 ? -units : units);
    }
    return words;
}

//! The fold on all host threads: every total, sum of squares, sigma and slab
//! sum is bitwise the serial double-double reference, for any thread count.
TEST(DoseTallyTest, ThreadedHostFoldIsBitwiseTheSerialFold)
{
    size_type const dims[3] = {64, 50, 70}; // 224000 voxels: several 65536-voxel pieces
    size_type const voxels = dims[0] * dims[1] * dims[2];
    int const batches = 3;
    std::vector<std::vector<std::uint64_t>> words;
    for (int b = 0; b < batches; ++b)
        words.push_back(random_fx_words(voxels, 100 + b));

    // Serial reference: decode, double-double total, sum of squares, slabs along k.
    double const quantum =
        DoseTally({TallyMethod::fx, voxels, 1e12, Backend::cpu}).fx_quantum_MeV();
    std::vector<accum::DoubleWordSum<double>> total(voxels);
    std::vector<double> sum_sq(voxels, 0.0);
    std::vector<std::int64_t> last_slab_units(dims[2], 0);
    for (int b = 0; b < batches; ++b)
    {
        for (size_type v = 0; v < voxels; ++v)
        {
            double const e = double(static_cast<std::int64_t>(words[b][v])) * quantum;
            total[v].add(e);
            sum_sq[v] += e * e;
            if (b == batches - 1)
                last_slab_units[v / (dims[0] * dims[1])] += static_cast<std::int64_t>(words[b][v]);
        }
    }

    for (int threads : {1, 2, 5})
    {
        DoseFoldOptions fold;
        fold.host_threads = threads;
        fold.slabs.axis = 2;
        std::copy(dims, dims + 3, fold.slabs.dims);
        DoseTally tally({TallyMethod::fx, voxels, 1e12, Backend::cpu}, fold);
        for (int b = 0; b < batches; ++b)
        {
            tally.set_batch_words(words[b]);
            tally.end_batch(1000);
        }
        EXPECT_EQ(0u, tally.batch_words()[voxels / 2]) << "the fold clears the batch grid";
        DoseTallyTotals const t = tally.totals();
        DoseResult const r = tally.result();
        int mismatches = 0;
        for (size_type v = 0; v < voxels; ++v)
        {
            double const e = total[v].hi() + total[v].lo();
            double const sigma = std::sqrt(3.0 / 2.0 * std::max(0.0, sum_sq[v] - e * e / 3.0));
            mismatches += t.total_hi[v] != total[v].hi() || t.total_lo[v] != total[v].lo() ||
                          t.sum_sq[v] != sum_sq[v] || r.energy_MeV[v] != e ||
                          r.energy_sigma_MeV[v] != sigma;
        }
        EXPECT_EQ(0, mismatches) << threads << " threads";
        ASSERT_EQ(dims[2], tally.last_batch_slabs().size());
        for (size_type k = 0; k < dims[2]; ++k)
            EXPECT_EQ(double(last_slab_units[k]) * quantum, tally.last_batch_slabs()[k])
                << threads << " threads, slab " << k;
    }
}

//! A batch given as decoded doubles (the multi-group path for the floating
//! methods) folds to the same totals as the same batch given as FX words.
TEST(DoseTallyTest, FoldingDecodedEnergyEqualsFoldingFxWords)
{
    size_type const voxels = 1000;
    DoseFoldOptions fold;
    fold.slabs.axis = 0;
    fold.slabs.dims[0] = 10;
    fold.slabs.dims[1] = 10;
    fold.slabs.dims[2] = 10;
    DoseTallyInput const input{TallyMethod::fx, voxels, 1e12, Backend::cpu};
    DoseTally by_words(input, fold), by_energy(input, fold);
    for (int b = 0; b < 4; ++b)
    {
        auto const words = random_fx_words(voxels, b);
        by_words.set_batch_words(words);
        by_words.end_batch(7);
        by_energy.fold_batch(
            decode_tally_words(TallyMethod::fx, by_words.fx_quantum_exp2(), words, voxels), 7);
        for (size_type i = 0; i < 10; ++i)
            EXPECT_DOUBLE_EQ(by_words.last_batch_slabs()[i], by_energy.last_batch_slabs()[i]);
    }
    DoseTallyTotals const a = by_words.totals(), b = by_energy.totals();
    EXPECT_EQ(a.total_hi, b.total_hi);
    EXPECT_EQ(a.total_lo, b.total_lo);
    EXPECT_EQ(a.sum_sq, b.sum_sq);
    EXPECT_EQ(4u, b.batches);
}
//! Deposits of `batches` batches of histories, each history into a few
//! scattered voxels of its batch's slot (so that most strips stay untouched),
//! through the view as a transport thread makes them.
void deposit_batches(DoseTally& tally, std::uint64_t first_history, std::uint64_t per_batch,
                     int batches, unsigned seed)
{
    auto view = tally.view<FxPolicy>();
    BatchSlotMap map;
    map.base = batches > 1 ? per_batch : 0;
    map.first_batch = first_history / per_batch;
    view.set_slot_map(map);
    std::uniform_int_distribution<size_type> voxel(0, tally.voxels() - 1);
    std::exponential_distribution<double> energy(2.0);
    for (std::uint64_t h = first_history; h < first_history + batches * per_batch; ++h)
    {
        std::mt19937_64 rng(seed * 1000003ull + h); // a history's deposits depend on it alone
        TallySlot const slot = view.slot(h);
        for (int d = 0; d < 3; ++d)
            view.deposit(slot, voxel(rng), energy(rng));
    }
}

//! A launch of several batches, each into its own grid, folds to the same
//! bits as one batch per launch; skipping untouched strips changes no bit.
TEST(DoseTallyTest, BatchesOfOneLaunchFoldLikeOneBatchPerLaunch)
{
    size_type const dims[3] = {40, 30, 50}; // 60000 voxels: 235 strips
    size_type const voxels = dims[0] * dims[1] * dims[2];
    int const batches = 6;
    std::uint64_t const per_batch = 50;
    DoseFoldOptions fold;
    fold.host_threads = 2;
    fold.slabs.axis = 2;
    std::copy(dims, dims + 3, fold.slabs.dims);
    DoseTallyInput input{TallyMethod::fx, voxels, 1e9, Backend::cpu};
    DoseTally sequential(input, fold);
    std::vector<std::vector<double>> sequential_slabs;
    for (int b = 0; b < batches; ++b)
    {
        deposit_batches(sequential, b * per_batch, per_batch, 1, 7);
        sequential.end_batch(per_batch);
        sequential_slabs.push_back(sequential.last_batch_slabs());
    }
    input.slots = 3;
    DoseTally launched(input, fold);
    std::vector<std::vector<double>> launched_slabs;
    for (int l = 0; l < 2; ++l)
    {
        deposit_batches(launched, 3 * l * per_batch, per_batch, 3, 7);
        launched.end_batches({per_batch, per_batch, per_batch});
        ASSERT_EQ(3u, launched.folded_slabs().size());
        for (auto const& slabs : launched.folded_slabs())
            launched_slabs.push_back(slabs);
    }
    // The dense fold: words set from outside mark every strip.
    DoseTally dense({TallyMethod::fx, voxels, 1e9, Backend::cpu}, fold);
    for (int b = 0; b < batches; ++b)
    {
        DoseTally one({TallyMethod::fx, voxels, 1e9, Backend::cpu});
        deposit_batches(one, b * per_batch, per_batch, 1, 7);
        dense.set_batch_words(one.batch_words());
        dense.end_batch(per_batch);
    }
    DoseTallyTotals const a = sequential.totals(), b = launched.totals(), c = dense.totals();
    EXPECT_EQ(a.total_hi, b.total_hi);
    EXPECT_EQ(a.total_lo, b.total_lo);
    EXPECT_EQ(a.sum_sq, b.sum_sq);
    EXPECT_EQ(a.total_hi, c.total_hi);
    EXPECT_EQ(a.sum_sq, c.sum_sq);
    EXPECT_EQ(std::uint64_t(batches), b.batches);
    EXPECT_EQ(sequential_slabs, launched_slabs);
    // The folds cleared every word.
    auto const left = launched.batch_words();
    EXPECT_EQ(std::vector<std::uint64_t>(left.size(), 0), left);
    // Something was deposited, and not everywhere (so strips were skipped).
    int nonzero = 0;
    for (double e : a.total_hi)
        nonzero += e != 0;
    EXPECT_GT(nonzero, 100);
    EXPECT_LT(nonzero, int(voxels) / 10);
}

TEST(DoseTallyTest, TooManyBatchesForTheSlotsAreRefused)
{
    DoseTally tally({TallyMethod::hb, 10, 1.0, Backend::cpu, 2});
    EXPECT_THROW(tally.end_batches({1, 1, 1}), RuntimeError);
    EXPECT_THROW(tally.end_batches({}), RuntimeError);
    EXPECT_THROW(DoseTally({TallyMethod::hb, 10, 1.0, Backend::cpu, 0}), RuntimeError);
}
//! The sum of a voxel's (or slab's) history totals and of their squares.
std::pair<double, double> sum_and_squares(std::vector<double> const& per_history)
{
    double sum = 0, sum_sq = 0;
    for (double xh : per_history)
    {
        sum += xh;
        sum_sq += xh * xh;
    }
    return {sum, sum_sq};
}

//! History-by-history: a thread's deposits of one history are summed per
//! voxel before they reach the grid, and each voxel keeps the sum of its
//! squared history totals, so sigma is the estimate over histories,
//! s^2 = N/(N-1) (sum_h x_h^2 - E^2/N), with x_h the history's total in the
//! voxel (a voxel hit several times by one history counts its sum once).
TEST(DoseTallyTest, HistoryMomentsGiveTheHistoryByHistoryUncertainty)
{
    size_type const voxels = 600;
    std::uint64_t const histories = 400;
    DoseTallyInput input{TallyMethod::fx, voxels, histories * 10.0, Backend::cpu};
    input.history_moments = true;
    input.max_history_energy_MeV = 10.0;
    DoseTally tally(input);
    HistoryScratch scratch;
    auto const view = tally.view<FxPolicy>().with_history_scratch(&scratch);
    std::vector<std::vector<double>> x(voxels, std::vector<double>(histories, 0.0));
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<size_type> voxel(0, 9); // few voxels: repeated hits
    std::exponential_distribution<double> energy(4.0);
    for (std::uint64_t h = 0; h < histories; ++h)
    {
        for (int d = 0; d < 6; ++d)
        {
            size_type const v = 7 * voxel(rng);
            double const e = energy(rng);
            view.deposit(view.slot(h), v, e);
            x[v][h] += e;
        }
        if (h == 0)
        {
            auto const grid = tally.batch_energy_MeV();
            EXPECT_EQ(0.0, std::accumulate(grid.begin(), grid.end(), 0.0))
                << "nothing reaches the grid before the history ends";
        }
        view.end_history();
        if (h == histories / 2 - 1)
            tally.end_batch(histories / 2); // two batches: the squares fold across them
    }
    tally.end_batch(histories / 2);
    DoseResult const r = tally.result();
    int checked = 0;
    for (size_type v = 0; v < voxels; ++v)
    {
        auto const [sum, sum_sq] = sum_and_squares(x[v]);
        double const n = double(histories);
        double const sigma = std::sqrt(n / (n - 1) * std::max(0.0, sum_sq - sum * sum / n));
        EXPECT_NEAR(sum, r.energy_MeV[v], 1e-9 * (1 + sum)) << "voxel " << v;
        EXPECT_NEAR(sigma, r.energy_sigma_MeV[v], 1e-9 * (1 + sigma)) << "voxel " << v;
        checked += sum > 0;
    }
    EXPECT_EQ(10, checked);
    // The squares survive a checkpoint.
    DoseTally resumed(input);
    resumed.restore(tally.totals());
    EXPECT_EQ(r.energy_sigma_MeV, resumed.result().energy_sigma_MeV);
    DoseTally batch_only({TallyMethod::fx, voxels, histories * 10.0, Backend::cpu});
    EXPECT_THROW(batch_only.restore(tally.totals()), RuntimeError);
}

//! With slab sums (a depth-dose curve), each slab also keeps the sum over histories of
//! the square of the history's energy in the slab (summed per thread, added to the shared
//! sums when the thread's part of the batch ends): the history-by-history moments of the
//! curve, folded per batch like the voxels' and kept by a checkpoint.
TEST(DoseTallyTest, HistoryMomentsOfSlabSums)
{
    size_type const nx = 10, ny = 6, nz = 10, voxels = nx * ny * nz;
    std::uint64_t const histories = 300;
    DoseTallyInput input{TallyMethod::hb, voxels, histories * 10.0, Backend::cpu};
    input.history_moments = true;
    input.max_history_energy_MeV = 10.0;
    DoseFoldOptions fold;
    fold.slabs.axis = 2;
    fold.slabs.dims[0] = nx;
    fold.slabs.dims[1] = ny;
    fold.slabs.dims[2] = nz;
    DoseTally tally(input, fold);
    HistoryScratch scratch;
    auto const view = tally.view<HbPolicy>().with_history_scratch(&scratch);
    std::vector<std::vector<double>> x(nz, std::vector<double>(histories, 0.0));
    std::vector<double> sums(nz, 0.0);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<size_type> voxel(0, voxels - 1);
    std::exponential_distribution<double> energy(4.0);
    for (std::uint64_t h = 0; h < histories; ++h)
    {
        for (int d = 0; d < 8; ++d) // several voxels of a slab per history, some twice
        {
            size_type const v = voxel(rng) % (nx * ny * 3) + (h % 7) * nx * ny;
            double const e = energy(rng);
            view.deposit(view.slot(h), v, e);
            x[v / (nx * ny)][h] += e;
        }
        view.end_history();
        if (h == histories / 3 - 1 || h == histories - 1)
        {
            view.end_worker(); // the thread's slab squares go to the shared ones
            tally.end_batch(h == histories - 1 ? histories - histories / 3 : histories / 3);
            for (size_type k = 0; k < nz; ++k)
                sums[k] += tally.last_batch_slabs()[k];
        }
    }
    std::vector<double> const sq = tally.history_slab_sum_sq();
    ASSERT_EQ(nz, sq.size());
    int checked = 0;
    for (size_type k = 0; k < nz; ++k)
    {
        auto const [sum, sum_sq] = sum_and_squares(x[k]);
        EXPECT_NEAR(sum, sums[k], 1e-9 * (1 + sum)) << "slab " << k;
        EXPECT_NEAR(sum_sq, sq[k], 1e-9 * (1 + sum_sq)) << "slab " << k;
        checked += sum_sq > 0;
    }
    EXPECT_EQ(9, checked); // slabs 0..8 are hit, slab 9 is not
    DoseTally resumed(input, fold);
    resumed.restore(tally.totals());
    EXPECT_EQ(sq, resumed.history_slab_sum_sq());
    DoseTally without_slabs(input);
    EXPECT_THROW(without_slabs.restore(tally.totals()), RuntimeError);
    EXPECT_TRUE(without_slabs.history_slab_sum_sq().empty());
}

//! A history's table of energy per voxel holds as many voxels as the history
//! reaches (it grows past its first 1024 slots), sums each voxel's deposits,
//! and gives them back in the order the voxels were first reached.
TEST(DoseTallyTest, HistoryTableGrowsAndDrainsInOrder)
{
    EnergySums sums;
    for (int round = 0; round < 2; ++round) // a drained table is used again
    {
        size_type const keys = round == 0 ? 5000 : 300;
        for (int pass = 0; pass < 3; ++pass)
        {
            for (size_type k = 0; k < keys; ++k)
                sums.add(7919 * k % 100003, 0.5 * double(k + pass));
        }
        EXPECT_EQ(keys, sums.size());
        size_type next = 0;
        sums.drain(
            [&](size_type key, double e)
            {
                EXPECT_EQ(7919 * next % 100003, key);
                EXPECT_EQ(0.5 * double(3 * next + 3), e);
                ++next;
            });
        EXPECT_EQ(keys, next);
        EXPECT_EQ(0u, sums.size());
    }
}

//! A history's energy per slab, summed densely, drains what the voxels' table gives for
//! the same adds, bit for bit and in the same order (slabs first added to first), and is
//! empty after: one slab added to twice, slabs out of order, a zero deposit, a history
//! with fewer slabs after a longer one.
TEST(DoseTallyTest, SlabSumsDrainAsTheTableDoes)
{
    SlabSums dense;
    EnergySums table;
    std::mt19937_64 rng(3);
    std::uniform_int_distribution<size_type> slab(0, 299);
    std::exponential_distribution<double> energy(2.0);
    for (int history = 0; history < 4; ++history)
    {
        int const adds = history == 3 ? 5 : 400;
        for (int a = 0; a < adds; ++a)
        {
            size_type const s = history == 2 && a == 0 ? 299 : slab(rng);
            double const e = a == 1 ? 0.0 : energy(rng);
            dense.add(s, e);
            table.add(s, e);
        }
        std::vector<std::pair<size_type, double>> expected, got;
        table.drain([&](size_type s, double e) { expected.emplace_back(s, e); });
        dense.drain([&](size_type s, double e) { got.emplace_back(s, e); });
        EXPECT_EQ(expected, got) << "history " << history;
        EXPECT_FALSE(got.empty());
        got.clear();
        dense.drain([&](size_type s, double e) { got.emplace_back(s, e); });
        EXPECT_TRUE(got.empty()) << "drained twice";
    }
}
} // namespace
} // namespace mcdose::test
