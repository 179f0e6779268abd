//! \file test/core/HostMemory.test.cc
#include "core/HostMemory.hh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

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
TEST(HostMemoryTest, HugePagesAskedWhereAtLeastHalfOfAStretchIsWritten)
{
    constexpr std::size_t huge = std::size_t(2) << 20, page = 4096, pages = huge / page;
    ZeroedArray<char> a(6 * huge + 123);
    auto const base = reinterpret_cast<std::uintptr_t>(a.data());
    std::uintptr_t const first = (base + huge - 1) / huge * huge; // the first whole stretch
    // Stretch 0: every page written; 1: exactly half; 2: one page short of half; 3: every
    // other page (half); 4: none. The bytes before the first and after the last whole
    // stretch are never asked for.
    auto const written = [&](std::size_t offset)
    {
        EXPECT_EQ(0u, (base + offset) % page);
        EXPECT_GE(base + offset, first);
        std::size_t const p = (base + offset - first) / page;
        std::size_t const stretch = p / pages, in = p % pages;
        switch (stretch)
        {
        case 0:
            return true;
        case 1:
            return in < pages / 2;
        case 2:
            return in < pages / 2 - 1;
        case 3:
            return in % 2 == 0;
        default:
            return false;
        }
    };
    for (int threads : {1, 0})
    {
        EXPECT_EQ(3 * huge, advise_huge_pages_where_written(a.data(), a.size(), written, threads))
            << threads << " threads";
    }
    EXPECT_EQ(
        0u, advise_huge_pages_where_written(a.data(), a.size(), [](std::size_t) { return false; }));
    // Less than one whole stretch: nothing to ask for.
    EXPECT_EQ(0u, advise_huge_pages_where_written(reinterpret_cast<void*>(first + page),
                                                  huge - page, [](std::size_t) { return true; }));
    // The values stay zero where not written, and are kept where written.
    a[a.size() / 2] = 7;
    EXPECT_EQ(7, a[a.size() / 2]);
    EXPECT_EQ(0, a[a.size() / 3]);
}
} // namespace
} // namespace mcdose::test
