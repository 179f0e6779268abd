//! Device smoke test: a kernel's result is checked on the host.
#include "DeviceSmoke.test.hh"

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "core/Device.hh"

namespace mcdose::test
{
TEST(DeviceSmokeTest, SaxpyMatchesHost)
{
    MCDOSE_SKIP_IF_NO_GPU();
    auto const infos = device_infos();
    ASSERT_FALSE(infos.empty());
    EXPECT_GT(infos[0].multiprocessors, 0);
    EXPECT_FALSE(infos[0].name.empty());

    std::size_t const n = 10007;  // not a multiple of the block size
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
}  // namespace mcdose::test
