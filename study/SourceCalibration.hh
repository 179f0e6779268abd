//! \file study/SourceCalibration.hh
//! Monitor units to source particles through a calibration file (dose/Calibration.hh):
//! for each source with `monitor_units`,
//!
//!   particles = MU x (D_ref/MU) / d_ref x (extent / extent_ref) x monitor_backscatter_factor
//!
//! refused (InputError naming the source's `calibration`) when the file's source model is
//! not the source's (sources/SourceModel.hh) or the file cannot be read. The study reader
//! calls it, so `mcdose check` and `mcdose run` refuse a bad calibration before transport.
#pragma once

#include <string>
#include <vector>

#include "dose/Calibration.hh"
#include "dose/DoseData.hh"
#include "sources/SourceInput.hh"

namespace mcdose
{
//! Particles of one source from its monitor units and a calibration of its model.
double particles_from_monitor_units(SourceInput const& source, DoseCalibration const& c);

//! Set `particles` of every source that gives `monitor_units`, and describe where the
//! particles came from; `warnings` gets a note for a calibration made by another build.
AbsoluteDoseSource resolve_monitor_units(std::string const& study_file,
                                         std::vector<SourceInput>& sources,
                                         std::vector<std::string>& warnings);
} // namespace mcdose
