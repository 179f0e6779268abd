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

//! outputs.directory, created if missing.
void make_output_directory(OutputInput const& outputs)
{
    std::error_code ec;
    std::filesystem::create_directories(outputs.directory, ec);
    MCDOSE_VALIDATE(!ec, << "cannot create output directory '" << outputs.directory
                         << "': " << ec.message() << "; check outputs.directory");
}
} // namespace

StartedOutputs::StartedOutputs(OutputInput const& outputs, DoseGridData const& data,
                               RunMetadata const& grid_meta)
{
    make_output_directory(outputs);
    if (outputs.hdf5)
    {
        hdf5_ = std::make_unique<DoseHdf5Writer>(output_stem(outputs) + ".h5", data, grid_meta,
                                                 DoseHdf5Writer::Start::background);
    }
    if (outputs.image_format == ImageFormat::none)
        return;
    // The images need nothing of the HDF5 file (nor HDF5). Written atomically, in the
    // run's output set where there is one, else in a set of their own, moved in place
    // when taken: nothing in place before then.
    std::string const stem = output_stem(outputs);
    std::string const ext = to_cstring(outputs.image_format);
    if (!OutputSet::holds(stem + "_dose." + ext))
    {
        std::string const name = std::filesystem::path(stem).filename().string();
        images_set_ = std::make_unique<OutputSet>(
            outputs.directory,
            std::vector<std::string>{name + "_dose." + ext, name + "_uncertainty." + ext},
            name + "_uncertainty." + ext);
    }
    images_ =
        std::async(std::launch::async, [stem = output_stem(outputs), format = outputs.image_format,
                                        &data, particles = grid_meta.source_particles,
                                        quantity = std::string(grid_meta.quantity.name())]
                   { return write_dose_images(stem, format, data, particles, quantity); });
}

StartedOutputs::~StartedOutputs()
{
    this->discard_images();
}

std::vector<std::string> StartedOutputs::take_images()
{
    std::vector<std::string> paths = images_.get();
    if (images_set_)
        images_set_->commit();
    return paths;
}

void StartedOutputs::discard_images() noexcept
{
    if (images_.valid())
        images_.wait();
    images_set_.reset(); // its staged files with it
}

std::vector<std::string> write_run_outputs(OutputInput const& outputs, DoseGridData const& data,
                                           RunMetadata& meta, DepthDoseCurve const* depth_dose,
                                           StepClock* clock_in, StartedOutputs* started)
{
    DoseHdf5Writer* const hdf5 = started ? started->hdf5() : nullptr;
    MCDOSE_EXPECT(!started || bool(hdf5) == outputs.hdf5);
    MCDOSE_EXPECT(!started || started->has_images() == (outputs.image_format != ImageFormat::none));
    validate_dose_data(data);
    make_output_directory(outputs);
    std::string const stem = output_stem(outputs);
    std::vector<std::string> written;
    StepClock own_clock;
    StepClock& clock = clock_in ? *clock_in : own_clock;

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
                started->discard_images();
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
    if (outputs.image_format != ImageFormat::none)
    {
        for (auto const& p : started
                                 ? started->take_images()
                                 : write_dose_images(stem, outputs.image_format, data,
                                                     meta.source_particles, meta.quantity.name()))
            written.push_back(p);
        clock.mark("images");
    }
    if (outputs.rtdose)
    {
        RtDosePaths const paths{stem + "_dose.dcm", stem + "_uncertainty.dcm"};
        write_rt_dose(paths, data, meta,
                      RtDoseOptions{outputs.rtdose_bits, outputs.rtdose_referenced_plan});
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
