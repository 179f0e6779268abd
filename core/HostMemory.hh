//! \file core/HostMemory.hh
//! Large host grids made ready on all cores. A new vector of a whole grid is
//! zero-filled (or filled) by one thread, and that first touch, one page fault
//! per 4 KiB, costs more than the fill itself (0.6-0.9 s per GB on the GPU
//! machine's host, where copying the same grid from the GPU took 0.09 s per GB:
//! benchmarks/host_grid.cu).
//! resize_on_all_cores reserves the memory, has the kernel map its pages from
//! all cores (madvise MADV_POPULATE_WRITE on disjoint pieces, Linux 5.14 or later;
//! without it the pages are mapped at the fill, as before), then fills it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "core/ParallelFor.hh"
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

//! `v` = n copies of `value`, a large grid's pages mapped on all cores first.
template <class T>
void resize_on_all_cores(std::vector<T>& v, std::size_t n, T const& value = T{}, int threads = 0)
{
    if (n * sizeof(T) >= prefault_min_bytes && v.capacity() < n)
    {
        std::vector<T>().swap(v);
        v.reserve(n);
        prefault_pages(v.data(), n * sizeof(T), threads);
    }
    v.assign(n, value);
}
} // namespace mcdose
