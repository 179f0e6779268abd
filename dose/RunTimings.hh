//! \file dose/RunTimings.hh
//! Where a run's wall time went: one entry per step (phantom, structures,
//! physics tables, transport, dose report, each output file), in the order the
//! steps ran, as the run summary reports them (docs/output-files.md, "Run summary").
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace mcdose
{
//! Wall-clock seconds of one step of a run.
struct StepTime
{
    std::string step; //!< e.g. "phantom", "transport", "hdf5"
    double seconds{0};
};

//! Books the wall time between marks as named steps.
class StepClock
{
  public:
    using Clock = std::chrono::steady_clock;

    StepClock() : start_(Clock::now()), last_(start_) {}

    //! Book the time since the previous mark (or the clock's start) as `step`.
    void mark(std::string step)
    {
        auto const now = Clock::now();
        steps_.push_back({std::move(step), std::chrono::duration<double>(now - last_).count()});
        last_ = now;
    }

    //! Book the time since the previous mark as `first` and then `parts`, seconds measured
    //! inside it in that order: `first` gets what the parts leave.
    void mark_parts(std::string first, std::vector<StepTime> parts)
    {
        auto const now = Clock::now();
        double rest = std::chrono::duration<double>(now - last_).count();
        for (StepTime const& p : parts)
            rest -= p.seconds;
        steps_.push_back({std::move(first), std::max(0.0, rest)});
        for (StepTime& p : parts)
            steps_.push_back(std::move(p));
        last_ = now;
    }

    //! Seconds since the clock started (booked or not).
    double total_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

    std::vector<StepTime> const& steps() const { return steps_; }

  private:
    Clock::time_point start_;
    Clock::time_point last_;
    std::vector<StepTime> steps_;
};
} // namespace mcdose
