//! \file study/RunOutputs.hh
//! Write every output a study asks for (its "outputs" section).
#pragma once

#include <string>
#include <vector>

#include "dose/DoseData.hh"
#include "dose/ProfileCsv.hh"
#include "dose/RunTimings.hh"
#include "study/StudyInput.hh"

namespace mcdose
{
//! Write, into outputs.directory (created if missing), the files named
//! `<name>.h5`, `<name>_dose.<fmt>`, `<name>_uncertainty.<fmt>`, the RT Dose
//! files `<name>_dose.dcm` and `<name>_uncertainty.dcm`,
//! `<name>_depth_dose.csv`, `<name>_<profile>.csv` and `<name>_summary.json`
//! that `outputs` enables. `depth_dose` (with its batch or history
//! uncertainty, see ProfileCsv.hh) is required when outputs.depth_dose is
//! set. Each file is written atomically. Each writer's time is booked as a
//! step on `clock` (a clock of its own when null), and the summary reports the
//! clock's steps (`meta.steps` is set to them before it is written). Returns
//! the paths written.
std::vector<std::string> write_run_outputs(OutputInput const& outputs, DoseGridData const& data,
                                           RunMetadata& meta, DepthDoseCurve const* depth_dose,
                                           StepClock* clock = nullptr);
} // namespace mcdose
