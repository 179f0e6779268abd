//! \file core/Device.cc
#include "core/Device.hh"

#include "core/Assert.hh"
#include "core/DeviceCall.hh"

namespace mcdose
{
#if MCDOSE_USE_CUDA
namespace
{
cudaError_t query_count(int* count)
{
    *count = 0;
    cudaError_t err = cudaGetDeviceCount(count);
    if (err != cudaSuccess)
    {
        *count = 0;
        cudaGetLastError();  // clear the sticky-free error so later calls are unaffected
    }
    return err;
}
}  // namespace

int device_count() noexcept
{
    int count = 0;
    query_count(&count);
    return count;
}

std::string no_device_reason()
{
    int count = 0;
    cudaError_t err = query_count(&count);
    if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice)
        return std::string("no NVIDIA GPU or driver found; CUDA runtime: ")
               + cudaGetErrorString(err);
    if (err != cudaSuccess)
        return std::string("CUDA runtime reports: ") + cudaGetErrorString(err);
    if (count == 0)
        return "no CUDA device is visible";
    return {};
}

std::vector<DeviceInfo> device_infos()
{
    std::vector<DeviceInfo> result;
    int const count = device_count();
    for (int i = 0; i < count; ++i)
    {
        cudaDeviceProp prop{};
        MCDOSE_CUDA_CALL(cudaGetDeviceProperties(&prop, i));
        DeviceInfo info;
        info.index = i;
        info.name = prop.name;
        info.cc_major = prop.major;
        info.cc_minor = prop.minor;
        info.multiprocessors = prop.multiProcessorCount;
        info.global_memory_bytes = prop.totalGlobalMem;
        info.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
        info.warp_size = prop.warpSize;
        info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
        result.push_back(std::move(info));
    }
    return result;
}

void activate_device(int index)
{
    MCDOSE_VALIDATE(index >= 0 && index < device_count(),
                    << "GPU index " << index << " is not available (" << device_count()
                    << " visible); choose an index below the device count");
    MCDOSE_CUDA_CALL(cudaSetDevice(index));
}
#else
int device_count() noexcept
{
    return 0;
}
std::string no_device_reason()
{
    return "mcdose was built without CUDA";
}
std::vector<DeviceInfo> device_infos()
{
    return {};
}
void activate_device(int)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
}  // namespace mcdose
