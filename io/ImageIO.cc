//! \file io/ImageIO.cc
//! ITK is used only here. The Debian ITK is built as shared libraries and this
//! project does not include ITK's UseITK.cmake (which would generate factory
//! registration code), so the image IO factories are registered explicitly.
#include "io/ImageIO.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>

#include <itkGDCMImageIO.h>
#include <itkGDCMImageIOFactory.h>
#include <itkGDCMSeriesFileNames.h>
#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkImageIOFactory.h>
#include <itkImageSeriesReader.h>
#include <itkMetaDataObject.h>
#include <itkMetaImageIO.h>
#include <itkMetaImageIOFactory.h>
#include <itkNiftiImageIO.h>
#include <itkNiftiImageIOFactory.h>
#include <itkNrrdImageIO.h>
#include <itkNrrdImageIOFactory.h>
#include <zlib.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "io/DicomFileCheck.hh"
#include "io/DicomValue.hh"
#include "io/InputFile.hh"
#include "io/MetaImageWriter.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
constexpr double mm_per_cm = 10.0;
using DoubleImage = itk::Image<double, 3>;

void register_image_io_factories()
{
    static std::once_flag once;
    std::call_once(once,
                   []
                   {
                       itk::MetaImageIOFactory::RegisterOneFactory();
                       itk::NrrdImageIOFactory::RegisterOneFactory();
                       itk::NiftiImageIOFactory::RegisterOneFactory();
                       itk::GDCMImageIOFactory::RegisterOneFactory();
                   });
}

