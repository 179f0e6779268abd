//! \file transport/engine/HistoryQueue.hh
//! Work grabbing for the persistent-thread kernel and the CPU backend: the
//! histories [begin, end) of a batch are handed out in chunks from one shared
//! 64-bit counter (an atomic add on the device, a GCC/Clang __atomic builtin on
//! the host). Which thread gets which chunk depends on timing; which histories
//! exist does not, so with a history-keyed RNG (Philox) and an associative
//! tally (FX) the result is independent of the launch configuration.
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

    //! Grab the next chunk; false when the batch is exhausted.
    MCDOSE_FORCEINLINE_FUNCTION bool grab(std::uint64_t& first, std::uint64_t& last) const
    {
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
