//! \file study/RunFinish.hh
//! The third stage of a study's run (run_study): the dose grids per source particle (dose
//! to water where asked), the dose report (the stop region's summary, DVH figures) and the
//! writers (HDF5, images, CSV, RT Dose, the run summary and the manifest); a GPU run's
//! devices released beside the writers.
#pragma once

#include "dose/RunTimings.hh"
#include "study/RunSetup.hh"
#include "study/RunTransport.hh"

namespace mcdose
{
//! Finish the run: the outputs where this rank writes, the report into `summary`.
void finish_run(RunSetup const& setup, TransportStage& stage, StudyRunOptions const& options,
                StepClock& clock, StudyRunSummary& summary);
} // namespace mcdose
