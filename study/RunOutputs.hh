//! \file study/RunOutputs.hh
//! Write every output a study asks for (its "outputs" section).
#pragma once

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "core/OutputSet.hh"
#include "dose/DoseData.hh"
#include "dose/DoseHdf5.hh"
#include "dose/ProfileCsv.hh"
#include "dose/RunTimings.hh"
#include "study/StudyInput.hh"

namespace mcdose
{
/*!
 * The outputs made from the final grids alone, started beside the dose report (which
 * they do not need): the HDF5 file's grid datasets (its DoseHdf5Writer, from
 * `grid_meta`'s version, completeness, dose quantity and particle count) where
 * outputs.hdf5 is on, and the dose and uncertainty images where outputs.image_format
 * is not "none", each on a thread of its own. write_run_outputs finishes them; until
 * then the caller must not use HDF5. Nothing of them is in place before then: the HDF5
 * file is built in memory, and the images are written atomically (core/AtomicFile.hh),
 * within the run's output set (core/OutputSet.hh) where one holds their names, so that
 * outputs abandoned (e.g. by a failed report) leave nothing. `data` must outlive this.
 */
class StartedOutputs
{
  public:
    StartedOutputs(OutputInput const& outputs, DoseGridData const& data,
                   RunMetadata const& grid_meta);
    StartedOutputs(StartedOutputs const&) = delete;
    StartedOutputs& operator=(StartedOutputs const&) = delete;
    ~StartedOutputs();

    //! The HDF5 file's writer (null without an HDF5 file).
    DoseHdf5Writer* hdf5() const { return hdf5_.get(); }
    //! Are the images under way (and not taken yet)?
    bool has_images() const { return images_.valid(); }
    //! The images, waited for (their error, if any, thrown here); returns their
    //! paths. Once.
    std::vector<std::string> take_images();
    //! Waits for the images (the outputs failed: the output set removes them).
    void discard_images() noexcept;

  private:
    std::unique_ptr<DoseHdf5Writer> hdf5_;
    std::unique_ptr<OutputSet> images_set_; //!< where no run's set holds the images
    std::future<std::vector<std::string>> images_;
};

//! Write, into outputs.directory (created if missing), the files named
//! `<name>.h5`, `<name>_dose.<fmt>`, `<name>_uncertainty.<fmt>`, the RT Dose
//! files `<name>_dose.dcm` and `<name>_uncertainty.dcm`,
//! `<name>_depth_dose.csv`, `<name>_<profile>.csv` and `<name>_summary.json`
//! that `outputs` enables. `depth_dose` (with its batch or history
//! uncertainty, see ProfileCsv.hh) is required when outputs.depth_dose is
//! set. Each file is written atomically. Each writer's time is booked as a
//! step on `clock` (a clock of its own when null), and the summary reports the
//! clock's steps (`meta.steps` is set to them before it is written). Returns
//! the paths written. `started`, when given, holds what was started for these
//! outputs and data: the `.h5` file is finished from its writer (the step "hdf5"
//! is then the part of the file not made beforehand) and the images are taken
//! from it (the step "images" is what is left of them when the file is done);
//! without it both are written here whole. Where the HDF5 file fails, the images
//! started beside it are removed.
std::vector<std::string> write_run_outputs(OutputInput const& outputs, DoseGridData const& data,
                                           RunMetadata& meta, DepthDoseCurve const* depth_dose,
                                           StepClock* clock = nullptr,
                                           StartedOutputs* started = nullptr);
} // namespace mcdose
