//! \file test/tally/BatchReduction.test.cc
//! The pieces of a distributed run's tally: the partition of a batch over
//! ranks and devices, the reduction of their batch grids, and folding a
//! reduced batch or restoring folded totals (checkpoint/resume).
#include "tally/BatchReduction.hh"

#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tally/DoseTally.hh"

namespace mcdose::test
{
namespace
{
// Two-level split (ranks, then devices) covers the batch contiguously, in
// order, with piece sizes within one history; it depends only on the counts.
TEST(BatchReductionTest, TwoLevelSplitPartitionsTheBatch)
{
    for (HistoryRange batch : {HistoryRange{0, 1}, HistoryRange{17, 1000}, HistoryRange{5, 5},
                               HistoryRange{1000000, 1003001}})
    {
        for (std::uint64_t ranks : {1, 2, 3, 7})
        {
            for (std::uint64_t devices : {1, 2, 4})
            {
                std::uint64_t next = batch.begin, smallest = ~0ull, largest = 0;
                for (std::uint64_t r = 0; r < ranks; ++r)
                {
                    HistoryRange const mine = split_history_range(batch, ranks, r);
                    for (std::uint64_t d = 0; d < devices; ++d)
                    {
                        HistoryRange const piece = split_history_range(mine, devices, d);
                        EXPECT_EQ(next, piece.begin);
                        EXPECT_LE(piece.begin, piece.end);
                        next = piece.end;
                        smallest = std::min(smallest, piece.end - piece.begin);
                        largest = std::max(largest, piece.end - piece.begin);
                    }
                }
                EXPECT_EQ(batch.end, next) << ranks << " ranks x " << devices << " devices";
                // Sizes differ by at most one per level of splitting.
                EXPECT_LE(largest - smallest, 2u);
            }
        }
    }
    EXPECT_THROW(split_history_range({0, 10}, 0, 0), RuntimeError);
    EXPECT_THROW(split_history_range({0, 10}, 2, 2), RuntimeError);
}

std::vector<std::uint64_t> words_of(DoseTally const& t)
{
    return t.batch_words();
}

// FX: deposits split over 1..4 grids and summed as words give exactly the words
// (and decoded doubles) of one grid holding every deposit, in any order.
TEST(BatchReductionTest, FxGridsSumToTheSingleGridBitwise)
{
    size_type const voxels = 5;
    DoseTallyInput in;
    in.method = TallyMethod::fx;
    in.voxels = voxels;
    in.max_total_energy_MeV = 1e4;
    std::mt19937_64 gen(3);
    std::uniform_real_distribution<double> energy(0.0, 2.0);
    std::vector<std::pair<size_type, double>> deposits;
    for (int i = 0; i < 2000; ++i)
        deposits.push_back({size_type(gen() % voxels), energy(gen)});

    DoseTally one(in);
    auto const view = one.view<FxPolicy>();
    for (auto const& [v, e] : deposits)
        view.deposit(v, e);
    std::vector<double> const expected = one.batch_energy_MeV();

    for (std::size_t groups : {1, 2, 4})
    {
        std::vector<std::vector<std::uint64_t>> words;
        for (std::size_t g = 0; g < groups; ++g)
        {
            DoseTally part(in);
            auto const pv = part.view<FxPolicy>();
            // Group g takes every groups-th deposit, in reverse order.
            for (std::size_t i = deposits.size(); i-- > 0;)
                if (i % groups == g)
                    pv.deposit(deposits[i].first, deposits[i].second);
            words.push_back(words_of(part));
        }
        auto const got =
            reduce_batch(TallyMethod::fx, one.fx_quantum_exp2(), words, voxels, Comm::world());
        ASSERT_EQ(expected.size(), got.size());
        EXPECT_EQ(0, std::memcmp(expected.data(), got.data(), got.size() * sizeof(double)))
            << groups << " groups";
    }
}

// Floating-point methods: grids are added in group order, ((g0 + g1) + g2).
TEST(BatchReductionTest, FloatGridsAreAddedInGroupOrder)
{
    DoseTallyInput in;
    in.method = TallyMethod::hb;
    in.voxels = 1;
    in.max_total_energy_MeV = 10;
    std::vector<double> const values = {1.0, 1e-16, -1.0};
    std::vector<std::vector<std::uint64_t>> words;
    for (double v : values)
    {
        DoseTally t(in);
        t.view<HbPolicy>().deposit(0, v);
        words.push_back(words_of(t));
    }
    auto const got = reduce_batch(TallyMethod::hb, 0, words, 1, Comm::world());
    EXPECT_EQ((1.0 + 1e-16) + -1.0, got[0]); // 0 in this order (1e-16 in another)
}

// Folding a decoded batch equals end_batch; totals restored into a fresh tally
// continue to the same result as the uninterrupted tally.
TEST(BatchReductionTest, FoldAndRestoreContinueExactly)
{
    DoseTallyInput in;
    in.method = TallyMethod::fx;
    in.voxels = 3;
    in.max_total_energy_MeV = 1e3;
    DoseTally a(in), b(in);
    std::mt19937_64 gen(9);
    std::uniform_real_distribution<double> energy(0.0, 1.0);
    std::vector<std::vector<double>> batches;
    for (int k = 0; k < 6; ++k)
    {
        auto const va = a.view<FxPolicy>();
        for (int i = 0; i < 50; ++i)
            va.deposit(gen() % 3, energy(gen));
        batches.push_back(a.batch_energy_MeV());
        a.end_batch(50);
    }
    for (int k = 0; k < 3; ++k)
        b.fold_batch(batches[k], 50);
    DoseTally c(in);
    c.restore(b.totals());
    for (int k = 3; k < 6; ++k)
        c.fold_batch(batches[k], 50);
    DoseResult const ra = a.result(), rc = c.result();
    EXPECT_EQ(ra.energy_MeV, rc.energy_MeV);
    EXPECT_EQ(
        0, std::memcmp(ra.energy_sigma_MeV.data(), rc.energy_sigma_MeV.data(), 3 * sizeof(double)));
    EXPECT_EQ(ra.batches, rc.batches);
    EXPECT_EQ(ra.histories, rc.histories);

    DoseTallyTotals wrong = b.totals();
    wrong.sum_sq.pop_back();
    EXPECT_THROW(c.restore(wrong), RuntimeError);
    EXPECT_THROW(c.fold_batch({1.0}, 50), RuntimeError);
}
} // namespace
} // namespace mcdose::test
