//! \file core/DeviceMemory.cc
#include "core/DeviceMemory.hh"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "core/Assert.hh"
#include "core/DeviceCall.hh"
#include "core/KernelImage.hh"
#include "core/ParallelFor.hh"

namespace mcdose
{
#if MCDOSE_USE_CUDA
void throw_cuda_error(cudaError_t err, char const* call, char const* file, int line)
{
    std::ostringstream os;
    if (err == cudaErrorNoKernelImageForDevice)
    {
        // Normally caught when the GPU backend starts (core/KernelImage.hh); this covers
        // kernels outside it.
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, device) == cudaSuccess)
        {
            throw RuntimeError(no_kernel_image_message(device, prop.name, prop.major, prop.minor,
                                                       BuildInfo::cuda_architectures));
        }
    }
    os << "CUDA error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") in "
       << call << " at " << file << ':' << line;
    throw RuntimeError(os.str());
}

void debug_sync_after_launch(char const* file, int line)
{
    static bool const sync = []
    {
        char const* env = std::getenv("MCDOSE_SYNC");
        return MCDOSE_DEBUG_SYNC || (env && env[0] == '1');
    }();
    if (!sync)
        return;
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
        throw_cuda_error(err, "kernel execution (synchronised after launch)", file, line);
}

void* device_allocate(std::size_t bytes)
{
    void* ptr = nullptr;
    if (bytes > 0)
        MCDOSE_CUDA_CALL(cudaMalloc(&ptr, bytes));
    return ptr;
}

void device_free(void* ptr) noexcept
{
    if (!ptr)
        return;
    cudaError_t err = cudaFree(ptr);
    if (err != cudaSuccess)
    {
        // Destructors cannot throw: report and go on.
        std::cerr << "mcdose: warning: cudaFree failed: " << cudaGetErrorString(err) << '\n';
    }
}

