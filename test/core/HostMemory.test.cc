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

TEST(HostMemoryTest, ZeroedArrayIsZeroWhereNotWritten)
{
    std::size_t const large = prefault_min_bytes / sizeof(double) + 3; // from zero pages
    for (std::size_t n : {std::size_t(0), std::size_t(5), large})
    {
        ZeroedArray<double> a(n);
        ASSERT_EQ(n, a.size());
        ASSERT_EQ(n, a.span().size());
        if (n == 0)
        {
            EXPECT_EQ(nullptr, a.data());
            continue;
        }
        a[n / 2] = 3.5;
        std::size_t nonzero = 0;
        for (double x : a.span())
            nonzero += x != 0;
        EXPECT_EQ(1u, nonzero) << n;
        EXPECT_EQ(3.5, a[n / 2]);
        // Moved, not copied: the values go with the memory.
        ZeroedArray<double> b(std::move(a));
        EXPECT_EQ(0u, a.size());
        EXPECT_EQ(nullptr, a.data());
        ASSERT_EQ(n, b.size());
        EXPECT_EQ(3.5, b[n / 2]);
        a = std::move(b);
        EXPECT_EQ(3.5, a[n / 2]);
        EXPECT_EQ(0u, b.size());
    }
}
} // namespace
} // namespace mcdose::test
