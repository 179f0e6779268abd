//! \file core/Device.cc
#include "core/Device.hh"

#include <algorithm>
#include <sstream>

#include "core/Assert.hh"
#include "core/DeviceCall.hh"

namespace mcdose
{
namespace
{
int parse_gpu_number(std::string const& item, std::string const& spec)
{
    std::size_t used = 0;
    int value = -1;
    try
    {
        value = std::stoi(item, &used);
    }
    catch (std::exception const&)
    {
        used = 0;
    }
    MCDOSE_VALIDATE(!item.empty() && used == item.size() && value >= 0,
                    << "--gpus '" << spec << "': '" << item
                    << "' is not a GPU count or index; use a count (2), a list (0,1) or 'all'");
    return value;
}
} // namespace

std::vector<int> select_gpus(std::string const& spec, int visible)
{
    MCDOSE_VALIDATE(visible > 0, << "--gpus '" << spec << "' needs a GPU, but none is visible ("
                                 << no_device_reason() << "); use the cpu backend");
    std::vector<int> result;
    if (spec.empty() || spec == "all")
    {
        for (int i = 0; i < visible; ++i)
            result.push_back(i);
        return result;
    }
    if (spec.find(',') == std::string::npos)
    {
        int const count = parse_gpu_number(spec, spec);
        MCDOSE_VALIDATE(count >= 1 && count <= visible,
                        << "--gpus " << count << ": asks for " << count << " GPUs but " << visible
                        << " are visible; use a count from 1 to " << visible);
        for (int i = 0; i < count; ++i)
            result.push_back(i);
        return result;
    }
    std::istringstream is(spec);
    std::string item;
    while (std::getline(is, item, ','))
    {
        if (item.empty())
            continue;
        int const index = parse_gpu_number(item, spec);
        MCDOSE_VALIDATE(index < visible, << "--gpus '" << spec << "': GPU " << index
                                         << " does not exist (" << visible
                                         << " visible, indices 0 to " << visible - 1 << ")");
        MCDOSE_VALIDATE(std::find(result.begin(), result.end(), index) == result.end(),
                        << "--gpus '" << spec << "': GPU " << index << " is listed twice");
        result.push_back(index);
    }
    MCDOSE_VALIDATE(!result.empty(), << "--gpus '" << spec << "' selects no GPU");
    return result;
}

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
        cudaGetLastError(); // clear the sticky-free error so later calls are unaffected
    }
    return err;
}
} // namespace

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
        return std::string("no NVIDIA GPU or driver found; CUDA runtime: ") +
               cudaGetErrorString(err);
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

int active_device()
{
    int index = 0;
    MCDOSE_CUDA_CALL(cudaGetDevice(&index));
    return index;
}

void release_device(int index)
{
    activate_device(index);
    MCDOSE_CUDA_CALL(cudaDeviceReset());
}

std::size_t device_free_bytes(int index)
{
    activate_device(index);
    std::size_t free_bytes = 0, total_bytes = 0;
    MCDOSE_CUDA_CALL(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
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
int active_device()
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void release_device(int)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
std::size_t device_free_bytes(int)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
