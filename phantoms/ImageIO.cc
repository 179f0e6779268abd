//! \file phantoms/ImageIO.cc
//! ITK is used only here. The Debian ITK is built as shared libraries and this
//! project does not include ITK's UseITK.cmake (which would generate factory
//! registration code), so the image IO factories are registered explicitly.
#include "phantoms/ImageIO.hh"

#include <cstdio>
#include <filesystem>
#include <mutex>

#include <itkGDCMImageIO.h>
#include <itkGDCMImageIOFactory.h>
#include <itkGDCMSeriesFileNames.h>
#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkImageIOFactory.h>
#include <itkImageSeriesReader.h>
#include <itkMetaImageIO.h>
#include <itkMetaImageIOFactory.h>
#include <itkNiftiImageIO.h>
#include <itkNiftiImageIOFactory.h>
#include <itkNrrdImageIO.h>
#include <itkNrrdImageIOFactory.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"

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

GridGeometry geometry_of(DoubleImage const& image)
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

ScalarImage to_scalar_image(DoubleImage const& image, std::string pixel_type, bool integer)
{
    ScalarImage out;
    out.geometry = geometry_of(image);
    size_type const n = out.geometry.num_voxels();
    out.values.assign(image.GetBufferPointer(), image.GetBufferPointer() + n);
    out.pixel_type = std::move(pixel_type);
    out.integer_pixels = integer;
    return out;
}

bool is_integer_component(itk::IOComponentEnum c)
{
    using C = itk::IOComponentEnum;
    return c == C::UCHAR || c == C::CHAR || c == C::USHORT || c == C::SHORT || c == C::UINT ||
           c == C::INT || c == C::ULONG || c == C::LONG || c == C::ULONGLONG || c == C::LONGLONG;
}

ScalarImage read_dicom_series(std::string const& dir, std::string const& series_uid)
{
    auto names = itk::GDCMSeriesFileNames::New();
    names->SetUseSeriesDetails(true);
    names->SetDirectory(dir);
    auto const& uids = names->GetSeriesUIDs();
    MCDOSE_VALIDATE(!uids.empty(), << "'" << dir
                                   << "' is a directory without a DICOM series; give an image "
                                      "file (.mha, .nrrd, .nii) or a folder of DICOM CT slices");
    std::string uid = series_uid;
    if (uid.empty())
    {
        std::string list;
        for (auto const& u : uids)
            list += (list.empty() ? "" : ", ") + u;
        MCDOSE_VALIDATE(uids.size() == 1, << "'" << dir << "' holds " << uids.size()
                                          << " DICOM series (" << list
                                          << "); choose one with phantom.dicom_series_uid");
        uid = uids.front();
    }
    else
    {
        MCDOSE_VALIDATE(std::find(uids.begin(), uids.end(), uid) != uids.end(),
                        << "DICOM series '" << uid << "' is not in '" << dir
                        << "'; check phantom.dicom_series_uid");
    }
    auto const files = names->GetFileNames(uid);
    auto io = itk::GDCMImageIO::New();
    auto reader = itk::ImageSeriesReader<DoubleImage>::New();
    reader->SetImageIO(io);
    reader->SetFileNames(files);
    try
    {
        reader->Update();
    }
    catch (itk::ExceptionObject const& e)
    {
        MCDOSE_VALIDATE(false, << "cannot read the DICOM series in '" << dir
                               << "': " << itk_reason(e));
    }
    MCDOSE_VALIDATE(io->GetNumberOfComponents() == 1,
                    << "DICOM series in '" << dir << "' has " << io->GetNumberOfComponents()
                    << " components per pixel (colour?); a CT series has one");
    // GDCMImageIO applies Rescale Slope/Intercept, so the values are HU.
    return to_scalar_image(*reader->GetOutput(),
                           "DICOM " + io->GetComponentTypeAsString(io->GetComponentType()), false);
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
    if (ext == ".mha")
        io = itk::MetaImageIO::New();
    else if (ext == ".nrrd")
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
    image->Allocate();
    std::copy(values.begin(), values.end(), image->GetBufferPointer());

    write_atomically(
        path,
        [&](std::string const& tmp)
        {
            // ITK picks details (e.g. MetaImage's single-file layout) from the
            // extension, so write under the real extension, then move onto `tmp`.
            std::string const staged = tmp + ext;
            auto writer = itk::ImageFileWriter<Image>::New();
            writer->SetImageIO(io);
            writer->SetFileName(staged);
            writer->SetInput(image);
            writer->UseCompressionOn();
            try
            {
                writer->Update();
            }
            catch (itk::ExceptionObject const& e)
            {
                std::remove(staged.c_str());
                MCDOSE_VALIDATE(false, << "cannot write image '" << path << "': " << itk_reason(e)
                                       << "; check that the directory exists and is writable");
            }
            if (std::rename(staged.c_str(), tmp.c_str()) != 0)
            {
                std::remove(staged.c_str());
                MCDOSE_VALIDATE(false, << "cannot write image '" << path << "' (rename failed)");
            }
        });
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

    auto reader = itk::ImageFileReader<DoubleImage>::New();
    reader->SetImageIO(io);
    reader->SetFileName(path);
    try
    {
        reader->Update();
    }
    catch (itk::ExceptionObject const& e)
    {
        MCDOSE_VALIDATE(false, << "cannot read image '" << path << "': " << itk_reason(e));
    }
    return to_scalar_image(*reader->GetOutput(), component, integer);
}

bool is_writable_image_path(std::string const& path)
{
    return ends_with(path, ".mha") || ends_with(path, ".nrrd") || ends_with(path, ".nii") ||
           ends_with(path, ".nii.gz");
}

void write_image(std::string const& path, GridGeometry const& geometry, Span<float const> values)
{
    register_image_io_factories();
    write_image_impl(path, geometry, values);
}

void write_image(std::string const& path, GridGeometry const& geometry,
                 Span<std::uint16_t const> values)
{
    register_image_io_factories();
    write_image_impl(path, geometry, values);
}
} // namespace mcdose
