//! \file core/HostMemory.hh
//! Large host grids made ready on all cores. A new vector of a whole grid is
//! zero-filled (or filled) by one thread, and that first touch, one page fault
//! per 4 KiB, costs more than the fill itself (0.6-0.9 s per GB on the GPU
//! machine's host, where copying the same grid from the GPU took 0.09 s per GB:
//! benchmarks/host_grid.cu).
//! resize_on_all_cores reserves the memory, has the kernel map its pages from
//! all cores (madvise MADV_POPULATE_WRITE on disjoint pieces, Linux 5.14 or later;
//! without it the pages are mapped at the fill, as before), then fills it.
//! It can ask for 2 MiB pages; GridsAhead does all that on a thread of its own
//! while the caller goes on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <future>
#include <system_error>
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
 * `count` grids of n copies of `value` (resize_on_all_cores, the grids side by side)
 * made on a thread of their own while the caller goes on; take() hands them over,
 * waiting for them if need be. A GPU run's result grids are made so while it sets up
 * and transports, when the host cores are mostly idle, instead of after it. They ask for
 * huge pages: the mapping then holds up the caller's own work less (on an H200 host the
 * tables' step beside it took half as long), and a fragmented host's slower compaction
 * delays only the grids. Without a thread they are made at take(); a GridsAhead destroyed
 * before take() (a run that failed) first waits for its thread.
 */
template <class T>
class GridsAhead
{
  public:
    GridsAhead(std::size_t count, std::size_t n, T value = T{}, int threads = 0)
        : count_(count), n_(n), value_(value), threads_(threads)
    {
        try
        {
            ready_ = std::async(std::launch::async, [this] { return this->make(); });
        }
        catch (std::system_error const&)
        {
        }
    }
    GridsAhead(GridsAhead const&) = delete;
    GridsAhead& operator=(GridsAhead const&) = delete;

    std::size_t count() const { return count_; }
    std::size_t grid_size() const { return n_; }

    //! The grids, waited for (made here where no thread could be started). Once.
    std::vector<std::vector<T>> take()
    {
        if (ready_.valid())
            return ready_.get();
        return this->make();
    }

  private:
    std::vector<std::vector<T>> make() const
    {
        std::vector<std::vector<T>> grids(count_);
        parallel_for_each(count_, [&](size_type k)
                          { resize_on_all_cores(grids[k], n_, value_, threads_, true); });
        return grids;
    }

    std::size_t count_;
    std::size_t n_;
    T value_;
    int threads_;
    std::future<std::vector<std::vector<T>>> ready_;
};
} // namespace mcdose
