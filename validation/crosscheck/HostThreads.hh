//! \file validation/crosscheck/HostThreads.hh
//! The CPU backends' fork-join: run worker(t) for t = 0 .. threads-1, t = 0 on
//! the calling thread.
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

namespace mcdose::crosscheck
{
//! Threads to use: `requested`, or every hardware thread when 0.
inline unsigned resolve_threads(unsigned requested)
{
    return requested ? requested : std::max(1u, std::thread::hardware_concurrency());
}

template <class F>
void run_on_threads(unsigned threads, F&& worker)
{
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker, t);
    worker(0u);
    for (auto& th : pool)
        th.join();
}
} // namespace mcdose::crosscheck
