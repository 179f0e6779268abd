//! \file core/DeviceCall.hh
//! Checked CUDA runtime calls and post-launch checks. Include only where CUDA
//! runtime calls are made (.cu files and core/*.cc).
#pragma once

#include "core/Assert.hh"
#include "core/Config.hh"

#if MCDOSE_USE_CUDA
#    include <cuda_runtime_api.h>

namespace mcdose
{
[[noreturn]] void throw_cuda_error(cudaError_t err, char const* call, char const* file, int line);
void debug_sync_after_launch(char const* file, int line);
} // namespace mcdose

//! Every CUDA runtime call goes through this.
#    define MCDOSE_CUDA_CALL(STMT)                                                                 \
        do                                                                                         \
        {                                                                                          \
            cudaError_t mcdose_cuda_err_ = (STMT);                                                 \
            if (MCDOSE_UNLIKELY(mcdose_cuda_err_ != cudaSuccess))                                  \
                ::mcdose::throw_cuda_error(mcdose_cuda_err_, #STMT, __FILE__, __LINE__);           \
        } while (0)

//! After every kernel launch: catch launch errors; with MCDOSE_DEBUG_SYNC
//! (CMake option, or environment variable MCDOSE_SYNC=1) also wait and catch
//! execution errors at the launch that caused them.
#    define MCDOSE_CUDA_CHECK_LAUNCH()                                                             \
        do                                                                                         \
        {                                                                                          \
            MCDOSE_CUDA_CALL(cudaPeekAtLastError());                                               \
            ::mcdose::debug_sync_after_launch(__FILE__, __LINE__);                                 \
        } while (0)
#endif
