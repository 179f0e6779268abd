//! \file validation/crosscheck/DeviceTimer.hh
//! Times a stretch of GPU work with CUDA events. Include only from .cu files.
#pragma once

#include "core/DeviceCall.hh"

namespace mcdose::crosscheck
{
class DeviceTimer
{
  public:
    //! Records the start event on the default stream.
    DeviceTimer()
    {
        MCDOSE_CUDA_CALL(cudaEventCreate(&start_));
        MCDOSE_CUDA_CALL(cudaEventCreate(&stop_));
        MCDOSE_CUDA_CALL(cudaEventRecord(start_));
    }
    ~DeviceTimer()
    {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    DeviceTimer(DeviceTimer const&) = delete;
    DeviceTimer& operator=(DeviceTimer const&) = delete;

    //! Records the stop event, waits for it, returns the elapsed time [s].
    double stop_seconds()
    {
        MCDOSE_CUDA_CALL(cudaEventRecord(stop_));
        MCDOSE_CUDA_CALL(cudaEventSynchronize(stop_));
        float ms = 0;
        MCDOSE_CUDA_CALL(cudaEventElapsedTime(&ms, start_, stop_));
        return ms * 1e-3;
    }

  private:
    cudaEvent_t start_{}, stop_{};
};
} // namespace mcdose::crosscheck
