//! \file io/DicomSeries.cc
//! A DICOM CT series read from its folder by mcdose itself: the folder listed (every entry
//! read as a slice or named with why it is not), every file walked by mcdose's own parser
//! (io/DicomFileCheck.hh), the series chosen, each slice checked to be a physical CT slice
//! that agrees with the others, the slices stacked into a regular grid and read on all cores.
#include "io/detail/DicomSeries.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/Assert.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "io/detail/DicomCtSlice.hh"

namespace fs = std::filesystem;

namespace mcdose::detail
{
namespace
{
constexpr double mm_per_cm = 10.0;

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

//! The folder's entries: regular files (links followed) to read, the rest named in `notes`
//! (directories, FIFOs, sockets, devices) or refused (a link to nothing).
std::vector<std::string> list_dicom_folder(std::string const& dir, std::vector<std::string>& notes)
{
    std::vector<fs::path> entries;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        entries.push_back(it->path());
    MCDOSE_VALIDATE(!ec, << "cannot list the DICOM folder '" << dir << "' (" << ec.message()
                         << "); check its permissions");
    std::sort(entries.begin(), entries.end());
    std::vector<std::string> files;
    for (auto const& p : entries)
    {
        fs::file_status const target = fs::status(p, ec);
        MCDOSE_VALIDATE(target.type() != fs::file_type::not_found,
                        << "cannot read the DICOM folder '" << dir << "': '" << p.string()
                        << "' is a link to '" << fs::read_symlink(p, ec).string()
                        << "', which does not exist (a slice lost in copying?); restore the file "
                           "or remove the link");
        if (fs::is_regular_file(target))
        {
            files.push_back(p.string());
            continue;
        }
        char const* kind = fs::is_directory(target) ? "a directory"
                           : fs::is_fifo(target)    ? "a FIFO (named pipe)"
                           : fs::is_socket(target)  ? "a socket"
                                                    : "a device or special file";
        notes.push_back("'" + p.string() + "' is ignored: " + kind + ", not a regular file");
    }
    return files;
}

//! Whether `path`, of `size` bytes (< 132), is the start of a DICOM file: a zero preamble,
//! then the start of "DICM".
bool cut_preamble(std::string const& path, std::uint64_t size)
{
    std::ifstream in(path, std::ios::binary);
    std::string bytes(size, '\1');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    std::size_t const zeros = std::min<std::size_t>(size, 128);
    return size < 132 &&
           std::all_of(bytes.begin(), bytes.begin() + zeros, [](char c) { return c == 0; }) &&
           std::string("DICM").compare(0, size - zeros, bytes, zeros, size - zeros) == 0;
}

//! Each file of the folder walked and parsed on all cores: a CT slice candidate (an image),
//! or none with a note saying why it is not read. Empty and cut files are refused.
std::vector<std::optional<DicomCtSlice>> read_folder_files(std::string const& dir,
                                                           std::vector<std::string> const& files,
                                                           std::vector<std::string>& notes)
{
    std::string const what = "DICOM folder '" + dir + "'";
    std::vector<std::optional<DicomCtSlice>> slices(files.size());
    std::vector<std::string> why(files.size());
    for_each_first_error_in_order(
        files.size(),
        [&](size_type k)
        {
            std::error_code ec;
            std::uint64_t const size = fs::file_size(files[k], ec);
            MCDOSE_VALIDATE(!ec && size > 0 && !(size < 132 && cut_preamble(files[k], size)),
                            << "cannot read the " << what << ": file '" << files[k] << "' is "
                            << (size == 0 ? "empty (0 bytes)" : "cut short inside its preamble")
                            << " (a slice lost in copying?); copy the series again from its "
                               "source, or remove the file");
            auto elements = read_dicom_elements(files[k], what);
            if (!elements)
            {
                why[k] = "not a DICOM file (no 'DICM' at byte 128)";
                return;
            }
            DicomCtSlice s = parse_ct_slice(std::move(*elements), what);
            if (!s.has_rows && !s.has_pixels && s.modality != "CT")
            {
                why[k] = "not an image (Modality '" + s.modality + "')";
                return;
            }
            slices[k] = std::move(s);
        });
    for (std::size_t k = 0; k < files.size(); ++k)
    {
        if (!why[k].empty())
            notes.push_back("'" + files[k] + "' is ignored: " + why[k]);
    }
    return slices;
}

//! The image files of one Series Instance UID.
struct SeriesFiles
{
    std::string uid;
    std::vector<DicomCtSlice> slices;
};

std::string describe(std::vector<SeriesFiles> const& all)
{
    std::string list;
    for (auto const& s : all)
    {
        list += (list.empty() ? "" : ", ") + (s.uid.empty() ? "(no Series Instance UID)" : s.uid) +
                " (" + std::to_string(s.slices.size()) +
                (s.slices.size() == 1 ? " file" : " files") +
                (s.slices.front().modality == "CT" ? "" : ", " + s.slices.front().modality) + ")";
    }
    return list;
}

std::vector<SeriesFiles> group_series(std::vector<std::optional<DicomCtSlice>>& slices)
{
    std::vector<SeriesFiles> all;
    for (auto& s : slices)
    {
        if (!s)
            continue;
        auto it = std::find_if(all.begin(), all.end(),
                               [&](SeriesFiles const& f) { return f.uid == s->series_uid; });
        if (it == all.end())
            it = all.insert(all.end(), SeriesFiles{s->series_uid, {}});
        it->slices.push_back(std::move(*s));
    }
    return all;
}

SeriesFiles choose_series(std::vector<SeriesFiles>& all, std::string const& dir,
                          std::string const& uid, std::vector<std::string>& notes)
{
    MCDOSE_VALIDATE(
        !all.empty(),
        << "'" << dir
        << "' is a directory without a DICOM series (no DICOM image file in it); give an "
           "image file (.mha, .nrrd, .nii) or a folder of DICOM CT "
           "slices");
    auto chosen = all.begin();
    if (uid.empty() && all.size() != 1)
    {
        throw DicomSeriesChoiceError("'" + dir + "' holds " + std::to_string(all.size()) +
                                     " DICOM series: " + describe(all) +
                                     "; choose one with dicom_series_uid");
    }
    if (!uid.empty())
    {
        chosen = std::find_if(all.begin(), all.end(),
                              [&](SeriesFiles const& s) { return s.uid == uid; });
        if (chosen == all.end())
        {
            throw DicomSeriesChoiceError("DICOM series '" + uid + "' is not in '" + dir +
                                         "', which holds " + describe(all) +
                                         "; set dicom_series_uid to one of these");
        }
    }
    for (auto const& s : all)
    {
        if (&s == &*chosen)
            continue;
        std::size_t const n = s.slices.size();
        notes.push_back("'" + dir + "' holds " + std::to_string(n) + (n == 1 ? " file" : " files") +
                        " of another series, " +
                        (s.uid.empty() ? "(no Series Instance UID)" : s.uid) + " ('" +
                        s.slices.front().file.path + "'" + (n == 1 ? "" : ", ...") + "), not read");
    }
    return std::move(*chosen);
}

// A missing or duplicated slice shows as a deviation of about one whole spacing; positions
// written with two decimals (0.01 mm) deviate by a few per cent of a sub-millimetre spacing.
constexpr double max_relative_slice_deviation = 0.05;
// Slices must be stacked along the normal of their orientation: sideways drift (gantry
// tilt) would shear the grid.
constexpr double max_relative_slice_drift = 1e-3;

double along(std::array<double, 3> const& p, std::array<double, 3> const& n)
{
    return p[0] * n[0] + p[1] * n[1] + p[2] * n[2];
}

double distance(std::array<double, 3> const& a, std::array<double, 3> const& b)
{
    double d2 = 0;
    for (int i = 0; i < 3; ++i)
        d2 += (b[i] - a[i]) * (b[i] - a[i]);
    return std::sqrt(d2);
}

//! The slices ordered along their normal, checked to form a regular grid; the spacing
//! between slices [mm], as ITK's series reader takes it: first-to-last distance / (n - 1).
double stack_slices(std::vector<DicomCtSlice>& slices, std::string const& what)
{
    auto const n = slices.front().normal();
    std::stable_sort(slices.begin(), slices.end(),
                     [&](DicomCtSlice const& a, DicomCtSlice const& b)
                     { return along(a.position_mm, n) < along(b.position_mm, n); });
    if (slices.size() == 1)
    {
        double const t = slices.front().thickness_mm;
        MCDOSE_VALIDATE(t > 0, << "the " << what << " is one slice without Spacing Between "
                               << "Slices (0018,0088) or Slice Thickness (0018,0050) > 0: its "
                                  "thickness is unknown; give the whole series");
        return t;
    }
    auto const& first = slices.front().position_mm;
    auto const& last = slices.back().position_mm;
    double const length = distance(first, last);
    double const normal_part = along(last, n) - along(first, n);
    double const drift = std::sqrt(std::max(0.0, length * length - normal_part * normal_part));
    MCDOSE_VALIDATE(drift <= max_relative_slice_drift * length,
                    << "the slices of the " << what
                    << " are not stacked along the normal of their orientation (the last slice "
                       "is "
                    << drift << " mm off the axis through the first; gantry tilt?); mcdose needs "
                    << "a rectilinear grid: resample the series first");
    double const spacing = length / double(slices.size() - 1);
    for (std::size_t k = 1; k < slices.size(); ++k)
    {
        double const d = along(slices[k].position_mm, n) - along(slices[k - 1].position_mm, n);
        MCDOSE_VALIDATE(std::abs(d - spacing) <= max_relative_slice_deviation * spacing,
                        << "the slices of the " << what << " are not evenly spaced: '"
                        << slices[k - 1].file.path << "' and '" << slices[k].file.path << "' are "
                        << d << " mm apart, the mean spacing is " << spacing
                        << " mm (allowed: within " << 100 * max_relative_slice_deviation
                        << " %; missing or duplicated slice?); mcdose needs a regular grid: "
                           "complete or resample the series");
    }
    return spacing;
}

GridGeometry grid_of(std::vector<DicomCtSlice> const& slices, double slice_spacing_mm)
{
    DicomCtSlice const& s = slices.front();
    auto const n = s.normal();
    GridGeometry g;
    g.dims = Int3{{int(s.columns), int(s.rows), int(slices.size())}};
    // Pixel Spacing lists the distance between rows first (PS3.3 10.7.1.3).
    g.spacing_cm = Real3{{s.pixel_spacing_mm[1] / mm_per_cm, s.pixel_spacing_mm[0] / mm_per_cm,
                          slice_spacing_mm / mm_per_cm}};
    for (int a = 0; a < 3; ++a)
    {
        g.origin_cm[a] = s.position_mm[a] / mm_per_cm;
        g.direction[3 * a + 0] = s.orientation[a];
        g.direction[3 * a + 1] = s.orientation[3 + a];
        g.direction[3 * a + 2] = n[a];
    }
    return g;
}
} // namespace

ScalarImage read_dicom_series(std::string const& dir, std::string const& series_uid)
{
    ScalarImage result;
    std::vector<std::string> const files = list_dicom_folder(dir, result.notes);
    auto candidates = read_folder_files(dir, files, result.notes);
    std::vector<SeriesFiles> all = group_series(candidates);
    SeriesFiles series = choose_series(all, dir, series_uid, result.notes);
    std::string const what = "DICOM series " +
                             (series.uid.empty() ? "(no Series Instance UID)" : series.uid) +
                             " in '" + dir + "'";
    std::vector<DicomCtSlice>& slices = series.slices;
    for (auto const& s : slices)
    {
        check_ct_slice(s, what);
        check_slices_agree(slices.front(), s, what);
    }
    double const slice_spacing_mm = stack_slices(slices, what);
    result.geometry = grid_of(slices, slice_spacing_mm);
    std::size_t const per_slice = std::size_t(slices.front().rows) * slices.front().columns;
    resize_on_all_cores(result.values, per_slice * slices.size());
    for_each_first_error_in_order(
        slices.size(), [&](size_type k)
        { read_ct_slice_hu(slices[k], what, result.values.data() + k * per_slice); });
    DicomCtSlice const& first = slices.front();
    result.pixel_type = "DICOM " + std::string(first.representation ? "" : "unsigned ") +
                        std::to_string(first.bits_allocated) + "-bit integer";
    result.integer_pixels = false; // HU after Rescale Slope/Intercept
    result.dicom = dicom_reference(first);
    return result;
}
} // namespace mcdose::detail
