//! \file test/phantoms/DicomTestSeries.cc
//! Each slice is a 2D float image of HU handed to GDCMImageIO with the stored
//! pixel format (Bits Allocated/Stored, High Bit, Pixel Representation) and
//! Rescale Slope/Intercept in its dictionary: GDCMImageIO then stores
//! (HU - intercept) / slope as int16 or uint16 (its "inverse rescale"), as a
//! scanner would. The SOP class is CT Image Storage, so GDCM writes Image
//! Position/Orientation (Patient).
#include "DicomTestSeries.hh"

#include <filesystem>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <gdcmReader.h>
#include <gdcmWriter.h>
#include <itkGDCMImageIO.h>
#include <itkGDCMSeriesFileNames.h>
#include <itkImage.h>
#include <itkImageFileWriter.h>
#include <itkImageSeriesReader.h>
#include <itkMetaDataObject.h>

namespace mcdose::test
{
namespace
{
std::string decimal_string(double x)
{
    std::ostringstream os;
    os << std::setprecision(12) << x;
    return os.str();
}

std::string backslash_list(std::vector<double> const& values)
{
    std::string s;
    for (double v : values)
        s += (s.empty() ? "" : "\\") + decimal_string(v);
    return s;
}

//! DICOM pads UI values with NUL to an even length, other strings with spaces.
std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\0' || s.back() == ' '))
        s.pop_back();
    return s;
}
} // namespace

std::array<double, 3> DicomTestSeries::normal() const
{
    auto const& r = row_direction;
    auto const& c = column_direction;
    return {{r[1] * c[2] - r[2] * c[1], r[2] * c[0] - r[0] * c[2], r[0] * c[1] - r[1] * c[0]}};
}

std::array<double, 3> DicomTestSeries::position_mm(int k) const
{
    if (!positions_mm.empty())
        return positions_mm.at(static_cast<std::size_t>(k));
    auto const n = normal();
    std::array<double, 3> p = first_position_mm;
    for (int a = 0; a < 3; ++a)
        p[a] += k * slice_spacing_mm * n[a];
    return p;
}

std::vector<std::string> write_dicom_series(std::string const& directory, DicomTestSeries const& s,
                                            std::string const& file_stem)
{
    std::size_t const per_slice = static_cast<std::size_t>(s.columns) * s.rows;
    if (s.hu.size() != per_slice * s.slices)
        throw std::invalid_argument("DicomTestSeries: hu has the wrong size");
    std::vector<int> order = s.write_order;
    if (order.empty())
    {
        for (int k = 0; k < s.slices; ++k)
            order.push_back(k);
    }
    std::filesystem::create_directories(directory);

    using Slice = itk::Image<float, 2>;
    std::vector<std::string> paths;
    for (std::size_t n = 0; n < order.size(); ++n)
    {
        int const k = order[n];
        auto image = Slice::New();
        Slice::SizeType size;
        size[0] = static_cast<itk::SizeValueType>(s.columns);
        size[1] = static_cast<itk::SizeValueType>(s.rows);
        image->SetRegions(Slice::RegionType(size));
        Slice::SpacingType spacing;
        spacing[0] = s.pixel_spacing_mm[0];
        spacing[1] = s.pixel_spacing_mm[1];
        image->SetSpacing(spacing);
        image->Allocate();
        for (std::size_t v = 0; v < per_slice; ++v)
            image->GetBufferPointer()[v] = static_cast<float>(s.hu[per_slice * k + v]);

        itk::MetaDataDictionary dict;
        auto put = [&dict](char const* tag, std::string const& value)
        { itk::EncapsulateMetaData<std::string>(dict, tag, value); };
        put("0008|0016", "1.2.840.10008.5.1.4.1.1.2");                // SOP Class: CT Image Storage
        put("0008|0018", s.series_uid + "." + std::to_string(k + 1)); // SOP Instance UID
        put("0008|0060", "CT");
        put("0010|0010", "Test^Phantom");
        put("0020|000d", s.study_uid);
        put("0020|000e", s.series_uid);
        put("0020|0052", s.study_uid + ".9"); // Frame of Reference UID
        put("0020|0011", std::to_string(s.series_number));
        // Instance numbers count down along the normal, the reverse of the position order.
        put("0020|0013", std::to_string(s.slices - k));
        auto const ipp = s.position_mm(k);
        put("0020|0032", backslash_list({ipp[0], ipp[1], ipp[2]}));
        put("0020|0037",
            backslash_list({s.row_direction[0], s.row_direction[1], s.row_direction[2],
                            s.column_direction[0], s.column_direction[1], s.column_direction[2]}));
        put("0018|0050", decimal_string(s.slice_spacing_mm)); // Slice Thickness
        put("0028|1052", decimal_string(s.rescale_intercept));
        put("0028|1053", decimal_string(s.rescale_slope));
        put("0028|0004", "MONOCHROME2");                 // Photometric Interpretation
        put("0028|0100", "16");                          // Bits Allocated
        put("0028|0101", "16");                          // Bits Stored
        put("0028|0102", "15");                          // High Bit
        put("0028|0103", s.unsigned_pixels ? "0" : "1"); // Pixel Representation
        image->SetMetaDataDictionary(dict);

        auto io = itk::GDCMImageIO::New();
        io->KeepOriginalUIDOn(); // keep our Study/Series/SOP UIDs
        io->SetMetaDataDictionary(dict);
        auto writer = itk::ImageFileWriter<Slice>::New();
        writer->SetImageIO(io);
        writer->SetInput(image);
        if (s.compressed)
        {
            io->SetCompressionType(itk::GDCMImageIO::JPEG);
            writer->UseCompressionOn();
        }
        std::string const path =
            (std::filesystem::path(directory) / (file_stem + std::to_string(n) + ".dcm")).string();
        writer->SetFileName(path);
        writer->Update();
        paths.push_back(path);
    }
    return paths;
}

