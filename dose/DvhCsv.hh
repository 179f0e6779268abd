//! \file dose/DvhCsv.hh
//! DVH outputs as CSV (documented in docs/output-files.md, "Dose-volume histograms"):
//! the cumulative DVH of every structure, and one row per figure.
#pragma once

#include <string>

#include "dose/DoseFigures.hh"

namespace mcdose
{
//! Columns: structure, dose (in the report's unit), volume_cm3, volume_percent.
std::string dvh_curves_csv(DoseReport const& report);
//! Columns: structure, figure, value, sigma, unit (sigma empty when unknown).
std::string dvh_figures_csv(DoseReport const& report);

//! Both files, atomically: `<stem>_dvh.csv` and `<stem>_dvh_figures.csv`.
//! Returns their paths.
std::vector<std::string> write_dvh_csv(std::string const& stem, DoseReport const& report);
} // namespace mcdose
