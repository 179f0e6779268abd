//! \file core/ArchProbe.hh
//! The address of an empty kernel built with this build's CUDA architectures
//! (core/ArchProbe.cu; CUDA builds only), for core/KernelImage.hh.
#pragma once

namespace mcdose
{
void const* arch_probe_kernel_address();
} // namespace mcdose
