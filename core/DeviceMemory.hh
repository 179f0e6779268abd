//! \file core/DeviceMemory.hh
//! Untyped device-memory calls. They throw a clear "built without CUDA" error
//! in a CPU-only build; DeviceBuffer wraps them with types and RAII.
#pragma once

#include <cstddef>

namespace mcdose
{
void* device_allocate(std::size_t bytes);
void device_free(void* ptr) noexcept;
void device_copy_to_device(void* dst, void const* src, std::size_t bytes);
//! The same copy on a stream of its own that does not wait for the default stream, so
//! that it runs beside a kernel there (e.g. the next batch's source particles while a
//! batch is transported); returns when the copy is done. Call with `dst`'s device current.
void device_copy_to_device_beside_kernels(void* dst, void const* src, std::size_t bytes);
void device_copy_to_host(void* dst, void const* src, std::size_t bytes);
void device_copy_within(void* dst, void const* src, std::size_t bytes); //!< device to device
void device_memset_zero(void* ptr, std::size_t bytes);
void device_synchronize();
//! Set the device word at `flag` to nonzero from a stream of its own that does not wait
//! for the default stream, so that a kernel running there sees it (a stop request);
//! returns when the write is done. Call with the word's device current.
void device_raise_flag(unsigned* flag);
} // namespace mcdose
