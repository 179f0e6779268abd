//! \file core/StopRequest.cc
#include "core/StopRequest.hh"

#include <atomic>
#include <utility>

namespace mcdose
{
namespace
{
std::atomic<std::function<bool()> const*> g_poll{nullptr};
} // namespace

ScopedStopPoll::ScopedStopPoll(std::function<bool()> poll)
    : poll_(std::move(poll)), previous_(g_poll.load())
{
    g_poll.store(poll_ ? &poll_ : nullptr);
}

ScopedStopPoll::~ScopedStopPoll()
{
    g_poll.store(previous_);
}

void poll_stop_request(char const* step)
{
    std::function<bool()> const* poll = g_poll.load();
    if (poll && (*poll)())
        throw StopRequested(step);
}
} // namespace mcdose
