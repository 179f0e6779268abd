//! \file core/DeviceMemory.cc
#include "core/DeviceMemory.hh"

#include <cstdlib>
#include <iostream>

#include "core/Assert.hh"
#include "core/DeviceCall.hh"
#include "core/KernelImage.hh"

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

void device_copy_to_device_beside_kernels(void* dst, void const* src, std::size_t bytes)
{
    if (bytes == 0)
        return;
    OwnStream const own;
    MCDOSE_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, own.stream));
    MCDOSE_CUDA_CALL(cudaStreamSynchronize(own.stream));
}

void device_raise_flag(unsigned* flag)
{
    OwnStream const own;
    // Every byte 1: a nonzero word, with no host buffer to keep alive.
    MCDOSE_CUDA_CALL(cudaMemsetAsync(flag, 1, sizeof(unsigned), own.stream));
    MCDOSE_CUDA_CALL(cudaStreamSynchronize(own.stream));
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
void device_copy_to_device_beside_kernels(void*, void const*, std::size_t)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
void device_raise_flag(unsigned*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
