//! Device smoke test: a kernel's result is checked on the host.
#include "DeviceSmoke.test.hh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "core/Device.hh"
#include "core/DeviceBuffer.hh"

namespace mcdose::test
{
TEST(DeviceSmokeTest, SaxpyMatchesHost)
{
    MCDOSE_SKIP_IF_NO_GPU();
    auto const infos = device_infos();
    ASSERT_FALSE(infos.empty());
    EXPECT_GT(infos[0].multiprocessors, 0);
    EXPECT_FALSE(infos[0].name.empty());

    std::size_t const n = 10007; // not a multiple of the block size
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        x[i] = 0.5 * double(i);
        y[i] = 1.0 / double(i + 1);
    }
    auto const result = device_saxpy(3.0, x, y);
    ASSERT_EQ(n, result.y.size());
    for (std::size_t i = 0; i < n; ++i)
    {
        ASSERT_DOUBLE_EQ(3.0 * x[i] + y[i], result.y[i]) << "element " << i;
        ASSERT_EQ(1, result.device_compiled[i]) << "element " << i;
    }
}

// The download and the upload from several threads through pinned staging give the bytes a
// plain copy gives: a copy of many chunks that is not a whole number of them, from 1 and
// from 3 threads, and one small enough to be made at once.
TEST(DeviceSmokeTest, ParallelCopiesCopyEveryByte)
{
    MCDOSE_SKIP_IF_NO_GPU();
    for (std::size_t n : {std::size_t(12345), std::size_t(11) * (std::size_t(1) << 20) + 7})
    {
        std::vector<std::uint32_t> host(n);
        for (std::size_t i = 0; i < n; ++i)
            host[i] = std::uint32_t(i * 2654435761u);
        DeviceBuffer<std::uint32_t> const device(make_span(host));
        for (int threads : {1, 3})
        {
            std::vector<std::uint32_t> back(n, 0);
            device.copy_to_host_parallel(make_span(back), threads);
            EXPECT_EQ(host, back) << n << " words from " << threads << " threads";
            DeviceBuffer<std::uint32_t> up(n);
            up.copy_to_device_parallel(make_span(host), threads);
            EXPECT_EQ(host, up.to_host()) << n << " words up from " << threads << " threads";
        }
    }
}

// An upload of 32 MiB or more is made from the host memory pinned where it is; from memory
// the driver cannot pin again (pinned already) through pinned staging: the same bytes
// either way. A released device then serves a new copy.
TEST(DeviceSmokeTest, LargeUploadsAndARelease)
{
    MCDOSE_SKIP_IF_NO_GPU();
    std::size_t const n = (std::size_t(9) << 20) + 5; // 36 MiB and 20 bytes
    std::vector<std::uint32_t> host(n);
    for (std::size_t i = 0; i < n; ++i)
        host[i] = std::uint32_t(i * 2246822519u);
    {
        DeviceBuffer<std::uint32_t> up(n);
        up.copy_to_device_parallel(make_span(host));
        EXPECT_EQ(host, up.to_host()) << "pinned in place";
    }
    std::uint32_t* const pinned = allocate_pinned_words(n);
    std::copy(host.begin(), host.end(), pinned);
    {
        DeviceBuffer<std::uint32_t> up(n);
        up.copy_to_device_parallel(Span<std::uint32_t const>(pinned, n), 2);
        EXPECT_EQ(host, up.to_host()) << "pinned already: through staging";
    }
    free_pinned_words(pinned);
    release_device(active_device());
    DeviceBuffer<std::uint32_t> const again(make_span(host));
    EXPECT_EQ(host, again.to_host()) << "after the release";
}
} // namespace mcdose::test

namespace mcdose::test
{
// fast_expm1 on the device against the host's std::expm1 over the range the
// charged step uses (x = -s/lambda <= 0): the float path within its stated
// bounds (core/FastMath.hh: 4.3e-8 relative below |x| = 1/8 plus the
// rounding of five float operations; 1.02e-6 above), the double path within
// its 3.6e-15 (plus the host's own error, below 1 ulp).
// WarpGroup and block_count on the device: a loop left on a vote of the group
// runs until the group's longest lane is done, every lane doing exactly its
// own trips; lanes outside the group take no part; block_count counts the
// whole block (3 warps).
TEST(DeviceVoteTest, GroupLoopAndBlockCount)
{
    MCDOSE_SKIP_IF_NO_GPU();
    std::vector<int> trips(96);
    for (int t = 0; t < 96; ++t)
        trips[t] = (t * 7) % 5 + (t % 32 == 31 ? 9 : 0) + (t >= 64 ? 0 : 1);
    auto const r = device_votes(trips);
    ASSERT_EQ(96u, r.trips_done.size());
    for (int t = 0; t < 96; ++t)
    {
        EXPECT_EQ(24, r.block_count[t]) << "thread " << t;
        if (t % 3 == 0)
        {
            EXPECT_EQ(0, r.iterations[t]) << "thread " << t;
            continue;
        }
        int longest = 1; // the loop body runs at least once
        for (int u = t / 32 * 32; u < t / 32 * 32 + 32; ++u)
            if (u % 3 != 0)
                longest = std::max(longest, trips[u]);
        EXPECT_EQ(trips[t], r.trips_done[t]) << "thread " << t;
        EXPECT_EQ(longest, r.iterations[t]) << "thread " << t;
    }
}

TEST(DeviceFastMathTest, Expm1WithinStatedBounds)
{
    MCDOSE_SKIP_IF_NO_GPU();
    std::vector<double> x;
    for (double a = 1e-7; a < 30; a *= 1.01)
        x.push_back(-a);
    x.push_back(-0.125);
    x.push_back(-0.12499999);
    x.push_back(0.0);
    auto const r = device_fast_expm1(x);
    ASSERT_EQ(x.size(), r.single.size());
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        double const xf = double(float(x[i])); // the float path's argument
        double const ref = std::expm1(xf);
        double const bound = std::fabs(xf) < 0.125 ? 4.3e-8 + 5 * 0x1p-24 : 1.02e-6;
        EXPECT_LE(std::fabs(double(r.single[i]) - ref), bound * std::fabs(ref) + 1e-45)
            << "float, x = " << xf;
        double const ref_d = std::expm1(x[i]);
        EXPECT_LE(std::fabs(r.double_[i] - ref_d), (3.6e-15 + 0x1p-52) * std::fabs(ref_d))
            << "double, x = " << x[i];
    }
}
} // namespace mcdose::test
