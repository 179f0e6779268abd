//! \file core/ParallelFor.hh
//! Host loops on all cores. parallel_for_pieces cuts a large index range into
//! one contiguous piece per thread (piece t = [t n / T, (t+1) n / T)), so
//! which thread does which index depends only on n and T, and a caller that
//! combines per-thread partial results in thread order gets the same result
//! for a given T every time. parallel_for_each hands out single indices as
//! threads become free, for items of uneven cost that each write only their
//! own result (then the result depends on neither the thread count nor the order).
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

//! Call f(i) for every i in [0, n) on all hardware threads, each index taken by the
//! next free thread (the calling thread works too). A thread whose f throws takes no
//! more indices; the first exception is rethrown after all threads have finished.
template <class F>
void parallel_for_each(size_type n, F&& f)
{
    std::atomic<size_type> next{0};
    detail::run_team(std::min<size_type>(n, host_loop_threads(0)),
                     [&](size_type)
                     {
                         for (size_type i = next++; i < n; i = next++)
                             f(i);
                     });
}
} // namespace mcdose
