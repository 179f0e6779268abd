//! \file test/core/ParallelFor.test.cc
//! core/ParallelFor.hh's block histogram: the sums of a serial pass over the blocks in
//! block order, bit for bit, for any thread count and number of blocks held at once, where
//! most blocks write few of the bins (the merge reads only the pages a block wrote).
#include "core/ParallelFor.hh"

#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace mcdose
{
namespace
{
//! The bins index i adds to, with its weight (none for most indices): a sparse pattern
//! whose bins span the width (its last page partial) and whose weights round differently
//! in different orders.
template <class F>
void visit_index(std::size_t i, std::size_t width, F&& f)
{
    std::uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    if (h % 7 != 0)
        return; // most indices add nothing
    f(std::size_t(h % width), 1.0 / double(1 + h % 1000));
    if (i % 5 == 0)
        f(width - 1, 1e-3 * double(i % 13)); // the partial last page, and zeros
}

std::vector<std::uint64_t> bits(std::vector<double> const& v)
{
    std::vector<std::uint64_t> b(v.size());
    std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
    return b;
}
} // namespace

TEST(ParallelForTest, BlockHistogramIsTheSerialBlockSum)
{
    std::size_t const n = 200003, width = 3 * 1031, block = 4096;
    // Serial: each block summed on its own, the blocks added bin by bin in order.
    std::vector<double> serial(width, 0.0);
    for (std::size_t begin = 0; begin < n; begin += block)
    {
        std::vector<double> acc(width, 0.0);
        for (std::size_t i = begin; i < std::min(n, begin + block); ++i)
            visit_index(i, width, [&](std::size_t x, double w) { acc[x] += w; });
        for (std::size_t x = 0; x < width; ++x)
            serial[x] += acc[x];
    }
    for (int threads : {1, 3, 8})
    {
        for (size_type round : {size_type(0), size_type(2), size_type(5)})
        {
            std::vector<double> const h = parallel_block_histogram(
                n, threads, width,
                [&](std::size_t begin, std::size_t end, HistogramBlock& acc)
                {
                    for (std::size_t i = begin; i < end; ++i)
                        visit_index(i, width, [&](std::size_t x, double w) { acc.add(x, w); });
                },
                block, round);
            EXPECT_EQ(bits(serial), bits(h)) << threads << " threads, " << round << " held";
        }
    }
}
} // namespace mcdose
