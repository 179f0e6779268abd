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
 * Ask for 2 MiB pages over each whole 2 MiB page of [first, first + bytes) where at least half
 * of its 4 KiB pages will be written, before they are mapped: `written(offset)` says whether
 * the 4 KiB page at `offset` bytes from `first` will be. Where a page is first written
 * each fault costs far more than the bytes it maps (docs/history/benchmarks-2026.md): such
 * a stretch is then mapped in one fault instead of up to 512, and unmapped as fast, for at
 * most twice the memory of the 4 KiB pages written; sparser stretches keep 4 KiB pages. The
 * stretches are judged on `threads` host threads (0: all). Returns the bytes advised.
 */
template <class Written>
std::size_t advise_huge_pages_where_written(void* first, std::size_t bytes, Written&& written,
                                            int threads = 0)
{
    constexpr std::size_t huge = std::size_t(2) << 20, page = 4096;
    auto const base = reinterpret_cast<std::uintptr_t>(first);
    std::uintptr_t const begin = (base + huge - 1) / huge * huge;
    std::uintptr_t const end = (base + bytes) / huge * huge;
    if (end <= begin)
        return 0;
    size_type const stretches = (end - begin) / huge;
    std::vector<char> dense(stretches, 0);
    parallel_for_pieces(
        stretches, threads,
        [&](size_type s0, size_type s1, size_type)
        {
            for (size_type s = s0; s < s1; ++s)
            {
                std::size_t const offset = begin + s * huge - base;
                size_type pages = 0;
                for (std::size_t p = 0; p < huge; p += page)
                    pages += written(offset + p) ? 1 : 0;
                dense[s] = 2 * pages >= huge / page;
            }
        },
        size_type(8));
    std::size_t advised = 0;
    for (size_type s = 0; s < stretches;)
    {
        size_type run = s;
        while (run < stretches && dense[run])
            ++run;
        if (run > s)
        {
            advise_huge_pages(reinterpret_cast<void*>(begin + s * huge), (run - s) * huge);
            advised += (run - s) * huge;
        }
        s = run + 1;
    }
    return advised;
}

/*!
 * `v` = n copies of `value`, a large grid's pages mapped on all cores first; with
 * `huge_pages`, in 2 MiB pages where the kernel has them (fewer faults, but where the
 * host's memory is fragmented the kernel compacts it first, which can take longer than
 * 4 KiB pages: docs/history/benchmarks-2026.md).
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
