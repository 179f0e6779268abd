//! \file core/ParallelFor.hh
//! Host loops on all cores. parallel_for_pieces cuts a large index range into
//! one contiguous piece per thread (piece t = [t n / T, (t+1) n / T)), so
//! which thread does which index depends only on n and T, and a caller that
//! combines per-thread partial results in thread order gets the same result
//! for a given T every time. parallel_for_each hands out single indices as
//! threads become free, for items of uneven cost that each write only their
//! own result (then the result depends on neither the thread count nor the order).
//! parallel_block_sum adds up over fixed blocks of indices, each computed by whichever
//! thread is free next, in block order: a result the same for every thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/Types.hh"

namespace mcdose
{
//! Threads for a host loop: `requested` if > 0, else all hardware threads.
inline int host_loop_threads(int requested)
{
    if (requested > 0)
        return requested;
    unsigned const hw = std::thread::hardware_concurrency();
    return hw > 0 ? static_cast<int>(hw) : 1;
}

//! Number of pieces parallel_for_pieces makes for these arguments.
inline size_type parallel_pieces(size_type n, int threads, size_type min_piece = 65536)
{
    size_type const t_max = std::max<size_type>(1, (n + min_piece - 1) / min_piece);
    return std::min<size_type>(t_max, static_cast<size_type>(host_loop_threads(threads)));
}

namespace detail
{
//! Call work(t) for t in [0, t_count), t = 0 on the calling thread and each other t on a
//! thread of its own; rethrow the first exception after all have finished.
template <class W>
void run_team(size_type t_count, W&& work)
{
    std::exception_ptr error;
    std::mutex error_mutex;
    auto guarded = [&](size_type t)
    {
        try
        {
            work(t);
        }
        catch (...)
        {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error)
                error = std::current_exception();
        }
    };
    std::vector<std::thread> team;
    team.reserve(t_count > 0 ? t_count - 1 : 0);
    for (size_type t = 1; t < t_count; ++t)
        team.emplace_back(guarded, t);
    guarded(0);
    for (auto& th : team)
        th.join();
    if (error)
        std::rethrow_exception(error);
}
} // namespace detail

//! Call f(begin, end, t) for the T contiguous pieces of [0, n), piece t on
//! its own thread (the calling thread does piece 0); pieces shorter than
//! `min_piece` are merged so small loops stay on one thread. Rethrows the
//! first exception after all pieces have finished.
template <class F>
void parallel_for_pieces(size_type n, int threads, F&& f, size_type min_piece = 65536)
{
    size_type const t_count = parallel_pieces(n, threads, min_piece);
    auto piece = [&](size_type t) { f(t * n / t_count, (t + 1) * n / t_count, t); };
    if (t_count == 1)
    {
        piece(0);
        return;
    }
    detail::run_team(t_count, piece);
}

//! Call f(i) for every i in [0, n) on `threads` threads (0: all hardware threads), each
//! index taken by the next free thread (the calling thread works too): work that is
//! uneven across [0, n) is shared evenly. A thread whose f throws takes no more indices;
//! the first exception is rethrown after all threads have finished.
template <class F>
void parallel_for_each(size_type n, F&& f, int threads = 0)
{
    std::atomic<size_type> next{0};
    size_type const t_count = std::min<size_type>(n, host_loop_threads(threads));
    if (t_count <= 1)
    {
        for (size_type i = 0; i < n; ++i)
            f(i);
        return;
    }
    detail::run_team(t_count,
                     [&](size_type)
                     {
                         for (size_type i = next++; i < n; i = next++)
                             f(i);
                     });
}

//! Indices per block of parallel_block_sum (a constant: the blocks, and so the sums, do
//! not depend on the thread count).
inline constexpr size_type sum_block_size = size_type(1) << 16;

