#include "core/Span.hh"

#include <numeric>

#include <gtest/gtest.h>

#include "core/Device.hh"
#include "core/DeviceBuffer.hh"

namespace mcdose
{
TEST(SpanTest, ViewsAndSubspans)
{
    std::vector<int> v(10);
    std::iota(v.begin(), v.end(), 0);
    Span<int> s = make_span(v);
    EXPECT_EQ(10u, s.size());
    EXPECT_EQ(45, std::accumulate(s.begin(), s.end(), 0));
    Span<int const> cs = s; // implicit const conversion
    auto sub = cs.subspan(2, 3);
    ASSERT_EQ(3u, sub.size());
    EXPECT_EQ(2, sub[0]);
    EXPECT_EQ(4, sub[2]);
    s[0] = 100;
    EXPECT_EQ(100, v[0]);
    EXPECT_TRUE(Span<double>().empty());
}

TEST(DeviceBufferTest, WithoutGpuGivesClearError)
{
    if (device_count() > 0)
        GTEST_SKIP() << "a GPU is present; the no-GPU error path is not reachable";
    try
    {
        DeviceBuffer<double> buf(16);
        buf.zero();
        FAIL() << "allocation without a usable GPU should throw";
    }
    catch (RuntimeError const& e)
    {
        std::string const what = e.what();
        EXPECT_TRUE(what.find("CUDA") != std::string::npos) << what;
    }
}
} // namespace mcdose
