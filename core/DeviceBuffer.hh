//! \file core/DeviceBuffer.hh
//! RAII owner of a typed device array with host copies.
#pragma once

#include <utility>
#include <vector>

#include "core/Assert.hh"
#include "core/DeviceMemory.hh"
#include "core/Span.hh"

namespace mcdose
{
//! Device array of trivially copyable T. Move-only.
template <class T>
class DeviceBuffer
{
    static_assert(std::is_trivially_copyable<T>::value, "device data must be trivially copyable");

  public:
    DeviceBuffer() = default;
    //! Allocate (uninitialised) storage for `count` elements.
    explicit DeviceBuffer(size_type count)
        : data_(static_cast<T*>(device_allocate(count * sizeof(T)))), size_(count)
    {
    }
    //! Allocate and copy a host array.
    explicit DeviceBuffer(Span<T const> host) : DeviceBuffer(host.size()) { copy_to_device(host); }
    explicit DeviceBuffer(std::vector<T> const& host) : DeviceBuffer(make_span(host)) {}

    ~DeviceBuffer() { device_free(data_); }
    DeviceBuffer(DeviceBuffer const&) = delete;
    DeviceBuffer& operator=(DeviceBuffer const&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept
    {
        DeviceBuffer tmp(std::move(other));
        swap(tmp);
        return *this;
    }
    void swap(DeviceBuffer& other) noexcept
    {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
    }

    size_type size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T* data() { return data_; }
    T const* data() const { return data_; }
    //! Device view (dereference only in device code).
    Span<T> device_span() { return {data_, size_}; }
    Span<T const> device_span() const { return {data_, size_}; }

    void copy_to_device(Span<T const> host)
    {
        MCDOSE_VALIDATE(host.size() == size_, << "device copy size mismatch: " << host.size()
                                              << " host elements for " << size_
                                              << " device elements");
        device_copy_to_device(data_, host.data(), size_ * sizeof(T));
    }
    //! The same from several host threads through pinned staging
    //! (device_copy_to_device_parallel).
    void copy_to_device_parallel(Span<T const> host, int threads = 0)
    {
        MCDOSE_VALIDATE(host.size() == size_, << "device copy size mismatch: " << host.size()
                                              << " host elements for " << size_
                                              << " device elements");
        device_copy_to_device_parallel(data_, host.data(), size_ * sizeof(T), threads);
    }
    void copy_to_host(Span<T> host) const
    {
        MCDOSE_VALIDATE(host.size() == size_, << "host copy size mismatch: " << host.size()
                                              << " host elements for " << size_
                                              << " device elements");
        device_copy_to_host(host.data(), data_, size_ * sizeof(T));
    }
    //! The same from several host threads through pinned staging (device_copy_to_host_parallel).
    void copy_to_host_parallel(Span<T> host, int threads = 0) const
    {
        MCDOSE_VALIDATE(host.size() == size_, << "host copy size mismatch: " << host.size()
                                              << " host elements for " << size_
                                              << " device elements");
        device_copy_to_host_parallel(host.data(), data_, size_ * sizeof(T), threads);
    }
    std::vector<T> to_host() const
    {
        std::vector<T> result(size_);
        copy_to_host(make_span(result));
        return result;
    }
    //! Copy another device array of the same size into this one (device to device).
    void copy_from(DeviceBuffer const& other)
    {
        MCDOSE_VALIDATE(other.size_ == size_, << "device copy size mismatch: " << other.size_
                                              << " elements for " << size_);
        device_copy_within(data_, other.data_, size_ * sizeof(T));
    }
    void zero() { device_memset_zero(data_, size_ * sizeof(T)); }

  private:
    T* data_{nullptr};
    size_type size_{0};
};
} // namespace mcdose