namespace detail
{
/*!
 * The blocks of `block` indices of [0, n), at most `round` (0: all) at a time: part(begin,
 * end, acc) adds a block into `acc`, a fresh copy of `zero`, on whichever of `threads`
 * threads is free next (a grid's work is often where its dose is: a few blocks' worth);
 * then merge_round(acc, count) takes the round's `count` accumulators, in block order.
 * With `merge_clears`, merge_round leaves them as `zero` itself (no copy of it per block).
 */
template <class T, class Part, class MergeRound>
void block_rounds(size_type n, int threads, T const& zero, Part&& part, MergeRound&& merge_round,
                  size_type block, size_type round, bool merge_clears = false)
{
    size_type const blocks = (n + block - 1) / block;
    size_type const per_round = round > 0 ? std::min(round, blocks) : blocks;
    std::vector<T> acc(per_round, zero);
    for (size_type first = 0; first < blocks; first += per_round)
    {
        size_type const count = std::min(per_round, blocks - first);
        parallel_for_each(
            count,
            [&](size_type b)
            {
                size_type const begin = (first + b) * block;
                if (first > 0 && !merge_clears)
                    acc[b] = zero;
                part(begin, std::min(n, begin + block), acc[b]);
            },
            threads);
        merge_round(acc, count);
    }
}
} // namespace detail

/*!
 * A sum over [0, n) that is bit for bit the same for any thread count: [0, n) is cut
 * into blocks of `block` indices (the last one shorter); part(begin, end, acc) adds the
 * block [begin, end) into `acc`, a fresh copy of `zero`, on any of `threads` threads
 * (0: all hardware threads); merge(total, acc) then adds each block's `acc` into the
 * result, a copy of `zero`, in block order on the calling thread. At most `round`
 * blocks' accumulators are held at once (0: all), for large ones (histograms, lists).
 */
template <class T, class Part, class Merge>
T parallel_block_sum(size_type n, int threads, T const& zero, Part&& part, Merge&& merge,
                     size_type block = sum_block_size, size_type round = 0)
{
    T total = zero;
    detail::block_rounds(
        n, threads, zero, part,
        [&](std::vector<T> const& acc, size_type count)
        {
            for (size_type b = 0; b < count; ++b)
                merge(total, acc[b]);
        },
        block, round);
    return total;
}

/*!
 * One block's bins of parallel_block_histogram: `width` doubles, 0 but where add() put
 * something, with the pages (512 doubles) it wrote marked, so that the merge reads and
 * clears only those: a block of a sparse grid writes few of a large histogram's bins.
 */
class HistogramBlock
{
  public:
    static constexpr size_type page = 512;

    explicit HistogramBlock(size_type width)
        : bins_(width, 0.0), written_((width + page - 1) / page, 0)
    {
    }
    //! Adds w to bin x.
    void add(size_type x, double w)
    {
        bins_[x] += w;
        written_[x / page] = 1;
    }
    //! Bins [x0, x1) of page p: total[x] += bin x where the page was written, then 0.
    void move_page_into(size_type p, size_type x0, size_type x1, double* total)
    {
        if (!written_[p])
            return;
        for (size_type x = x0; x < x1; ++x)
        {
            total[x] += bins_[x];
            bins_[x] = 0;
        }
        written_[p] = 0;
    }

  private:
    std::vector<double> bins_;
    std::vector<unsigned char> written_;
};

/*!
 * parallel_block_sum of `width` doubles per block added element by element (histograms):
 * part(begin, end, acc) adds the block [begin, end) into `acc` (a HistogramBlock of width
 * zeros). Each element adds the blocks in block order, as parallel_block_sum's merge would
 * (a bin no add() touched holds 0 and is skipped: adding it would change nothing), so the
 * sums are the same bit for bit for any thread count; the adding is itself shared among
 * the threads, pages apiece. At most `round` blocks are held at once (0: all).
 */
template <class Part>
std::vector<double> parallel_block_histogram(size_type n, int threads, size_type width, Part&& part,
                                             size_type block = sum_block_size, size_type round = 0)
{
    std::vector<double> total(width, 0.0);
    size_type const pages = (width + HistogramBlock::page - 1) / HistogramBlock::page;
    detail::block_rounds(
        n, threads, HistogramBlock(width), part,
        [&](std::vector<HistogramBlock>& acc, size_type count)
        {
            parallel_for_pieces(
                pages, threads,
                [&](size_type p0, size_type p1, size_type)
                {
                    for (size_type b = 0; b < count; ++b)
                    {
                        for (size_type p = p0; p < p1; ++p)
                            acc[b].move_page_into(p, p * HistogramBlock::page,
                                                  std::min(width, (p + 1) * HistogramBlock::page),
                                                  total.data());
                    }
                },
                8);
        },
        block, round, true);
    return total;
}
} // namespace mcdose
