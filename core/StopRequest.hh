//! \file core/StopRequest.hh
//! A stop request (e.g. Ctrl-C) seen by long set-up steps: while a ScopedStopPoll is alive,
//! poll_stop_request() asks its function and throws StopRequested when it says stop, so
//! that a step that would take long (rasterising a large contour, building tables) ends
//! within a moment and the run ends with no output.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace mcdose
{
//! A step ended because a stop was requested; nothing of the run was written.
class StopRequested : public std::runtime_error
{
  public:
    explicit StopRequested(std::string const& step)
        : std::runtime_error("stopped on request during " + step + "; nothing was written")
    {
    }
};

//! While alive, poll_stop_request() asks `poll` (null or empty: nothing). One at a time
//! per process; the previous one is restored at its end.
class ScopedStopPoll
{
  public:
    explicit ScopedStopPoll(std::function<bool()> poll);
    ~ScopedStopPoll();
    ScopedStopPoll(ScopedStopPoll const&) = delete;
    ScopedStopPoll& operator=(ScopedStopPoll const&) = delete;

  private:
    std::function<bool()> poll_;
    std::function<bool()> const* previous_;
};

//! Throws StopRequested naming `step` if the installed poll asks to stop (any thread).
void poll_stop_request(char const* step);
} // namespace mcdose
