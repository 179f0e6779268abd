//! \file core/ParallelFor.hh
//! Host loops over large index ranges on all cores: the range is cut into
//! one contiguous piece per thread (piece t = [t n / T, (t+1) n / T)), so
//! which thread does which index depends only on n and T, and a caller that
//! combines per-thread partial results in thread order gets the same result
//! for a given T every time.
#pragma once

#include <algorithm>
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
    std::exception_ptr error;
    std::mutex error_mutex;
    auto guarded = [&](size_type t)
    {
        try
        {
            piece(t);
        }
        catch (...)
        {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error)
                error = std::current_exception();
        }
    };
    std::vector<std::thread> team;
    team.reserve(t_count - 1);
    for (size_type t = 1; t < t_count; ++t)
        team.emplace_back(guarded, t);
    guarded(0);
    for (auto& th : team)
        th.join();
    if (error)
        std::rethrow_exception(error);
}

} // namespace mcdose
