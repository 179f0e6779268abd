//! \file study/RunTransport.hh
//! The second stage of a study's run (run_study): the transport through its run-time
//! interface (run_transport, made from the set-up's TransportChoice), with the run's batch
//! hooks, each one object: the stop rule of a run to a target uncertainty (StopRule), the
//! phase space read per batch piece (the source, SourceMixParams) and the one written
//! (PhaseSpaceRecorder); checkpoints are written by the batch loop from the run options.
#pragma once

#include <string>

#include "dose/RunTimings.hh"
#include "study/RunSetup.hh"

namespace mcdose
{
//! What the transport stage hands to the finish.
struct TransportStage
{
    TransportRunResult run;
    StopReason stop_reason{StopReason::histories};
    std::string phase_space_file; //!< the phase space written ("": none)
};

//! Run the transport of `setup` (its sources are freed after it); the run's facts into
//! `summary`, its steps on `clock`.
TransportStage transport_run(RunSetup& setup, StepClock& clock, StudyRunSummary& summary);
} // namespace mcdose
