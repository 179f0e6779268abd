//! \file test/core/ForeignArch.test.cc
//! What a user whose GPU is not in the build sees: a kernel built only for
//! MCDOSE_TEST_FOREIGN_CUDA_ARCHITECTURE (default 100-real, Blackwell machine
//! code, which an H100/H200 cannot run) is checked on GPU 0 the way the GPU
//! backend checks its own code at start-up. Where the GPU cannot run it, the
//! result is the message naming the rebuild option, not a CUDA error; where it
//! can (a compute capability 10.x GPU), no problem. The build's own code runs
//! on the GPU of the machine it was built for. Label gpu.
#include <iostream>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "core/Config.hh"
#include "core/Device.hh"
#include "core/KernelImage.hh"

#if MCDOSE_USE_CUDA
namespace mcdose::test
{
void const* foreign_arch_kernel_address(); // ForeignArchProbe.cu
}
#endif

namespace mcdose::test
{
TEST(ForeignArchTest, GpuWithoutCodeGetsTheRebuildMessage)
{
#if !MCDOSE_USE_CUDA
    GTEST_SKIP() << "built without CUDA";
#else
    MCDOSE_SKIP_IF_NO_GPU();
    auto const d = device_infos().front();
    std::string const archs = MCDOSE_TEST_FOREIGN_CUDA_ARCHITECTURE;
    bool const expected =
        choose_kernel_image(parse_cuda_architectures(archs), d.cc_major, d.cc_minor).runs;
    std::string const problem = kernel_image_problem(foreign_arch_kernel_address(), 0, archs);
    std::cout << "GPU 0: " << d.name << ", compute capability " << d.cc_major << '.' << d.cc_minor
              << "; kernel built for " << archs << ": " << (problem.empty() ? "runs" : problem)
              << '\n';
    if (expected)
    {
        EXPECT_EQ(problem, "");
        return;
    }
    EXPECT_NE(problem.find("cannot run this build of mcdose"), std::string::npos) << problem;
    EXPECT_NE(problem.find("CMAKE_CUDA_ARCHITECTURES=" + archs), std::string::npos) << problem;
    EXPECT_NE(problem.find("-DCMAKE_CUDA_ARCHITECTURES=native"), std::string::npos) << problem;
    EXPECT_EQ(problem.find("cudaError"), std::string::npos) << problem;
    // The GPU is still usable afterwards (the failed lookup left no sticky error).
    EXPECT_EQ(device_code_problem(0), "");
#endif
}

TEST(ForeignArchTest, ThisBuildRunsOnEveryVisibleGpuItCovers)
{
    MCDOSE_SKIP_IF_NO_GPU();
    auto const archs = parse_cuda_architectures(BuildInfo::cuda_architectures);
    for (auto const& d : device_infos())
    {
        std::string const problem = device_code_problem(d.index);
        if (!archs.empty())
        {
            EXPECT_EQ(problem.empty(), choose_kernel_image(archs, d.cc_major, d.cc_minor).runs)
                << d.name << ": " << problem;
        }
        std::cout << "GPU " << d.index << ": " << d.name << ": "
                  << (problem.empty() ? "runs this build" : problem) << '\n';
    }
}
} // namespace mcdose::test
