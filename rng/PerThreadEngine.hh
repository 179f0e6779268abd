//! \file rng/PerThreadEngine.hh
//! Common part of the engines with one independent state per thread: the
//! thread's state is copied into registers on construction and written back on
//! destruction (so engines are not copyable; pass them by reference).
#pragma once

#include <cstdint>

#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
template <class State>
class PerThreadEngine
{
  public:
    using result_type = std::uint32_t;

    PerThreadEngine(PerThreadEngine const&) = delete;
    PerThreadEngine& operator=(PerThreadEngine const&) = delete;

    //! The thread's stream does not depend on the history: nothing to do.
    MCDOSE_FUNCTION void begin_history(history_id_type) {}

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return 0xffffffffu; }

  protected:
    MCDOSE_FUNCTION PerThreadEngine(Span<State> states, size_type thread)
        : home_(&states[thread]), s_(*home_)
    {
    }
    MCDOSE_FUNCTION ~PerThreadEngine() { *home_ = s_; }

    State* home_;
    State s_; //!< working copy (registers / local memory)
};
} // namespace mcdose
