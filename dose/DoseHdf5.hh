//! \file dose/DoseHdf5.hh
//! The HDF5 result file. Names are stable (scripts rely on them); the layout is
//! documented in docs/study-format.md ("Outputs"):
//! - datasets `dose` [Gy per source particle], `dose_Gy` [Gy, only when the
//!   source gives a particle count], `dose_uncertainty` [relative, 1 sigma],
//!   `edep` [MeV per source particle], `density` [g/cm^3], `material`
//!   [index; attribute `names`], all shaped (nz, ny, nx) (C order, i fastest
//!   in the flat array), each with attributes `units`, `spacing_cm`,
//!   `origin_cm` (x, y, z order) and `direction`;
//! - group `input`: dataset `study_json` (the full input) and attribute `study_file`;
//! - group `run`: attributes version, seed, generator, tally method, precision,
//!   backend, histories, timing, stop reason, uncertainty reached, energy balance.
//! HDF5 headers stay in DoseHdf5.cc.
#pragma once

#include <string>

#include "dose/DoseData.hh"

namespace mcdose
{
//! Write the result file through a temporary file renamed on success.
void write_dose_hdf5(std::string const& path, DoseGridData const& data, RunMetadata const& meta);
} // namespace mcdose