bool ends_with(std::string const& s, std::string const& suffix)
{
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

//! First line of an ITK exception's description (ITK messages span lines).
std::string itk_reason(itk::ExceptionObject const& e)
{
    std::string d = e.GetDescription();
    auto const nl = d.find('\n');
    if (nl != std::string::npos)
        d = d.substr(0, nl);
    return d;
}

template <class Image>
GridGeometry geometry_of(Image const& image)
{
    GridGeometry g;
    auto const size = image.GetLargestPossibleRegion().GetSize();
    auto const spacing = image.GetSpacing();
    auto const origin = image.GetOrigin();
    auto const dir = image.GetDirection();
    for (int c = 0; c < 3; ++c)
    {
        g.dims[c] = static_cast<int>(size[c]);
        g.spacing_cm[c] = spacing[c] / mm_per_cm;
        g.origin_cm[c] = origin[c] / mm_per_cm;
        for (int r = 0; r < 3; ++r)
            g.direction[3 * r + c] = dir(r, c);
    }
    return g;
}

//! Bytes of one component of a MetaImage ElementType (0 if unknown).
std::size_t meta_element_bytes(std::string const& type)
{
    static std::map<std::string, std::size_t> const bytes = {
        {"MET_CHAR", 1},      {"MET_UCHAR", 1},      {"MET_SHORT", 2}, {"MET_USHORT", 2},
        {"MET_INT", 4},       {"MET_UINT", 4},       {"MET_LONG", 4},  {"MET_ULONG", 4},
        {"MET_LONG_LONG", 8}, {"MET_ULONG_LONG", 8}, {"MET_FLOAT", 4}, {"MET_DOUBLE", 8}};
    auto const it = bytes.find(type);
    return it == bytes.end() ? 0 : it->second;
}

/*!
 * A MetaImage whose data is shorter than its header promises is read by ITK
 * with a warning only, leaving the rest of the buffer uninitialised. Compare
 * the bytes the header promises (DimSize x channels x ElementType, or
 * CompressedDataSize) with the bytes the file holds after the header.
 */
void check_metaimage_complete(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    std::map<std::string, std::string> fields;
    std::string line;
    while (std::getline(in, line) && fields.size() < 64)
    {
        auto const eq = line.find('=');
        if (eq == std::string::npos)
            return; // not a MetaImage header: ITK reports it
        std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        key.erase(key.find_last_not_of(" \t\r") + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        value.erase(value.find_last_not_of(" \t\r") + 1);
        fields[key] = value;
        if (key == "ElementDataFile")
            break;
    }
    auto const data_file = fields.find("ElementDataFile");
    if (data_file == fields.end())
        return;
    std::uintmax_t available = 0;
    std::error_code ec;
    if (data_file->second == "LOCAL")
    {
        auto const offset = in.tellg();
        if (offset < 0)
            return;
        available = fs::file_size(path, ec) - static_cast<std::uintmax_t>(offset);
    }
    else
    {
        fs::path const data = fs::path(path).parent_path() / data_file->second;
        if (!fs::is_regular_file(data, ec))
            return; // LIST, patterns and missing files: ITK reports them
        available = fs::file_size(data, ec);
    }
    if (ec)
        return;
    std::uintmax_t expected = 0;
    bool const compressed = fields["CompressedData"] == "True";
    if (compressed)
    {
        if (fields.count("CompressedDataSize") == 0)
            return;
        expected = std::strtoull(fields["CompressedDataSize"].c_str(), nullptr, 10);
    }
    else
    {
        std::istringstream dims(fields["DimSize"]);
        expected = meta_element_bytes(fields["ElementType"]);
        if (fields.count("ElementNumberOfChannels"))
            expected *= std::strtoull(fields["ElementNumberOfChannels"].c_str(), nullptr, 10);
        std::uintmax_t d;
        while (dims >> d)
            expected *= d;
    }
    MCDOSE_VALIDATE(available >= expected,
                    << "image '" << path << "' is truncated: its header promises " << expected
                    << (compressed ? " bytes of compressed data" : " bytes of data")
                    << ", the file holds " << available
                    << " (an interrupted copy or a full disk?)");
}

//! A single-file NIfTI-1 image's header and extension flag: the least vox_offset.
constexpr std::uint64_t nifti1_header_bytes = 352;

/*!
 * The bytes a gzip stream from byte `offset` of a file inflates to, and whether it is
 * whole: its last member ends with its trailer (CRC and length, checked by zlib) before the
 * file does. Members one after another are all inflated; bytes after a whole member that
 * are not another member (padding) end the stream.
 */
std::pair<std::uint64_t, bool> inflate_gzip(std::string const& path, std::uint64_t offset)
{
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    z_stream z{};
    if (!in || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return {0, true}; // not checked here: the reader reports it
    std::vector<unsigned char> input(std::size_t(1) << 20), output(std::size_t(1) << 18);
    std::uint64_t total = 0, in_member = 0; // bytes inflated, of which by the current member
    int members = 0;
    bool whole = false;
    for (;;)
    {
        if (z.avail_in == 0)
        {
            in.read(reinterpret_cast<char*>(input.data()), std::streamsize(input.size()));
            z.next_in = input.data();
            z.avail_in = static_cast<uInt>(in.gcount());
            if (z.avail_in == 0)
                break; // the file's end
        }
        if (whole) // another member follows
        {
            inflateReset(&z);
            whole = false;
            in_member = 0;
        }
        z.next_out = output.data();
        z.avail_out = static_cast<uInt>(output.size());
        int const status = inflate(&z, Z_NO_FLUSH);
        std::uint64_t const made = output.size() - z.avail_out;
        total += made;
        in_member += made;
        if (status == Z_STREAM_END)
        {
            whole = true;
            ++members;
        }
        else if (status != Z_OK && status != Z_BUF_ERROR)
        {
            whole = members > 0 && in_member == 0; // padding after a whole member
            break;
        }
    }
    inflateEnd(&z);
    return {total, whole};
}

//! Where an image file's gzip stream starts and the bytes it must inflate to at least.
struct GzipStream
{
    std::uint64_t offset{0};
    std::uint64_t expected{0};
};

/*!
 * The gzip stream of an image whose data the NIfTI library or NRRD's reader read through
 * zlib: a .nii.gz (the header, at least 352 bytes, and the voxels in one stream) or an NRRD
 * with gzip data after its header (none for other files). Those readers report a stream cut
 * short on stderr only, or not at all, and leave the rest of the voxels as they were.
 * `io` has read the header.
 */
std::optional<GzipStream> gzip_image_stream(std::string const& path, itk::ImageIOBase const& io)
{
    GzipStream g;
    g.expected = static_cast<std::uint64_t>(io.GetImageSizeInBytes());
    if (ends_with(path, ".nii.gz"))
    {
        g.expected += nifti1_header_bytes;
        return g;
    }
    if (!ends_with(path, ".nrrd"))
        return std::nullopt;
    // An attached header ends at its first blank line; the data follow it.
    std::ifstream in(path, std::ios::binary);
    std::string line;
    bool gzip = false;
    while (std::getline(in, line) && !line.empty() && line != "\r")
    {
        if (line.rfind("encoding:", 0) == 0)
            gzip = line.find("gz") != std::string::npos;
        if (line.rfind("data file:", 0) == 0 || line.rfind("datafile:", 0) == 0)
            return std::nullopt; // detached data: NRRD's reader reports a missing file
    }
    if (!gzip || !in)
        return std::nullopt;
    g.offset = static_cast<std::uint64_t>(in.tellg());
    return g;
}

//! The image's gzip stream is whole and holds every voxel.
void check_gzip_stream(std::string const& path, GzipStream const& g)
{
    auto const [bytes, whole] = inflate_gzip(path, g.offset);
    MCDOSE_VALIDATE(whole && bytes >= g.expected,
                    << "image '" << path << "' is truncated: its compressed data inflate to "
                    << bytes << " of the " << g.expected << " bytes its header promises"
                    << (whole ? "" : " and end before their gzip trailer")
                    << " (an interrupted copy or a full disk?)");
}

/*!
 * An uncompressed NIfTI file holds its header (vox_offset bytes, at least
 * 352) and then the voxels; the NIfTI library reports a short read or write
 * on stderr only. `io` has read the header. (.nii.gz: check_gzip_stream.)
 */
void check_nifti_complete(std::string const& path, itk::ImageIOBase const& io)
{
    if (!ends_with(path, ".nii"))
        return;
    std::error_code ec;
    std::uintmax_t const available = fs::file_size(path, ec);
    std::uintmax_t const expected =
        nifti1_header_bytes + static_cast<std::uintmax_t>(io.GetImageSizeInBytes());
    MCDOSE_VALIDATE(ec || available >= expected,
                    << "image '" << path << "' is truncated: its header promises " << expected
                    << " bytes, the file holds " << available
                    << " (an interrupted copy or a full disk?)");
}

/*!
 * Some ITK readers (MetaIO) report a short read on std::cerr and carry on.
 * While an image is read, std::cerr is collected here; the collected text is
 * returned so that a short read becomes an error instead of garbage voxels.
 */
class CerrCapture
{
  public:
    CerrCapture() : previous_(std::cerr.rdbuf(captured_.rdbuf())) {}
    ~CerrCapture() { std::cerr.rdbuf(previous_); }
    CerrCapture(CerrCapture const&) = delete;
    CerrCapture& operator=(CerrCapture const&) = delete;
    std::string text() const { return captured_.str(); }

  private:
    std::ostringstream captured_;
    std::streambuf* previous_;
};

//! The image's values as doubles (an image read in its type on disk is converted here, as
//! ITK would convert it: each value cast to double).
template <class T>
ScalarImage to_scalar_image(itk::Image<T, 3> const& image, std::string pixel_type, bool integer)
{
    ScalarImage out;
    out.geometry = geometry_of(image);
    size_type const n = out.geometry.num_voxels();
    // A CT's grid (0.6 GB of doubles at 512 x 512 x 300): its pages mapped, and the values
    // converted, on all cores.
    resize_on_all_cores(out.values, n);
    T const* from = image.GetBufferPointer();
    parallel_for_pieces(n, 0,
                        [&](size_type begin, size_type end, size_type)
                        {
                            std::transform(from + begin, from + end, out.values.data() + begin,
                                           [](T v) { return static_cast<double>(v); });
                        });
    out.pixel_type = std::move(pixel_type);
    out.integer_pixels = integer;
    return out;
}

//! A grid with no voxels or a zero, negative or non-finite spacing cannot be a phantom.
void check_image_grid(GridGeometry const& g, std::string const& path)
{
    for (int c = 0; c < 3; ++c)
    {
        MCDOSE_VALIDATE(g.dims[c] >= 1, << "image '" << path << "' has size " << g.dims[0] << " x "
                                        << g.dims[1] << " x " << g.dims[2]
                                        << " (no voxels); check its header (DimSize, sizes)");
        MCDOSE_VALIDATE(std::isfinite(g.spacing_cm[c]) && g.spacing_cm[c] > 0,
                        << "image '" << path << "' has voxel spacing " << 10 * g.spacing_cm[c]
                        << " mm along axis " << c
                        << "; the spacing must be positive (check its header)");
    }
}

bool is_integer_component(itk::IOComponentEnum c)
{
    using C = itk::IOComponentEnum;
    return c == C::UCHAR || c == C::CHAR || c == C::USHORT || c == C::SHORT || c == C::UINT ||
           c == C::INT || c == C::ULONG || c == C::LONG || c == C::ULONGLONG || c == C::LONGLONG;
}

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

//! Call f(T()) with T the C++ type of the component type `c` (8-, 16- and 32-bit integers,
//! float, double); false for another type.
template <class F>
bool with_component_type(itk::IOComponentEnum c, F&& f)
{
    using C = itk::IOComponentEnum;
    switch (c)
    {
    case C::UCHAR:
        f((unsigned char)0);
        return true;
    case C::CHAR:
        f((signed char)0);
        return true;
    case C::USHORT:
        f((unsigned short)0);
        return true;
    case C::SHORT:
        f(short(0));
        return true;
    case C::UINT:
        f(0u);
        return true;
    case C::INT:
        f(0);
        return true;
    case C::FLOAT:
        f(0.0f);
        return true;
    case C::DOUBLE:
        f(0.0);
        return true;
    default:
        return false;
    }
}

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

//! Run the reader, returning what ITK printed on std::cerr meanwhile (some readers report a
//! short file only there); an ITK exception becomes an error prefixed with `context`.
template <class Reader>
std::string read_capturing_cerr(Reader& reader, std::string const& context)
{
    try
    {
        CerrCapture const capture;
        reader.Update();
        return capture.text();
    }
    catch (itk::ExceptionObject const& e)
    {
        MCDOSE_VALIDATE(false, << context << itk_reason(e));
    }
    return {};
}

/*!
 * ITK's writers may report a failed write (a full disk) only on std::cerr and
 * return normally: read the file back (header size and complete data) before
 * it is renamed into place.
 */
template <class T>
void verify_written_image(std::string const& staged, GridGeometry const& geometry,
                          Span<T const> values)
{
    auto io = itk::ImageIOFactory::CreateImageIO(staged.c_str(), itk::IOFileModeEnum::ReadMode);
    MCDOSE_VALIDATE(io, << "the file cannot be read back");
    if (ends_with(staged, ".mha"))
        check_metaimage_complete(staged);
    try
    {
        io->SetFileName(staged);
        io->ReadImageInformation();
    }
    catch (itk::ExceptionObject const& e)
    {
        MCDOSE_VALIDATE(false, << itk_reason(e));
    }
    check_nifti_complete(staged, *io);
    if (auto const stream = gzip_image_stream(staged, *io))
        check_gzip_stream(staged, *stream);
    // Read back in the type written (no wider copy of the grid): every value of T is
    // exactly a double, so the comparison below is that of the values written.
    auto reader = itk::ImageFileReader<itk::Image<T, 3>>::New();
    reader->SetImageIO(io);
    reader->SetFileName(staged);
    std::string const warnings = read_capturing_cerr(*reader, "");
    MCDOSE_VALIDATE(warnings.empty(), << warnings.substr(0, warnings.find('\n')));
    GridGeometry const g = geometry_of(*reader->GetOutput());
    MCDOSE_VALIDATE(g.dims[0] == geometry.dims[0] && g.dims[1] == geometry.dims[1] &&
                        g.dims[2] == geometry.dims[2],
                    << "the file read back has size " << g.dims[0] << " x " << g.dims[1] << " x "
                    << g.dims[2]);
    // Some libraries (NIfTI's znz) report a short write on stderr only and read
    // a short file back as zeros: the values must be those written.
    T const* back = reader->GetOutput()->GetBufferPointer();
    for (size_type v = 0; v < values.size(); ++v)
    {
        MCDOSE_VALIDATE(static_cast<double>(back[v]) == static_cast<double>(values[v]),
                        << "voxel " << v << " reads back as " << back[v] << ", not "
                        << static_cast<double>(values[v]));
    }
}

template <class T>
void write_image_impl(std::string const& path, GridGeometry const& geometry, Span<T const> values)
{
    MCDOSE_VALIDATE(values.size() == geometry.num_voxels(),
                    << "image '" << path << "': " << values.size() << " values for "
                    << geometry.num_voxels() << " voxels");
    std::string ext;
    itk::ImageIOBase::Pointer io;
    for (char const* e : {".nii.gz", ".nii", ".nrrd", ".mha"})
    {
        if (ends_with(path, e))
        {
            ext = e;
            break;
        }
    }
    if (ext == ".nrrd")
        io = itk::NrrdImageIO::New();
    else if (!ext.empty())
        io = itk::NiftiImageIO::New();
    MCDOSE_VALIDATE(io, << "cannot write image '" << path
                        << "': unsupported extension; use .mha, .nrrd, .nii or .nii.gz");

    using Image = itk::Image<T, 3>;
    auto image = Image::New();
    typename Image::SizeType size;
    typename Image::SpacingType spacing;
    typename Image::PointType origin;
    typename Image::DirectionType direction;
    for (int c = 0; c < 3; ++c)
    {
        size[c] = static_cast<itk::SizeValueType>(geometry.dims[c]);
        spacing[c] = geometry.spacing_cm[c] * mm_per_cm;
        origin[c] = geometry.origin_cm[c] * mm_per_cm;
        for (int r = 0; r < 3; ++r)
            direction(r, c) = geometry.direction[3 * r + c];
    }
    image->SetRegions(typename Image::RegionType(size));
    image->SetSpacing(spacing);
    image->SetOrigin(origin);
    image->SetDirection(direction);
    // The writer reads the caller's values where they are (no copy of the grid); the
    // image does not own them and never writes to them.
    image->GetPixelContainer()->SetImportPointer(const_cast<T*>(values.data()), values.size(),
                                                 false);

    write_atomically(
        path,
        [&](std::string const& tmp)
        {
            // ITK picks details (e.g. MetaImage's single-file layout) from the
            // extension, so write under the real extension, then move onto `tmp`.
            std::string const staged = tmp + ext;
            TemporaryFile const registered(staged);
            auto writer = itk::ImageFileWriter<Image>::New();
            writer->SetImageIO(io);
            writer->SetFileName(staged);
            writer->SetInput(image);
            writer->UseCompressionOn();
            try
            {
                CerrCapture const quiet; // failures are found by reading the file back
                writer->Update();
            }
            catch (itk::ExceptionObject const& e)
            {
                std::remove(staged.c_str());
                MCDOSE_VALIDATE(false, << "cannot write image '" << path << "': " << itk_reason(e)
                                       << "; check that the directory exists and is writable");
            }
            try
            {
                verify_written_image(staged, geometry, values);
            }
            catch (RuntimeError const& e)
            {
                std::remove(staged.c_str());
                MCDOSE_VALIDATE(false, << "cannot write image '" << path
                                       << "': the file written is incomplete (" << e.what()
                                       << "); check the free disk space");
            }
            if (std::rename(staged.c_str(), tmp.c_str()) != 0)
            {
                std::remove(staged.c_str());
                MCDOSE_VALIDATE(false, << "cannot write image '" << path << "' (rename failed)");
            }
        });
}

//! Read an image file whose header `io` has read, as pixels of type T.
template <class T>
ScalarImage read_image_as(itk::ImageIOBase& io, std::string const& path,
                          std::string const& component, bool integer)
{
    auto reader = itk::ImageFileReader<itk::Image<T, 3>>::New();
    reader->SetImageIO(&io);
    reader->SetFileName(path);
    std::string const warnings = read_capturing_cerr(*reader, "cannot read image '" + path + "': ");
    MCDOSE_VALIDATE(warnings.find("not read completely") == std::string::npos &&
                        warnings.find("rror") == std::string::npos,
                    << "image '" << path << "' could not be read completely ("
                    << warnings.substr(0, warnings.find('\n'))
                    << "); the file is truncated or damaged");
    return to_scalar_image(*reader->GetOutput(), component, integer);
}

//! Read an image file in its component type on disk, so that ITK reads the file into its
//! buffer without converting it (one thread); the values become doubles on all cores. Types
//! with_component_type does not know are converted to double by ITK.
ScalarImage read_image_in_its_type(itk::ImageIOBase& io, std::string const& path,
                                   std::string const& component, bool integer)
{
    ScalarImage image;
    bool const typed = with_component_type(
        io.GetComponentType(),
        [&](auto zero) { image = read_image_as<decltype(zero)>(io, path, component, integer); });
    if (!typed)
        image = read_image_as<double>(io, path, component, integer);
    return image;
}
} // namespace

ScalarImage read_scalar_image(std::string const& path, std::string const& dicom_series_uid)
{
    register_image_io_factories();
    std::error_code ec;
    MCDOSE_VALIDATE(fs::exists(path, ec), << "image '" << path
                                          << "' does not exist; check the path (relative paths "
                                             "are relative to the study file)");
    if (fs::is_directory(path, ec))
        return read_dicom_series(path, dicom_series_uid);
    require_regular_file(path, "image");
    if (!dicom_series_uid.empty())
    {
        throw DicomSeriesChoiceError("dicom_series_uid '" + dicom_series_uid +
                                     "' is only used with a folder of DICOM files, but '" + path +
                                     "' is a file; remove dicom_series_uid");
    }

    check_dicom_file_complete(path, "image"); // ITK's DICOM reader would meet it first
    auto io = itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::IOFileModeEnum::ReadMode);
    MCDOSE_VALIDATE(io, << "cannot read image '" << path
                        << "': unknown format; use MetaImage (.mha/.mhd), NRRD (.nrrd/.nhdr), "
                           "NIfTI (.nii/.nii.gz) or a DICOM series directory");
    io->SetFileName(path);
    try
    {
        io->ReadImageInformation();
    }
    catch (itk::ExceptionObject const& e)
    {
        MCDOSE_VALIDATE(false, << "cannot read image '" << path << "': " << itk_reason(e));
    }
    std::string const component = io->GetComponentTypeAsString(io->GetComponentType());
    MCDOSE_VALIDATE(
        io->GetNumberOfComponents() == 1 && io->GetPixelType() == itk::IOPixelEnum::SCALAR,
        << "image '" << path << "' has unsupported pixel type "
        << io->GetPixelTypeAsString(io->GetPixelType()) << " with " << io->GetNumberOfComponents()
        << " components of " << component
        << "; convert it to a single-component scalar image (e.g. short HU or "
           "float)");
    MCDOSE_VALIDATE(io->GetComponentType() != itk::IOComponentEnum::UNKNOWNCOMPONENTTYPE,
                    << "image '" << path << "' has an unknown pixel component type");
    MCDOSE_VALIDATE(io->GetNumberOfDimensions() >= 2 && io->GetNumberOfDimensions() <= 3,
                    << "image '" << path << "' has " << io->GetNumberOfDimensions()
                    << " dimensions; give a 3D volume (or a 2D slice)");
    bool const integer = is_integer_component(io->GetComponentType());

    if (ends_with(path, ".mha") || ends_with(path, ".mhd"))
        check_metaimage_complete(path);
    check_nifti_complete(path, *io);
    // A compressed stream is checked on a thread of its own while ITK reads the image; its
    // message is the one given when both fail.
    std::optional<GzipStream> const stream = gzip_image_stream(path, *io);
    auto gzip = std::async(std::launch::async,
                           [&]
                           {
                               if (stream)
                                   check_gzip_stream(path, *stream);
                           });
    ScalarImage image;
    std::exception_ptr read_error;
    try
    {
        image = read_image_in_its_type(*io, path, component, integer);
    }
    catch (...)
    {
        read_error = std::current_exception();
    }
    gzip.get();
    if (read_error)
        std::rethrow_exception(read_error);
    check_image_grid(image.geometry, path);
    return image;
}

bool is_writable_image_path(std::string const& path)
{
    return ends_with(path, ".mha") || ends_with(path, ".nrrd") || ends_with(path, ".nii") ||
           ends_with(path, ".nii.gz");
}

namespace
{
//! A MetaImage filled and deflated piece by piece on all cores (no whole-grid buffer);
//! the other formats through ITK from a buffer that `fill` fills on all cores.
template <class T>
void write_filled_image(std::string const& path, GridGeometry const& geometry,
                        ImageFill<T> const& fill)
{
    if (ends_with(path, ".mha"))
    {
        // Checked call by call, and the header's data size against the file, as for any
        // MetaImage read.
        write_atomically(path,
                         [&](std::string const& tmp)
                         {
                             write_metaimage(tmp, geometry, fill);
                             check_metaimage_complete(tmp);
                         });
        return;
    }
    std::vector<T> values(geometry.num_voxels());
    parallel_for_pieces(values.size(), 0,
                        [&](size_type begin, size_type end, size_type)
                        { fill(begin, end, values.data() + begin); });
    register_image_io_factories();
    write_image_impl(path, geometry, make_span(std::as_const(values)));
}

//! write_filled_image of the values `values`.
template <class T>
void write_image_values(std::string const& path, GridGeometry const& geometry, Span<T const> values)
{
    MCDOSE_VALIDATE(values.size() == geometry.num_voxels(),
                    << "image '" << path << "': " << values.size() << " values for "
                    << geometry.num_voxels() << " voxels");
    if (!ends_with(path, ".mha"))
    {
        register_image_io_factories();
        write_image_impl(path, geometry, values);
        return;
    }
    write_filled_image<T>(path, geometry,
                          [&](size_type begin, size_type end, T* out)
                          { std::copy(values.begin() + begin, values.begin() + end, out); });
}
} // namespace

void write_image(std::string const& path, GridGeometry const& geometry, Span<float const> values)
{
    write_image_values(path, geometry, values);
}

void write_image(std::string const& path, GridGeometry const& geometry,
                 Span<std::uint16_t const> values)
{
    write_image_values(path, geometry, values);
}

void write_image(std::string const& path, GridGeometry const& geometry,
                 ImageFill<float> const& fill)
{
    write_filled_image(path, geometry, fill);
}
} // namespace mcdose
