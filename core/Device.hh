//! \file core/Device.hh
//! Runtime discovery of CUDA devices.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mcdose
{
//! Properties of one GPU, as reported by the CUDA runtime.
struct DeviceInfo
{
    int index{-1};
    std::string name;
    int cc_major{0};
    int cc_minor{0};
    int multiprocessors{0};
    std::size_t global_memory_bytes{0};
    int max_threads_per_multiprocessor{0};
    int warp_size{0};
    std::size_t l2_cache_bytes{0};
};

//! Number of usable CUDA devices: 0 in a CPU-only build, without a driver or
//! without a GPU (never throws).
int device_count() noexcept;

//! Why no device is usable (empty when device_count() > 0).
std::string no_device_reason();

//! Properties of every visible device.
std::vector<DeviceInfo> device_infos();

//! Make `index` the current device of the calling host thread.
void activate_device(int index);
//! The current device of the calling host thread.
int active_device();

/*!
 * Release device `index` for a process done with it (cudaDeviceReset: its memory, streams
 * and context, which the driver otherwise releases when the process ends: 0.06-0.07 s on
 * H100 and H200 machines after a large run, benchmarks/host_grid.cu). Every pointer, stream
 * and event of it made before is invalid after; the next CUDA call on it starts a new
 * context.
 */
void release_device(int index);

//! Free memory of device `index` now [bytes] (cudaMemGetInfo; makes it current).
std::size_t device_free_bytes(int index);

//! The GPUs a run uses, from a `--gpus` value and the number of visible
//! devices: "" or "all" = every visible device; a single number N = the first
//! N devices; a comma-separated list ("0,2", or "1," for device 1 alone) =
//! those indices, each once. Throws RuntimeError naming the bad entry.
std::vector<int> select_gpus(std::string const& spec, int visible);
} // namespace mcdose
