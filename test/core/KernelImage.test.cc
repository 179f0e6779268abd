//! \file test/core/KernelImage.test.cc
//! Which GPUs a build runs on (CUDA binary and PTX compatibility rules, known
//! answers from the CUDA C++ Programming Guide), and the message a GPU outside
//! them gets. Host only.
#include "core/KernelImage.hh"

#include <gtest/gtest.h>

#include "core/Assert.hh"

namespace mcdose::test
{
namespace
{
std::vector<CudaArchitecture> const fat =
    parse_cuda_architectures("80-real;86-real;89-real;90-real;100-real;120");
}

TEST(KernelImageTest, ParsesCMakeLists)
{
    ASSERT_EQ(fat.size(), 6u);
    EXPECT_EQ(fat[0].number, 80);
    EXPECT_TRUE(fat[0].sass);
    EXPECT_FALSE(fat[0].ptx);
    EXPECT_TRUE(fat[5].sass && fat[5].ptx); // "120": machine code and PTX
    EXPECT_EQ(describe_cuda_architectures(fat),
              "sm_80, sm_86, sm_89, sm_90, sm_100, sm_120, compute_120 (PTX)");
    EXPECT_EQ(describe_cuda_architectures(parse_cuda_architectures("90")),
              "sm_90, compute_90 (PTX)");
    EXPECT_EQ(describe_cuda_architectures(parse_cuda_architectures("100-virtual")),
              "compute_100 (PTX)");
    EXPECT_TRUE(parse_cuda_architectures("native").empty()); // resolved by CMake
    EXPECT_TRUE(parse_cuda_architectures("all-major").empty());
    EXPECT_THROW(parse_cuda_architectures("sm_90"), RuntimeError);
    EXPECT_THROW(parse_cuda_architectures("90-fake"), RuntimeError);
}

TEST(KernelImageTest, FatBinaryCoversAmpereToBlackwell)
{
    EXPECT_EQ(choose_kernel_image(fat, 8, 0).how, "sm_80 code");   // A100
    EXPECT_EQ(choose_kernel_image(fat, 8, 6).how, "sm_86 code");   // RTX 3090, A6000
    EXPECT_EQ(choose_kernel_image(fat, 8, 9).how, "sm_89 code");   // L40S, RTX 4090
    EXPECT_EQ(choose_kernel_image(fat, 9, 0).how, "sm_90 code");   // H100, H200
    EXPECT_EQ(choose_kernel_image(fat, 10, 0).how, "sm_100 code"); // B200
    EXPECT_EQ(choose_kernel_image(fat, 12, 0).how, "sm_120 code"); // RTX 5090
    EXPECT_EQ(choose_kernel_image(fat, 8, 7).how, "sm_86 code (binary-compatible)"); // Orin
    EXPECT_EQ(choose_kernel_image(fat, 10, 3).how, "sm_100 code (binary-compatible)");
    EXPECT_TRUE(choose_kernel_image(fat, 12, 1).runs);
    EXPECT_FALSE(choose_kernel_image(fat, 7, 5).runs); // Turing: not built
}

TEST(KernelImageTest, SingleArchitectureBuilds)
{
    auto const h = parse_cuda_architectures("90");   // the CI build: sm_90 + compute_90
    EXPECT_FALSE(choose_kernel_image(h, 8, 6).runs); // compute_90 PTX does not run on Ampere
    EXPECT_FALSE(choose_kernel_image(h, 8, 9).runs);
    auto const b = choose_kernel_image(h, 10, 0); // newer GPU: the driver compiles the PTX
    EXPECT_TRUE(b.runs);
    EXPECT_EQ(b.how.rfind("compute_90 PTX", 0), 0u) << b.how;
    EXPECT_FALSE(choose_kernel_image(parse_cuda_architectures("90-real"), 10, 0).runs);
    EXPECT_FALSE(choose_kernel_image(parse_cuda_architectures("100-real"), 9, 0).runs);
}

TEST(KernelImageTest, MessageNamesGpuBuildAndRebuildOption)
{
    std::string const m = no_kernel_image_message(0, "NVIDIA H200", 9, 0, "100-real");
    for (char const* part :
         {"GPU 0 (NVIDIA H200, compute capability 9.0) cannot run this build of mcdose",
          "built for sm_100 (CMAKE_CUDA_ARCHITECTURES=100-real)", "no sm_90 code",
          "-DCMAKE_CUDA_ARCHITECTURES=native", "=90 (this GPU)", "--backend cpu"})
    {
        EXPECT_NE(m.find(part), std::string::npos) << part << "\n" << m;
    }
    EXPECT_EQ(m.find("cudaError"), std::string::npos) << m;
}
} // namespace mcdose::test
