//! \file core/HostMemory.hh
//! Large host grids made ready on all cores. A new vector of a whole grid is
//! zero-filled (or filled) by one thread, and that first touch, one page fault
//! per 4 KiB, costs more than the fill itself (0.6-0.9 s per GB on the GPU
//! machine's host, where copying the same grid from the GPU took 0.09 s per GB:
//! benchmarks/host_grid.cu).
//! resize_on_all_cores reserves the memory, has the kernel map its pages from
//! all cores (madvise MADV_POPULATE_WRITE on disjoint pieces, Linux 5.14 or later;
//! without it the pages are mapped at the fill, as before), then fills it.
//! It can ask for 2 MiB pages. A grid mostly left at zero is better made as a
//! ZeroedArray, whose pages are mapped only where written.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "core/ParallelFor.hh"
#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Grids smaller than this are filled as usual (the threads would cost more).
inline constexpr std::size_t prefault_min_bytes = std::size_t(64) << 20;

//! Map the pages of [first, first + bytes) from `threads` host threads (0: all). Advice:
//! where the kernel cannot, nothing happens and the pages are mapped when first written.
inline void prefault_pages(void* first, std::size_t bytes, int threads = 0)
{
#ifdef MADV_POPULATE_WRITE
    std::size_t const page = std::size_t(sysconf(_SC_PAGESIZE));
    auto const begin = (reinterpret_cast<std::uintptr_t>(first) + page - 1) / page * page;
    auto const end = (reinterpret_cast<std::uintptr_t>(first) + bytes) / page * page;
    if (end <= begin)
        return;
    size_type const pages = (end - begin) / page;
    parallel_for_pieces(
        pages, threads,
        [&](size_type p0, size_type p1, size_type) {
            madvise(reinterpret_cast<void*>(begin + p0 * page), (p1 - p0) * page,
                    MADV_POPULATE_WRITE);
        },
        size_type(4096));
#else
    (void)first;
    (void)bytes;
    (void)threads;
#endif
}

//! Ask for transparent huge pages (2 MiB) over the whole 2 MiB pages of [first, first +
//! bytes), before they are mapped. Advice: where the kernel cannot, nothing happens.
inline void advise_huge_pages(void* first, std::size_t bytes)
{
#ifdef MADV_HUGEPAGE
    std::size_t const huge = std::size_t(2) << 20;
    auto const begin = (reinterpret_cast<std::uintptr_t>(first) + huge - 1) / huge * huge;
    auto const end = (reinterpret_cast<std::uintptr_t>(first) + bytes) / huge * huge;
    if (end > begin)
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)first;
    (void)bytes;
#endif
}

/*!
 * `v` = n copies of `value`, a large grid's pages mapped on all cores first; with
 * `huge_pages`, in 2 MiB pages where the kernel has them (fewer faults, but where the
 * host's memory is fragmented the kernel compacts it first, which can take longer than
 * 4 KiB pages: docs/benchmarks.md).
 */
template <class T>
void resize_on_all_cores(std::vector<T>& v, std::size_t n, T const& value = T{}, int threads = 0,
                         bool huge_pages = false)
{
    if (n * sizeof(T) >= prefault_min_bytes && v.capacity() < n)
    {
        std::vector<T>().swap(v);
        v.reserve(n);
        if (huge_pages)
            advise_huge_pages(v.data(), n * sizeof(T));
        prefault_pages(v.data(), n * sizeof(T), threads);
    }
    v.assign(n, value);
}

/*!
 * n values of zero (T trivially copyable, all bits zero) whose memory is mapped where it
 * is first written: a large array is the kernel's zero pages until then (calloc of an
 * mmap'd block), so a grid written at few voxels costs time and memory only for the pages
 * written. A std::vector writes every value, mapping every page. Move-only.
 */
template <class T>
class ZeroedArray
{
    static_assert(std::is_trivially_copyable<T>::value, "ZeroedArray holds plain values");

  public:
    ZeroedArray() = default;
    explicit ZeroedArray(std::size_t n) : size_(n)
    {
        if (n == 0)
            return;
        data_ = static_cast<T*>(std::calloc(n, sizeof(T)));
        if (!data_)
            throw std::bad_alloc();
    }
    ZeroedArray(ZeroedArray&& other) noexcept { this->swap(other); }
    ZeroedArray& operator=(ZeroedArray&& other) noexcept
    {
        ZeroedArray tmp(std::move(other));
        this->swap(tmp);
        return *this;
    }
    ZeroedArray(ZeroedArray const&) = delete;
    ZeroedArray& operator=(ZeroedArray const&) = delete;
    ~ZeroedArray() { std::free(data_); }

    void swap(ZeroedArray& other) noexcept
    {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
    }
    std::size_t size() const { return size_; }
    T* data() { return data_; }
    T const* data() const { return data_; }
    T& operator[](std::size_t i) { return data_[i]; }
    T const& operator[](std::size_t i) const { return data_[i]; }
    Span<T> span() { return {data_, size_}; }
    Span<T const> span() const { return {data_, size_}; }

  private:
    T* data_{nullptr};
    std::size_t size_{0};
};
} // namespace mcdose
