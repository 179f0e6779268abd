//! \file study/RunOutputs.cc
#include "study/RunOutputs.hh"

#include <filesystem>
#include <future>

#include "core/Assert.hh"
#include "dose/DoseHdf5.hh"
#include "dose/DoseImages.hh"
#include "dose/DvhCsv.hh"
#include "dose/RtDose.hh"
#include "dose/RunSummary.hh"

namespace mcdose
{
namespace
{
//! The outputs' paths without their endings: `<directory>/<name>`.
std::string output_stem(OutputInput const& outputs)
{
    return (std::filesystem::path(outputs.directory) / outputs.name).string();
}

//! Waits for the images written beside the HDF5 file and removes them (the file failed:
//! the images appear only with it, as when they are written after it).
void discard_images(std::future<std::vector<std::string>>& images)
{
    if (!images.valid())
        return;
    try
    {
        for (auto const& p : images.get())
        {
            std::error_code ec;
            std::filesystem::remove(p, ec);
        }
    }
    catch (...) // (their own error comes second)
    {
    }
}
} // namespace

std::unique_ptr<DoseHdf5Writer> start_hdf5_output(OutputInput const& outputs,
                                                  DoseGridData const& data,
                                                  RunMetadata const& grid_meta)
{
    if (!outputs.hdf5)
        return nullptr;
    return std::make_unique<DoseHdf5Writer>(output_stem(outputs) + ".h5", data, grid_meta,
                                            DoseHdf5Writer::Start::background);
}

std::vector<std::string> write_run_outputs(OutputInput const& outputs, DoseGridData const& data,
                                           RunMetadata& meta, DepthDoseCurve const* depth_dose,
                                           StepClock* clock_in, DoseHdf5Writer* hdf5)
{
    MCDOSE_EXPECT(!hdf5 || outputs.hdf5);
    validate_dose_data(data);
    std::error_code ec;
    std::filesystem::create_directories(outputs.directory, ec);
    MCDOSE_VALIDATE(!ec, << "cannot create output directory '" << outputs.directory
                         << "': " << ec.message() << "; check outputs.directory");
    std::string const stem = output_stem(outputs);
    std::vector<std::string> written;
    StepClock own_clock;
    StepClock& clock = clock_in ? *clock_in : own_clock;

    bool const images = outputs.image_format != "none";
    auto const write_images = [&]
    { return write_dose_images(stem, outputs.image_format, data, meta.source_particles); };
    // The images need nothing of the HDF5 file (nor HDF5): written beside what is left of
    // it (grids the dose report left, the file's copy out of memory and its write).
    std::future<std::vector<std::string>> images_beside;
    if (images && hdf5)
        images_beside = std::async(std::launch::async, write_images);
    if (outputs.hdf5)
    {
        if (hdf5)
        {
            MCDOSE_EXPECT(hdf5->path() == stem + ".h5");
            try
            {
                hdf5->finish(meta);
            }
            catch (...)
            {
                discard_images(images_beside);
                throw;
            }
        }
        else
        {
            write_dose_hdf5(stem + ".h5", data, meta);
        }
        written.push_back(stem + ".h5");
        clock.mark("hdf5");
    }
    if (images)
    {
        for (auto const& p : images_beside.valid() ? images_beside.get() : write_images())
            written.push_back(p);
        clock.mark("images");
    }
    if (outputs.rtdose)
    {
        RtDosePaths const paths{stem + "_dose.dcm", stem + "_uncertainty.dcm"};
        write_rt_dose(paths, data, meta, outputs.rtdose_referenced_plan);
        written.push_back(paths.dose);
        written.push_back(paths.uncertainty);
        clock.mark("rt_dose");
    }
    if (outputs.depth_dose)
    {
        MCDOSE_VALIDATE(depth_dose, << "internal: a depth-dose curve was requested but none was "
                                       "computed");
        write_depth_dose_csv(stem + "_depth_dose.csv", *depth_dose);
        written.push_back(stem + "_depth_dose.csv");
        clock.mark("depth_dose_csv");
    }
    for (auto const& p : outputs.lateral_profiles)
    {
        std::string const path = stem + "_" + p.name + ".csv";
        write_lateral_profile_csv(path, lateral_profile(data, p.axis, p.position_cm));
        written.push_back(path);
        clock.mark("profile_csv " + p.name);
    }
    if (outputs.dvh && !meta.report.dvhs.empty())
    {
        for (auto const& p : write_dvh_csv(stem, meta.report))
            written.push_back(p);
        clock.mark("dvh_csv");
    }
    meta.steps = clock.steps();
    if (outputs.summary)
    {
        std::string const path = stem + "_summary.json";
        written.push_back(path);
        write_run_summary_json(path, meta, data, written);
    }
    return written;
}
} // namespace mcdose
