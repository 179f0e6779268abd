//! \file test/core/HostMemory.test.cc
#include "core/HostMemory.hh"

#include <gtest/gtest.h>

#include <algorithm>

namespace mcdose::test
{
namespace
{
bool all_equal(std::vector<double> const& v, double value)
{
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == value; });
}

TEST(HostMemoryTest, ResizeOnAllCoresFillsLargeAndSmallGrids)
{
    std::size_t const large = prefault_min_bytes / sizeof(double) + 3; // mapped on all cores
    for (bool huge : {false, true})
    {
        for (std::size_t n : {std::size_t(0), std::size_t(5), large})
        {
            std::vector<double> v(7, 1.0);
            resize_on_all_cores(v, n, 2.5, 0, huge);
            ASSERT_EQ(n, v.size());
            EXPECT_TRUE(all_equal(v, 2.5)) << n << (huge ? " in huge pages" : "");
        }
    }
}

TEST(HostMemoryTest, GridsAheadHandsOverFilledGrids)
{
    std::size_t const large = prefault_min_bytes / sizeof(double) + 3;
    for (std::size_t n : {std::size_t(5), large})
    {
        GridsAhead<double> ahead(2, n, -1.5, 2);
        EXPECT_EQ(2u, ahead.count());
        EXPECT_EQ(n, ahead.grid_size());
        std::vector<std::vector<double>> const grids = ahead.take();
        ASSERT_EQ(2u, grids.size());
        for (auto const& g : grids)
        {
            ASSERT_EQ(n, g.size());
            EXPECT_TRUE(all_equal(g, -1.5)) << n;
        }
    }
}
} // namespace
} // namespace mcdose::test
