//! \file test/core/ForeignArchProbe.cu
//! An empty kernel built only for MCDOSE_TEST_FOREIGN_CUDA_ARCHITECTURE (its own
//! target in test/core/CMakeLists.txt), for ForeignArch.test.cc.
namespace mcdose::test
{
namespace
{
__global__ void foreign_arch_kernel()
{
}
} // namespace

void const* foreign_arch_kernel_address()
{
    return reinterpret_cast<void const*>(&foreign_arch_kernel);
}
} // namespace mcdose::test