void edit_dicom_element(std::string const& path, std::uint16_t group, std::uint16_t element,
                        char const* vr, std::optional<std::string> value)
{
    gdcm::Reader reader;
    reader.SetFileName(path.c_str());
    if (!reader.Read())
        throw std::runtime_error("GDCM cannot read " + path);
    gdcm::DataSet& ds = reader.GetFile().GetDataSet();
    gdcm::Tag const tag(group, element);
    if (!value)
    {
        ds.Remove(tag);
    }
    else
    {
        if (value->size() % 2 != 0)
            value->push_back(' ');
        gdcm::DataElement de(tag);
        de.SetVR(gdcm::VR::GetVRType(vr));
        de.SetByteValue(value->data(), static_cast<std::uint32_t>(value->size()));
        ds.Replace(de);
    }
    gdcm::Writer writer;
    writer.SetFile(reader.GetFile());
    writer.SetFileName(path.c_str());
    if (!writer.Write())
        throw std::runtime_error("GDCM cannot write " + path);
}

std::string us_bytes(std::uint16_t value)
{
    return std::string{char(value & 0xFF), char(value >> 8)};
}

StoredDicomSlice inspect_dicom_file(std::string const& path)
{
    auto io = itk::GDCMImageIO::New();
    io->SetFileName(path);
    io->ReadImageInformation();
    StoredDicomSlice out;
    out.stored_component = io->GetComponentTypeAsString(io->GetInternalComponentType());
    out.rescale_slope = io->GetRescaleSlope();
    out.rescale_intercept = io->GetRescaleIntercept();
    std::string value;
    if (io->GetValueFromTag("0020|000e", value))
        out.series_uid = trimmed(value);
    if (io->GetValueFromTag("0008|0060", value))
        out.modality = trimmed(value);
    gdcm::Reader reader; // the file meta group, which GDCMImageIO does not list
    reader.SetFileName(path.c_str());
    if (reader.Read())
        out.transfer_syntax = reader.GetFile().GetHeader().GetDataSetTransferSyntax().GetString();
    return out;
}

ItkSeries read_series_with_itk(std::string const& directory)
{
    auto names = itk::GDCMSeriesFileNames::New();
    names->SetUseSeriesDetails(true);
    names->SetDirectory(directory);
    auto const uids = names->GetSeriesUIDs();
    if (uids.size() != 1)
        throw std::runtime_error("expected one series in " + directory);
    using Image = itk::Image<double, 3>;
    auto reader = itk::ImageSeriesReader<Image>::New();
    reader->SetImageIO(itk::GDCMImageIO::New());
    reader->SetFileNames(names->GetFileNames(uids.front()));
    reader->Update();
    Image const& image = *reader->GetOutput();
    ItkSeries out;
    for (unsigned a = 0; a < 3; ++a)
    {
        out.size[a] = image.GetLargestPossibleRegion().GetSize()[a];
        out.spacing_mm[a] = image.GetSpacing()[a];
        out.origin_mm[a] = image.GetOrigin()[a];
        for (unsigned b = 0; b < 3; ++b)
            out.direction[3 * a + b] = image.GetDirection()(a, b);
    }
    Image::PixelType const* values = image.GetBufferPointer();
    out.values.assign(values, values + image.GetLargestPossibleRegion().GetNumberOfPixels());
    return out;
}
} // namespace mcdose::test
