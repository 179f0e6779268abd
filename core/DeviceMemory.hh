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
void device_copy_to_host(void* dst, void const* src, std::size_t bytes);
void device_memset_zero(void* ptr, std::size_t bytes);
void device_synchronize();
} // namespace mcdose
