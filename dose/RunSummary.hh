//! \file dose/RunSummary.hh
//! Run summary: a JSON file for scripts and a one-screen text for people
//! (histories, time, histories/s, energy balance, uncertainty reached).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dose/DoseData.hh"

namespace mcdose
{
//! Summary as JSON text (keys documented in docs/output-files.md).
std::string run_summary_json(RunMetadata const& meta, DoseGridData const& data,
                             std::vector<std::string> const& output_files);

//! Write run_summary_json() atomically.
void write_run_summary_json(std::string const& path, RunMetadata const& meta,
                            DoseGridData const& data, std::vector<std::string> const& output_files);

//! Text lines of the dose report: the uncertainty reached over the summary
//! region with its definition, the near-maximum, the dose in low-density
//! voxels and outside the region, and each structure's figures; labels are
//! padded to `label_width` characters.
std::string dose_report_text(DoseReport const& report, std::optional<double> uncertainty_reached,
                             int label_width);

//! "phantom 0.41 s, structures 0.2 s, ...": the steps' wall times in the order they ran.
std::string step_times_text(std::vector<StepTime> const& steps);

//! One-screen text summary.
std::string run_summary_text(RunMetadata const& meta, DoseGridData const& data,
                             std::vector<std::string> const& output_files);
} // namespace mcdose
