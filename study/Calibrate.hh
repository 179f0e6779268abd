//! \file study/Calibrate.hh
//! `mcdose calibrate`: run a reference study (one source: the model to calibrate, in the
//! reference condition, e.g. a 10 x 10 cm^2 field at SSD 100 cm on a water phantom) and
//! make the calibration of its source model (dose/Calibration.hh) from the dose per source
//! particle at the reference point.
#pragma once

#include <string>

#include "core/Array3.hh"
#include "dose/Calibration.hh"
#include "study/StudyRunner.hh"

namespace mcdose
{
struct CalibrateOptions
{
    Real3 point_cm{{0, 0, 0}};             //!< reference point, phantom coordinates [cm]
    double radius_cm{0};                   //!< average over voxel centres within it (0: one voxel)
    double dose_per_monitor_unit_Gy{0.01}; //!< the machine's D_ref / MU (1 cGy/MU)
    std::string condition;                 //!< the reference condition in words
};

//! Run `study` (whose outputs are written as usual when run_options.write_outputs) and
//! return its source model's calibration. The study must have exactly one source, of type
//! pencil, parallel or point, without monitor units (InputError otherwise, before any
//! transport); the reference point must lie in the phantom.
DoseCalibration calibrate_source_model(StudyInput const& study, CalibrateOptions const& options,
                                       StudyRunOptions run_options, StudyRunSummary* summary);
} // namespace mcdose
