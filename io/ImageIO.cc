//! \file io/ImageIO.cc
//! Image files through ITK (a DICOM series: DicomSeries.cc; whether a file is whole:
//! ImageFileCheck.cc). The Debian ITK is built as shared libraries and this project does
//! not include ITK's UseITK.cmake (which would generate factory registration code), so the
//! image IO factories are registered explicitly.
#include "io/ImageIO.hh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>

#include <itkGDCMImageIOFactory.h>
#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkImageIOFactory.h>
#include <itkMetaDataObject.h>
#include <itkMetaImageIO.h>
#include <itkMetaImageIOFactory.h>
#include <itkNiftiImageIO.h>
#include <itkNiftiImageIOFactory.h>
#include <itkNrrdImageIO.h>
#include <itkNrrdImageIOFactory.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/ParallelFor.hh"
#include "io/DicomFileCheck.hh"
#include "io/InputFile.hh"
#include "io/MetaImageWriter.hh"
#include "io/detail/DicomSeries.hh"
#include "io/detail/ImageFileCheck.hh"
#include "io/detail/ItkImage.hh"

namespace fs = std::filesystem;

namespace mcdose
{
using namespace detail;

namespace
{
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

/*!
 * Write `text` (79 characters at most) into the descrip field of the uncompressed NIfTI-1
 * file `path` (bytes 148-227 of its 348-byte header; NIfTI-1 standard, nifti1.h), which
 * ITK's writer leaves empty; ITK's reader returns it as ITK_FileNotes.
 */
void set_nifti_description(std::string const& path, std::string const& text)
{
    if (text.empty())
        return;
    char field[80] = {};
    text.copy(field, 79);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(148);
    f.write(field, sizeof(field));
    MCDOSE_VALIDATE(f.good(), << "cannot write the description of image '" << path
                              << "'; check the free disk space");
}

template <class T>
void write_image_impl(std::string const& path, GridGeometry const& geometry, Span<T const> values,
                      std::string const& description)
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
    if (!description.empty() && ext == ".nrrd") // a key:=value line
        itk::EncapsulateMetaData<std::string>(image->GetMetaDataDictionary(), "ITK_FileNotes",
                                              description);
    // The writer reads the caller's values where they are (no copy of the grid); the
    // image does not own them and never writes to them.
    image->GetPixelContainer()->SetImportPointer(const_cast<T*>(values.data()), values.size(),
                                                 false);

    write_atomically(path,
                     [&](std::string const& tmp)
                     {
                         // `tmp` ends as `path` does: ITK picks details (e.g. MetaImage's
                         // single-file layout) from the extension.
                         auto writer = itk::ImageFileWriter<Image>::New();
                         writer->SetImageIO(io);
                         writer->SetFileName(tmp);
                         writer->SetInput(image);
                         writer->UseCompressionOn();
                         try
                         {
                             CerrCapture const quiet; // failures are found by reading the file back
                             writer->Update();
                         }
                         catch (itk::ExceptionObject const& e)
                         {
                             MCDOSE_VALIDATE(
                                 false, << "cannot write image '" << path << "': " << itk_reason(e)
                                        << "; check that the directory exists and is writable");
                         }
                         if (ext == ".nii")
                             set_nifti_description(tmp, description);
                         try
                         {
                             verify_written_image(tmp, geometry, values);
                         }
                         catch (RuntimeError const& e)
                         {
                             MCDOSE_VALIDATE(false, << "cannot write image '" << path
                                                    << "': the file written is incomplete ("
                                                    << e.what() << "); check the free disk space");
                         }
                     });
}

//! What a header says its values are: MetaImage's Comment, NRRD's key ITK_FileNotes or
//! NIfTI's descrip; MetaImage's default "mcdose" says nothing.
std::string header_description(itk::ImageIOBase& io)
{
    std::string text;
    if (auto* meta = dynamic_cast<itk::MetaImageIO*>(&io))
        text = meta->GetMetaImagePointer()->Comment();
    else
        itk::ExposeMetaData<std::string>(io.GetMetaDataDictionary(), "ITK_FileNotes", text);
    text.erase(text.find_last_not_of(' ') + 1); // MetaImage headers pad the comment
    return text == "mcdose" ? std::string() : text;
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

    // ITK's DICOM reader would meet a cut file first, and reads a Pixel Data of another length
    // than its header describes as if it fitted.
    if (auto const elements = read_dicom_elements(path, "image"))
        check_dicom_pixel_length(*elements, "image");
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
    image.description = header_description(*io);
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
                        ImageFill<T> const& fill, std::string const& description)
{
    if (ends_with(path, ".mha"))
    {
        // Checked call by call, and the header's data size against the file, as for any
        // MetaImage read.
        write_atomically(path,
                         [&](std::string const& tmp)
                         {
                             write_metaimage(tmp, geometry, fill, description);
                             check_metaimage_complete(tmp);
                         });
        return;
    }
    std::vector<T> values(geometry.num_voxels());
    parallel_for_pieces(values.size(), 0,
                        [&](size_type begin, size_type end, size_type)
                        { fill(begin, end, values.data() + begin); });
    register_image_io_factories();
    write_image_impl(path, geometry, make_span(std::as_const(values)), description);
}

//! write_filled_image of the values `values`.
template <class T>
void write_image_values(std::string const& path, GridGeometry const& geometry, Span<T const> values,
                        std::string const& description = {})
{
    MCDOSE_VALIDATE(values.size() == geometry.num_voxels(),
                    << "image '" << path << "': " << values.size() << " values for "
                    << geometry.num_voxels() << " voxels");
    if (!ends_with(path, ".mha"))
    {
        register_image_io_factories();
        write_image_impl(path, geometry, values, description);
        return;
    }
    write_filled_image<T>(
        path, geometry,
        [&](size_type begin, size_type end, T* out)
        { std::copy(values.begin() + begin, values.begin() + end, out); },
        description);
}
} // namespace

void write_image(std::string const& path, GridGeometry const& geometry, Span<float const> values,
                 std::string const& description)
{
    write_image_values(path, geometry, values, description);
}

void write_image(std::string const& path, GridGeometry const& geometry,
                 Span<std::uint16_t const> values)
{
    write_image_values(path, geometry, values);
}

void write_image(std::string const& path, GridGeometry const& geometry,
                 ImageFill<float> const& fill, std::string const& description)
{
    write_filled_image(path, geometry, fill, description);
}
} // namespace mcdose
