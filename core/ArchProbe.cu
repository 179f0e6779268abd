//! \file core/ArchProbe.cu
//! An empty kernel built with this build's CMAKE_CUDA_ARCHITECTURES, like every
//! other kernel: whether the CUDA runtime finds an image of it for a GPU says
//! whether the transport kernels will run there (core/KernelImage.hh).
#include "core/ArchProbe.hh"

namespace mcdose
{
namespace
{
__global__ void arch_probe_kernel()
{
}
} // namespace

void const* arch_probe_kernel_address()
{
    return reinterpret_cast<void const*>(&arch_probe_kernel);
}
} // namespace mcdose
