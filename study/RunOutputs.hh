//! \file study/RunOutputs.hh
//! Write every output a study asks for (its "outputs" section).
#pragma once

#include <string>
#include <vector>

#include "dose/DoseData.hh"
#include "dose/ProfileCsv.hh"
#include "study/StudyInput.hh"

namespace mcdose
{
//! Write, into outputs.directory (created if missing), the files named
//! `<name>.h5`, `<name>_dose.<fmt>`, `<name>_uncertainty.<fmt>`, the RT Dose
//! files `<name>_dose.dcm` and `<name>_uncertainty.dcm`,
//! `<name>_depth_dose.csv`, `<name>_<profile>.csv` and `<name>_summary.json`
//! that `outputs` enables. `depth_dose` (with its batch or history
//! uncertainty, see ProfileCsv.hh) is required when outputs.depth_dose is
//! set. Each file is written atomically. Returns the paths written.
std::vector<std::string> write_run_outputs(OutputInput const& outputs, DoseGridData const& data,
                                           RunMetadata const& meta,
                                           DepthDoseCurve const* depth_dose);
} // namespace mcdose
