//! \file study/RunOutputs.hh
//! Write every output a study asks for (its "outputs" section).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dose/DoseData.hh"
#include "dose/DoseHdf5.hh"
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
//! the paths written. `hdf5`, when given, is the writer start_hdf5_output
//! returned for these outputs and data: the `.h5` file is finished from it
//! (its step "hdf5" is then the part of the file not made in the background,
//! and the images are written beside that part: their step "images" is what is
//! left of them when the file is done); without it the file is written here
//! whole.
std::vector<std::string> write_run_outputs(OutputInput const& outputs, DoseGridData const& data,
                                           RunMetadata& meta, DepthDoseCurve const* depth_dose,
                                           StepClock* clock = nullptr,
                                           DoseHdf5Writer* hdf5 = nullptr);

//! The writer of `outputs`' HDF5 file `<name>.h5` with its grid datasets under
//! way on a thread of its own (DoseHdf5Writer, from `grid_meta`'s version,
//! completeness, dose quantity and particle count), or null when outputs.hdf5 is
//! off. Nothing is written to disk before write_run_outputs finishes it; until
//! then the caller must not use HDF5. `data` must outlive the writer.
std::unique_ptr<DoseHdf5Writer> start_hdf5_output(OutputInput const& outputs,
                                                  DoseGridData const& data,
                                                  RunMetadata const& grid_meta);
} // namespace mcdose
