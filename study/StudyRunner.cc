//! \file study/StudyRunner.cc
//! A study's run in three stages that read top to bottom: the set-up (study/RunSetup.cc),
//! the transport (study/RunTransport.cc) and the finish (study/RunFinish.cc).
#include "study/StudyRunner.hh"

#include <ctime>
#include <iomanip>
#include <optional>
#include <sstream>

#include "core/StopRequest.hh"
#include "study/RunFinish.hh"
#include "study/RunSetup.hh"
#include "study/RunTransport.hh"

namespace mcdose
{
std::string utc_now_iso8601()
{
    std::time_t const t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::ostringstream os;
    os << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
    return os.str();
}

StudyRunSummary run_study(StudyInput const& study, StudyRunOptions const& options)
{
    StepClock clock;
    StudyRunSummary summary;
    // A stop asked for during the set-up ends it (StopRequested) with no output.
    std::optional<RunSetup> set_up;
    {
        ScopedStopPoll const poll(options.stop_requested);
        set_up.emplace(set_up_run(study, options, clock, summary));
    }
    RunSetup& setup = *set_up;
    TransportStage transport = transport_run(setup, clock, summary);
    finish_run(setup, transport, options, clock, summary);
    return summary;
}
} // namespace mcdose
