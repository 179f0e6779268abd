//! \file io/DicomSeries.cc
//! DICOM CT series through ITK's GDCMImageIO: the folder's series found and chosen, its
//! slices read on all cores and checked to form a regular grid.
#include "io/detail/DicomSeries.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <itkGDCMImageIO.h>
#include <itkGDCMSeriesFileNames.h>
#include <itkImage.h>
#include <itkImageSeriesReader.h>
#include <itkMetaDataObject.h>

#include "core/Assert.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "io/DicomFileCheck.hh"
#include "io/DicomValue.hh"
#include "io/detail/ItkImage.hh"

namespace fs = std::filesystem;

namespace mcdose::detail
{
namespace
{
using DoubleImage = itk::Image<double, 3>;

//! Header of one DICOM file (GDCM parses the whole file; used for a few files only).
itk::GDCMImageIO::Pointer read_dicom_header(std::string const& file, std::string const& dir)
{
    auto io = itk::GDCMImageIO::New();
    io->SetFileName(file);
    try
    {
        io->ReadImageInformation();
    }
    catch (itk::ExceptionObject const& e)
    {
        MCDOSE_VALIDATE(false, << "cannot read the DICOM file '" << file << "' in '" << dir
                               << "': " << itk_reason(e));
    }
    return io;
}

//! One volume found by GDCM in a DICOM folder.
struct DicomVolume
{
    std::string series_uid; //!< Series Instance UID (0020,000E) as in the files
    //! GDCM's identifier: the UID followed by series number, sequence name,
    //! slice thickness, rows and columns (so that a scout and a volume sharing
    //! a UID, or slices of different size, are not mixed into one image).
    std::string identifier;
    std::vector<std::string> files; //!< ordered by position along the slice normal
    std::string label;              //!< how messages name it (the UID when unique)
};

//! ITK prints warnings to stderr (e.g. "No Series were found" for a folder
//! without DICOM files); where mcdose reports the problem itself, they would
//! only break its one-line errors. ITK's switch is global: restored on exit.
class QuietItkWarnings
{
  public:
    QuietItkWarnings() : previous_(itk::Object::GetGlobalWarningDisplay())
    {
        itk::Object::SetGlobalWarningDisplay(false);
    }
    ~QuietItkWarnings() { itk::Object::SetGlobalWarningDisplay(previous_); }
    QuietItkWarnings(QuietItkWarnings const&) = delete;
    QuietItkWarnings& operator=(QuietItkWarnings const&) = delete;

