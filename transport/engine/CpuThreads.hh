//! \file transport/engine/CpuThreads.hh
//! The CPU backend's thread team: run f(thread_index) on n std::threads and
//! rethrow the first exception after all have joined.
#pragma once

#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/Assert.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Number of CPU worker threads: `requested` if > 0, else all hardware threads.
inline int resolve_cpu_threads(int requested)
{
    MCDOSE_VALIDATE(requested >= 0,
                    << "'threads' must be 0 (all cores) or positive (got " << requested << ")");
    if (requested > 0)
        return requested;
    unsigned const hw = std::thread::hardware_concurrency();
    return hw > 0 ? static_cast<int>(hw) : 1;
}

template <class F>
void run_cpu_threads(int num_threads, F&& f)
{
    std::exception_ptr error;
    std::mutex error_mutex;
    auto body = [&](int t)
    {
        try
        {
            f(static_cast<size_type>(t));
        }
        catch (...)
        {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error)
                error = std::current_exception();
        }
    };
    if (num_threads == 1)
    {
        body(0);
    }
    else
    {
        std::vector<std::thread> team;
        std::string start_error;
        try
        {
            team.reserve(num_threads);
            for (int t = 0; t < num_threads; ++t)
                team.emplace_back(body, t);
        }
        catch (std::exception const& e)
        {
            // No thread may be left joinable (std::terminate): join those
            // started, then report what was asked.
            start_error = e.what();
        }
        for (auto& th : team)
            th.join();
        MCDOSE_VALIDATE(start_error.empty(),
                        << "cannot start CPU thread " << team.size() + 1 << " of " << num_threads
                        << " (" << start_error
                        << "); ask for fewer threads (--threads or \"cpu_threads\") or raise "
                           "the limits of the job (ulimit -u, ulimit -v)");
    }
    if (error)
        std::rethrow_exception(error);
}
} // namespace mcdose