void device_copy_to_device(void* dst, void const* src, std::size_t bytes)
{
    if (bytes > 0)
        MCDOSE_CUDA_CALL(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

void device_copy_to_host(void* dst, void const* src, std::size_t bytes)
{
    if (bytes > 0)
        MCDOSE_CUDA_CALL(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

void device_copy_within(void* dst, void const* src, std::size_t bytes)
{
    if (bytes > 0)
        MCDOSE_CUDA_CALL(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
}

void device_memset_zero(void* ptr, std::size_t bytes)
{
    if (bytes > 0)
        MCDOSE_CUDA_CALL(cudaMemset(ptr, 0, bytes));
}

void device_synchronize()
{
    MCDOSE_CUDA_CALL(cudaDeviceSynchronize());
}

namespace
{
//! A stream that does not wait for the default stream, destroyed with this object.
struct OwnStream
{
    cudaStream_t stream{nullptr};
    OwnStream() { MCDOSE_CUDA_CALL(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
    OwnStream(OwnStream const&) = delete;
    OwnStream& operator=(OwnStream const&) = delete;
    ~OwnStream()
    {
        if (stream)
            cudaStreamDestroy(stream);
    }
};
} // namespace

void device_raise_flag(unsigned* flag)
{
    OwnStream const own;
    // Every byte 1: a nonzero word, with no host buffer to keep alive.
    MCDOSE_CUDA_CALL(cudaMemsetAsync(flag, 1, sizeof(unsigned), own.stream));
    MCDOSE_CUDA_CALL(cudaStreamSynchronize(own.stream));
}

namespace
{
//! Bytes per staging buffer of the parallel copies, and the least copy made in pieces.
constexpr std::size_t parallel_chunk = std::size_t(4) << 20;
constexpr std::size_t parallel_min_bytes = 8 * parallel_chunk;

//! A stream of its own and two pinned staging buffers of `bytes` each, with the event
//! recorded after the last copy that used each (DeviceUploadStream, download_through_staging).
struct StagingPair
{
    OwnStream own;
    std::size_t bytes{0};
    std::array<char*, 2> staging{{nullptr, nullptr}};
    std::array<cudaEvent_t, 2> copied{{nullptr, nullptr}};

    explicit StagingPair(std::size_t staging_bytes) : bytes(std::max<std::size_t>(staging_bytes, 1))
    {
        for (int h = 0; h < 2; ++h)
        {
            void* p = nullptr;
            MCDOSE_CUDA_CALL(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
            staging[h] = static_cast<char*>(p);
            MCDOSE_CUDA_CALL(cudaEventCreateWithFlags(&copied[h], cudaEventDisableTiming));
        }
    }
    StagingPair(StagingPair const&) = delete;
    StagingPair& operator=(StagingPair const&) = delete;
    ~StagingPair()
    {
        cudaStreamSynchronize(own.stream); // no copy may use freed staging memory
        for (int h = 0; h < 2; ++h)
        {
            if (copied[h])
                cudaEventDestroy(copied[h]);
            if (staging[h])
                cudaFreeHost(staging[h]);
        }
    }
};

//! One thread's part of device_copy_to_host_parallel: device [src, src + n) to host `dst`,
//! each chunk to a staging buffer on the stream, then (while the next one is copied into
//! the other buffer) from there to the host.
void download_through_staging(char* dst, char const* src, std::size_t n)
{
    StagingPair pair(parallel_chunk);
    std::array<std::size_t, 2> staged{{0, 0}}; // bytes waiting in each buffer
    std::array<char*, 2> to{{nullptr, nullptr}};
    auto drain = [&](int b)
    {
        if (staged[b] == 0)
            return;
        MCDOSE_CUDA_CALL(cudaEventSynchronize(pair.copied[b]));
        std::memcpy(to[b], pair.staging[b], staged[b]);
        staged[b] = 0;
    };
    int h = 0;
    for (std::size_t at = 0; at < n; at += parallel_chunk, h = 1 - h)
    {
        drain(h); // the chunk two before this one, whose buffer this one takes
        std::size_t const len = std::min(parallel_chunk, n - at);
        MCDOSE_CUDA_CALL(cudaMemcpyAsync(pair.staging[h], src + at, len, cudaMemcpyDeviceToHost,
                                         pair.own.stream));
        MCDOSE_CUDA_CALL(cudaEventRecord(pair.copied[h], pair.own.stream));
        staged[h] = len;
        to[h] = dst + at;
    }
    drain(h); // the chunk before the last
    drain(1 - h);
}

/*!
 * A copy of `bytes` made by `plain()` if under parallel_min_bytes, else in contiguous
 * byte ranges, lane(at, end) on each of up to `threads` host threads (at most 8), each
 * with the caller's device current.
 */
template <class Plain, class Lane>
void copy_in_lanes(std::size_t bytes, int threads, Plain&& plain, Lane&& lane)
{
    if (bytes < parallel_min_bytes)
    {
        plain();
        return;
    }
    int device = 0;
    MCDOSE_CUDA_CALL(cudaGetDevice(&device));
    std::size_t const chunks = (bytes + parallel_chunk - 1) / parallel_chunk;
    parallel_for_pieces(
        chunks, std::min(host_loop_threads(threads), 8),
        [&](size_type c0, size_type c1, size_type)
        {
            MCDOSE_CUDA_CALL(cudaSetDevice(device));
            std::size_t const at = c0 * parallel_chunk;
            lane(at, std::min(bytes, c1 * parallel_chunk));
        },
        size_type(1));
}
} // namespace

void device_copy_to_host_parallel(void* dst, void const* src, std::size_t bytes, int threads)
{
    auto* to = static_cast<char*>(dst);
    auto const* from = static_cast<char const*>(src);
    copy_in_lanes(
        bytes, threads, [&] { device_copy_to_host(dst, src, bytes); },
        [&](std::size_t at, std::size_t end)
        { download_through_staging(to + at, from + at, end - at); });
}

namespace
{
/*!
 * Host [src, src + bytes) to device `dst` from the host memory pinned where it is for the
 * copy; false, with nothing copied, where the driver cannot pin it (e.g. part of it pinned
 * already).
 */
bool copy_pinned_in_place(void* dst, void const* src, std::size_t bytes)
{
    // Pinning reads no byte and writes none: the const_cast leaves the data alone.
    void* host = const_cast<void*>(src);
    if (cudaHostRegister(host, bytes, cudaHostRegisterDefault) != cudaSuccess)
    {
        cudaGetLastError(); // a failed registration is not a sticky error: clear it
        return false;
    }
    cudaError_t const copied = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    cudaError_t const unpinned = cudaHostUnregister(host);
    MCDOSE_CUDA_CALL(copied);
    MCDOSE_CUDA_CALL(unpinned);
    return true;
}
} // namespace

void device_copy_to_device_parallel(void* dst, void const* src, std::size_t bytes, int threads)
{
    // Up to 1 GiB pinned in place: faster than the lanes, with their own pinned staging and
    // streams, for a 512^3 phantom's grids; for larger copies the lanes beside each other
    // outpace pinning the whole (a 1024^3 phantom's): docs/history/benchmarks-2026.md.
    constexpr std::size_t most_pinned_in_place = std::size_t(1) << 30;
    if (bytes >= parallel_min_bytes && bytes <= most_pinned_in_place &&
        copy_pinned_in_place(dst, src, bytes))
        return;
    auto* to = static_cast<char*>(dst);
    auto const* from = static_cast<char const*>(src);
    copy_in_lanes(
        bytes, threads, [&] { device_copy_to_device(dst, src, bytes); },
        [&](std::size_t at, std::size_t end)
        {
            DeviceUploadStream up(parallel_chunk);
            up.copy(to + at, from + at, end - at);
            up.finish();
        });
}

struct DeviceUploadStream::Impl
{
    StagingPair pair;
    std::array<bool, 2> pending{{false, false}};
    int next{0};
    explicit Impl(std::size_t staging_bytes) : pair(staging_bytes) {}
};

DeviceUploadStream::DeviceUploadStream(std::size_t staging_bytes)
    : impl_(std::make_unique<Impl>(staging_bytes))
{
}

DeviceUploadStream::~DeviceUploadStream() = default;

void DeviceUploadStream::copy(void* dst, void const* src, std::size_t bytes)
{
    Impl& m = *impl_;
    StagingPair& p = m.pair;
    auto* to = static_cast<char*>(dst);
    auto const* from = static_cast<char const*>(src);
    while (bytes > 0)
    {
        int const h = m.next;
        if (m.pending[h]) // this staging buffer's last copy must be done before it is refilled
            MCDOSE_CUDA_CALL(cudaEventSynchronize(p.copied[h]));
        std::size_t const n = std::min(bytes, p.bytes);
        std::memcpy(p.staging[h], from, n);
        MCDOSE_CUDA_CALL(
            cudaMemcpyAsync(to, p.staging[h], n, cudaMemcpyHostToDevice, p.own.stream));
        MCDOSE_CUDA_CALL(cudaEventRecord(p.copied[h], p.own.stream));
        m.pending[h] = true;
        m.next = 1 - h;
        to += n;
        from += n;
        bytes -= n;
    }
}

void DeviceUploadStream::finish()
{
    MCDOSE_CUDA_CALL(cudaStreamSynchronize(impl_->pair.own.stream));
    impl_->pending = {{false, false}};
}
#else
void* device_allocate(std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_free(void*) noexcept
{
}
void device_copy_to_device(void*, void const*, std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_copy_to_host(void*, void const*, std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_copy_to_host_parallel(void*, void const*, std::size_t, int)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_copy_to_device_parallel(void*, void const*, std::size_t, int)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_copy_within(void*, void const*, std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_memset_zero(void*, std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_synchronize()
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_raise_flag(unsigned*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
struct DeviceUploadStream::Impl
{
};
DeviceUploadStream::DeviceUploadStream(std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
DeviceUploadStream::~DeviceUploadStream() = default;
void DeviceUploadStream::copy(void*, void const*, std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void DeviceUploadStream::finish()
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
