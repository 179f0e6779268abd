//! \file core/KernelImage.hh
//! Which GPUs this build's device code runs on. A CUDA binary holds machine
//! code (SASS) for the "real" architectures it was built for and PTX for the
//! "virtual" ones: SASS for sm_XY runs on GPUs of compute capability X.Y' with
//! Y' >= Y (same major version); PTX for compute_XY is compiled by the driver
//! for any GPU of compute capability >= X.Y (CUDA C++ Programming Guide,
//! "Binary Compatibility" and "PTX Compatibility"). A GPU outside both gets a
//! message naming the rebuild option (CMAKE_CUDA_ARCHITECTURES), never a raw
//! CUDA error.
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
//! One entry of a CMake CUDA_ARCHITECTURES list: "86-real" (SASS), "120-virtual"
//! (PTX) or "90" (both).
struct CudaArchitecture
{
    int number{0};    //!< 10 * major + minor, e.g. 86
    bool sass{false}; //!< machine code for sm_<number>
    bool ptx{false};  //!< PTX for compute_<number>
};

//! Parse a CMake list ("80-real;86-real;90"; "," also separates). Entries CMake
//! resolves itself ("native", "all", "all-major") give an empty list. Throws
//! RuntimeError on a malformed entry.
std::vector<CudaArchitecture> parse_cuda_architectures(std::string const& list);

//! "sm_80, sm_86, sm_90, compute_90 (PTX)": what a list builds.
std::string describe_cuda_architectures(std::vector<CudaArchitecture> const& archs);

//! How a GPU of compute capability major.minor runs a build of `archs`.
struct KernelImageChoice
{
    bool runs{false};
    std::string how; //!< "sm_86 code", "sm_80 code (binary-compatible)", "compute_90 PTX, compiled
                     //!< by the driver at first use"
};

//! The choice by the compatibility rules above (no GPU needed).
KernelImageChoice choose_kernel_image(std::vector<CudaArchitecture> const& archs, int major,
                                      int minor);

//! The message for a GPU that cannot run a build: names the GPU, the
//! architectures built, and the rebuild option; `architectures` is the CMake list.
std::string no_kernel_image_message(int device, std::string const& name, int major, int minor,
                                    std::string const& architectures);

//! Run-time check on device `device` with the CUDA runtime (cudaFuncGetAttributes on
//! `kernel`, the address of a __global__ function built with `architectures`): empty
//! if the device can run it, else no_kernel_image_message. Makes `device` current.
//! In a build without CUDA: "built without CUDA".
std::string kernel_image_problem(void const* kernel, int device, std::string const& architectures);

//! kernel_image_problem for this build's own device code (a probe kernel built
//! with the same CMAKE_CUDA_ARCHITECTURES as the transport kernels).
std::string device_code_problem(int device);

//! Throw RuntimeError(device_code_problem(device)) if it is not empty: called when
//! the GPU backend starts, before any upload or launch.
void require_device_code(int device);
} // namespace mcdose
