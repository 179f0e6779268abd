//! \file core/DeviceMemory.hh
//! Untyped device-memory calls. They throw a clear "built without CUDA" error
//! in a CPU-only build; DeviceBuffer wraps them with types and RAII.
#pragma once

#include <cstddef>
#include <memory>

namespace mcdose
{
void* device_allocate(std::size_t bytes);
void device_free(void* ptr) noexcept;
void device_copy_to_device(void* dst, void const* src, std::size_t bytes);
void device_copy_to_host(void* dst, void const* src, std::size_t bytes);
/*!
 * The same from up to `threads` host threads (0: all, at most 8), each a piece of the
 * copy through two pinned staging buffers of its own, on a stream of its own: the driver
 * copies to pageable memory one copy at a time for the whole process (about 11 GB/s on
 * H100 machines' hosts: benchmarks/host_grid.cu). A copy under 32 MiB is made at once.
 * Call with the source's device current.
 */
void device_copy_to_host_parallel(void* dst, void const* src, std::size_t bytes, int threads = 0);
/*!
 * From the host to the device: a copy of 32 MiB to 1 GiB from the host memory pinned where
 * it is, for that copy (a 512^3 phantom's 0.8 GB in 2 MiB pages: 0.05-0.06 s on H100 and
 * H200 machines' hosts, against 0.12-0.14 s through the lanes below on one of them:
 * benchmarks/host_grid.cu); a larger one, or one that cannot be pinned, as above (each
 * thread a DeviceUploadStream): the driver stages a copy from pageable memory one copy at
 * a time for the whole process.
 */
void device_copy_to_device_parallel(void* dst, void const* src, std::size_t bytes, int threads = 0);
void device_copy_within(void* dst, void const* src, std::size_t bytes); //!< device to device
void device_memset_zero(void* ptr, std::size_t bytes);
void device_synchronize();
//! Set the device word at `flag` to nonzero from a stream of its own that does not wait
//! for the default stream, so that a kernel running there sees it (a stop request);
//! returns when the write is done. Call with the word's device current.
void device_raise_flag(unsigned* flag);

/*!
 * Copies from one host thread to its device beside the kernels (on a stream of its
 * own that does not wait for the default stream: e.g. the next batch's source
 * particles while a batch is transported), through two pinned staging buffers
 * that it fills in turn. The driver stages a copy from pageable memory itself,
 * one copy at a time for the whole process: 5.5-6.6 GB/s from 16 threads on H100
 * machines' hosts, against 47-50 GB/s from pinned memory (benchmarks/phase_space_read.cu).
 * Make and use it with the device current; one thread at a time.
 */
class DeviceUploadStream
{
  public:
    //! Staging buffers of `staging_bytes` each (pinned host memory).
    explicit DeviceUploadStream(std::size_t staging_bytes);
    //! Waits for the copies under way.
    ~DeviceUploadStream();
    DeviceUploadStream(DeviceUploadStream const&) = delete;
    DeviceUploadStream& operator=(DeviceUploadStream const&) = delete;

    //! Start copying host [src, src + bytes) to device memory at `dst`; `src` may be
    //! reused on return (its bytes are staged), `dst` only after finish().
    void copy(void* dst, void const* src, std::size_t bytes);
    //! Wait until every copy started has reached the device.
    void finish();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};
} // namespace mcdose