  private:
    bool previous_;
};

std::vector<DicomVolume> find_dicom_volumes(std::string const& dir)
{
    QuietItkWarnings const quiet;
    auto names = itk::GDCMSeriesFileNames::New();
    names->SetUseSeriesDetails(true);
    names->SetDirectory(dir);
    std::vector<DicomVolume> volumes;
    for (auto const& id : names->GetSeriesUIDs())
    {
        DicomVolume v;
        v.identifier = id;
        v.files = names->GetFileNames(id);
        if (v.files.empty())
            continue;
        std::string uid;
        read_dicom_header(v.files.front(), dir)->GetValueFromTag("0020|000e", uid);
        v.series_uid = trim_dicom_value(uid);
        if (v.series_uid.empty())
            v.series_uid = id;
        volumes.push_back(std::move(v));
    }
    for (auto& v : volumes)
    {
        auto const same_uid =
            std::count_if(volumes.begin(), volumes.end(),
                          [&](DicomVolume const& w) { return w.series_uid == v.series_uid; });
        v.label = same_uid == 1 ? v.series_uid : v.identifier;
    }
    return volumes;
}

std::string describe_volumes(std::vector<DicomVolume const*> const& volumes)
{
    std::string list;
    for (auto const* v : volumes)
    {
        list += (list.empty() ? "" : ", ") + v->label + " (" + std::to_string(v->files.size()) +
                (v->files.size() == 1 ? " file)" : " files)");
    }
    return list;
}

DicomVolume const& choose_dicom_volume(std::vector<DicomVolume> const& volumes,
                                       std::string const& dir, std::string const& uid)
{
    std::vector<DicomVolume const*> all;
    for (auto const& v : volumes)
        all.push_back(&v);
    if (uid.empty())
    {
        if (volumes.size() != 1)
        {
            throw DicomSeriesChoiceError("'" + dir + "' holds " + std::to_string(volumes.size()) +
                                         " DICOM series: " + describe_volumes(all) +
                                         "; choose one with dicom_series_uid");
        }
        return volumes.front();
    }
    std::vector<DicomVolume const*> matches;
    for (auto const& v : volumes)
    {
        if (v.series_uid == uid || v.identifier == uid)
            matches.push_back(&v);
    }
    if (matches.empty())
    {
        throw DicomSeriesChoiceError("DICOM series '" + uid + "' is not in '" + dir +
                                     "', which holds " + describe_volumes(all) +
                                     "; set dicom_series_uid to one of these");
    }
    if (matches.size() > 1)
    {
        throw DicomSeriesChoiceError(
            "DICOM series '" + uid + "' in '" + dir + "' holds " + std::to_string(matches.size()) +
            " volumes that differ in series number, slice thickness or image size: " +
            describe_volumes(matches) + "; set dicom_series_uid to one of these identifiers");
    }
    return *matches.front();
}

// A missing or duplicated slice shows as a deviation of about one whole
// spacing; positions written with two decimals (0.01 mm) deviate by a few per
// cent of a sub-millimetre spacing at most.
constexpr double max_relative_slice_deviation = 0.05;
// Slices must be stacked along the normal of their orientation: sideways
// drift (gantry tilt) would shear the grid.
constexpr double max_relative_slice_drift = 1e-3;

//! What an RT Dose needs to name the CT's patient, study and frame of reference.
DicomReference dicom_reference(itk::GDCMImageIO& header)
{
    auto const value = [&](char const* tag)
    {
        std::string v;
        header.GetValueFromTag(tag, v);
        return trim_dicom_value(v);
    };
    DicomReference r;
    r.specific_character_set = value("0008|0005");
    r.patient_name = value("0010|0010");
    r.patient_id = value("0010|0020");
    r.patient_birth_date = value("0010|0030");
    r.patient_sex = value("0010|0040");
    r.study_instance_uid = value("0020|000d");
    r.study_date = value("0008|0020");
    r.study_time = value("0008|0030");
    r.study_id = value("0020|0010");
    r.accession_number = value("0008|0050");
    r.referring_physician = value("0008|0090");
    r.frame_of_reference_uid = value("0020|0052");
    r.series_instance_uid = value("0020|000e");
    return r;
}

//! f(k) for every k in [0, n) on all cores; where several throw, the exception of the least k
//! is rethrown, so that the file an error names does not depend on the threads' timing.
template <class F>
void for_each_first_error_in_order(size_type n, F&& f)
{
    std::vector<std::exception_ptr> errors(n);
    parallel_for_each(n,
                      [&](size_type k)
                      {
                          try
                          {
                              f(k);
                          }
                          catch (...)
                          {
                              errors[k] = std::current_exception();
                          }
                      });
    for (auto const& e : errors)
    {
        if (e)
            std::rethrow_exception(e);
    }
}

//! Every file of a DICOM folder (GDCM reads them all to find its series) is whole
//! (io/DicomFileCheck.hh), checked on all cores; the first file cut short, in name order, is
//! the error.
void check_dicom_folder_complete(std::string const& dir)
{
    std::vector<std::string> files;
    std::error_code ec;
    for (auto const& entry : fs::directory_iterator(dir, ec))
    {
        if (entry.is_regular_file(ec))
            files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    for_each_first_error_in_order(
        files.size(),
        [&](size_type k) { check_dicom_file_complete(files[k], "DICOM folder '" + dir + "'"); });
}

//! A DICOM series' slices read on all cores: the values (HU, as doubles, slice after slice)
//! and each slice's Image Position (Patient) [mm].
struct DicomSlices
{
    std::vector<double> values;
    std::vector<std::array<double, 3>> positions;
    itk::IOComponentEnum first_component{itk::IOComponentEnum::UNKNOWNCOMPONENTTYPE};

    //! The largest difference between the distance of neighbouring slices and `spacing`
    //! [mm]: what ITK's series reader records as ITK_non_uniform_sampling_deviation.
    double spacing_deviation(double spacing) const
    {
        double largest = 0;
        for (std::size_t k = 1; k < positions.size(); ++k)
        {
            double d2 = 0;
            for (int a = 0; a < 3; ++a)
                d2 += (positions[k][a] - positions[k - 1][a]) *
                      (positions[k][a] - positions[k - 1][a]);
            largest = std::max(largest, std::abs(spacing - std::sqrt(d2)));
        }
        return largest;
    }
};

//! Convert `n` values of the component type `c` at `from` to doubles at `to` (false: a type
//! with_component_type does not know).
bool convert_dicom_pixels(itk::IOComponentEnum c, void const* from, std::size_t n, double* to)
{
    return with_component_type(c,
                               [&](auto zero)
                               {
                                   using T = decltype(zero);
                                   auto const* typed = static_cast<T const*>(from);
                                   std::transform(typed, typed + n, to,
                                                  [](T v) { return static_cast<double>(v); });
                               });
}

/*!
 * The slices of a series whose grid ITK's series reader has set up (`grid`: its output
 * information), each file read by a GDCMImageIO of its own on all cores and converted to
 * doubles as ITK's reader converts them (Rescale Slope/Intercept applied by GDCMImageIO,
 * then each value cast to double). Empty where a file is not one single-component slice
 * of the grid's rows and columns (ITK then reads the series). A file that cannot be read
 * is an error naming the first such file.
 */
std::optional<DicomSlices> read_dicom_slices(DoubleImage const& grid,
                                             std::vector<std::string> const& files,
                                             std::string const& what)
{
    auto const size = grid.GetLargestPossibleRegion().GetSize();
    std::size_t const per_slice = std::size_t(size[0]) * size[1];
    if (files.size() < 2 || size[2] != files.size())
        return std::nullopt;
    DicomSlices out;
    resize_on_all_cores(out.values, per_slice * files.size());
    out.positions.resize(files.size());
    std::vector<char> odd(files.size(), 0);
    // ITK's objects are made here, on one thread (the object factory's lists are global).
    std::vector<itk::GDCMImageIO::Pointer> ios(files.size());
    for (auto& io : ios)
        io = itk::GDCMImageIO::New();
    for_each_first_error_in_order(
        files.size(),
        [&](size_type k)
        {
            try
            {
                itk::GDCMImageIO& io = *ios[k];
                io.SetFileName(files[k]);
                io.ReadImageInformation();
                bool const one_slice =
                    io.GetNumberOfComponents() == 1 && io.GetDimensions(0) == size[0] &&
                    io.GetDimensions(1) == size[1] &&
                    (io.GetNumberOfDimensions() == 2 || io.GetDimensions(2) == 1);
                std::vector<char> raw(one_slice ? io.GetImageSizeInBytes() : 0);
                if (one_slice)
                    io.Read(raw.data());
                if (k == 0)
                    out.first_component = io.GetComponentType();
                odd[k] = !one_slice ||
                         !convert_dicom_pixels(io.GetComponentType(), raw.data(), per_slice,
                                               out.values.data() + k * per_slice);
                for (int a = 0; a < 3; ++a)
                    out.positions[k][a] = io.GetOrigin(a);
            }
            catch (itk::ExceptionObject const& e)
            {
                MCDOSE_VALIDATE(false, << "cannot read the " << what << ": file '" << files[k]
                                       << "': " << itk_reason(e));
            }
        });
    if (std::find(odd.begin(), odd.end(), char(1)) != odd.end())
        return std::nullopt;
    return out;
}

} // namespace

ScalarImage read_dicom_series(std::string const& dir, std::string const& series_uid)
{
    check_dicom_folder_complete(dir);
    std::vector<DicomVolume> const volumes = find_dicom_volumes(dir);
    MCDOSE_VALIDATE(!volumes.empty(), << "'" << dir
                                      << "' is a directory without a DICOM series; give an image "
                                         "file (.mha, .nrrd, .nii) or a folder of DICOM CT slices");
    DicomVolume const& volume = choose_dicom_volume(volumes, dir, series_uid);
    std::string const what = "DICOM series " + volume.label + " in '" + dir + "'";

    auto io = itk::GDCMImageIO::New();
    auto reader = itk::ImageSeriesReader<DoubleImage>::New();
    reader->SetImageIO(io);
    reader->SetFileNames(volume.files);
    // ITK only warns (on stderr) about uneven slices; they are checked below.
    reader->SetSpacingWarningRelThreshold(std::numeric_limits<double>::max());
    // The grid as ITK's series reader makes it (from the first and last files); a series of
    // single slices of one size is then read on all cores, the rest by ITK.
    std::optional<DicomSlices> slices;
    try
    {
        reader->UpdateOutputInformation();
        slices = read_dicom_slices(*reader->GetOutput(), volume.files, what);
        if (!slices)
            reader->Update();
    }
    catch (itk::ExceptionObject const& e)
    {
        MCDOSE_VALIDATE(false, << "cannot read the " << what << ": " << itk_reason(e));
    }
    MCDOSE_VALIDATE(io->GetNumberOfComponents() == 1,
                    << what << " has " << io->GetNumberOfComponents()
                    << " components per pixel (colour?); a CT series has one");
    DoubleImage const& image = *reader->GetOutput();

    if (volume.files.size() >= 2)
    {
        // ITK takes the slice axis from the orientation (row x column) and the
        // slice spacing from first-to-last distance / (n - 1): check both.
        auto const first = image.GetOrigin();
        double last[3];
        if (slices)
            std::copy(slices->positions.back().begin(), slices->positions.back().end(), last);
        else
        {
            auto const last_io = read_dicom_header(volume.files.back(), dir);
            for (int a = 0; a < 3; ++a)
                last[a] = last_io->GetOrigin(a);
        }
        auto const dir_matrix = image.GetDirection();
        double d[3], along = 0, length2 = 0;
        for (int a = 0; a < 3; ++a)
        {
            d[a] = last[a] - first[a];
            along += d[a] * dir_matrix(a, 2);
            length2 += d[a] * d[a];
        }
        double const drift = std::sqrt(std::max(0.0, length2 - along * along));
        MCDOSE_VALIDATE(drift <= max_relative_slice_drift * std::sqrt(length2),
                        << "the slices of the " << what
                        << " are not stacked along the normal of their orientation (the last "
                           "slice is "
                        << drift << " mm off the axis through the first; gantry tilt?); "
                        << "mcdose needs a rectilinear grid: resample the series first");
        double const spacing = image.GetSpacing()[2];
        double deviation = 0;
        if (slices)
            deviation = slices->spacing_deviation(spacing);
        else
            itk::ExposeMetaData<double>(image.GetMetaDataDictionary(),
                                        "ITK_non_uniform_sampling_deviation", deviation);
        MCDOSE_VALIDATE(deviation <= max_relative_slice_deviation * spacing,
                        << "the slices of the " << what
                        << " are not evenly spaced (a distance between neighbours differs by "
                        << deviation << " mm from the mean spacing " << spacing
                        << " mm; missing or duplicated slice?); mcdose needs a regular grid: "
                           "complete or resample the series");
    }
    // GDCMImageIO applies Rescale Slope/Intercept, so the values are HU.
    std::string const pixel_type =
        "DICOM " +
        io->GetComponentTypeAsString(slices ? slices->first_component : io->GetComponentType());
    ScalarImage result;
    if (slices)
    {
        result.geometry = geometry_of(image);
        result.values = std::move(slices->values);
        result.pixel_type = pixel_type;
    }
    else
    {
        result = to_scalar_image(image, pixel_type, false);
    }
    result.dicom = dicom_reference(*read_dicom_header(volume.files.front(), dir));
    return result;
}
} // namespace mcdose::detail
