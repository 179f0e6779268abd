//! \file transport/engine/HistoryQueue.hh
//! Work grabbing for the persistent-thread kernel and the CPU backend: the
//! histories [begin, end) of a batch are handed out in chunks from one shared
//! 64-bit counter (an atomic add on the device, a GCC/Clang __atomic builtin on
//! the host). Which thread gets which chunk depends on timing; which histories
//! exist does not, so with a history-keyed RNG (Philox) and an associative
//! tally (FX) the result is independent of the launch configuration.
//!
//! On the GPU a stop request (SIGINT, SIGTERM) reaches a running kernel through
//! `stop`, a device word the host sets from another stream: a worker that sees it
//! grabs nothing more, finishes the histories it holds and returns, so the kernel
//! ends within about one history's time instead of at the end of the batch. The
//! counter then stays below `end`, which tells the host that the batch was cut.
//! (The CPU backend empties its queue instead, by exchanging the counter.)
#pragma once

#include <cstdint>

#include "core/Macros.hh"
#include "core/Types.hh"

namespace mcdose
{
struct HistoryQueueView
{
    unsigned long long* next{nullptr}; //!< shared counter (device or host memory)
    std::uint64_t end{0};              //!< one past the last history of the batch
    std::uint32_t chunk{1};            //!< histories per grab
    unsigned const* stop{nullptr};     //!< nonzero: grab nothing more (GPU; may be null)

    //! Grab the next chunk; false when the batch is exhausted or a stop was requested.
    MCDOSE_FORCEINLINE_FUNCTION bool grab(std::uint64_t& first, std::uint64_t& last) const
    {
        // Read through volatile: the host writes the word while the kernel runs.
        if (stop && *static_cast<unsigned const volatile*>(stop) != 0)
            return false;
#if MCDOSE_DEVICE_COMPILE
        unsigned long long const start = atomicAdd(next, static_cast<unsigned long long>(chunk));
#else
        unsigned long long const start =
            __atomic_fetch_add(next, static_cast<unsigned long long>(chunk), __ATOMIC_RELAXED);
#endif
        if (start >= end)
            return false;
        first = start;
        last = (start + chunk < end) ? start + chunk : end;
        return true;
    }
};
} // namespace mcdose
