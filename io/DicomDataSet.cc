//! \file io/DicomDataSet.cc
#include "io/DicomDataSet.hh"

#include <sstream>

#include <gdcmDataSet.h>
#include <gdcmFile.h>
#include <gdcmImageReader.h>
#include <gdcmReader.h>
#include <gdcmSequenceOfItems.h>
#include <gdcmTrace.h>
#include <gdcmUIDGenerator.h>
#include <gdcmWriter.h>

#include "core/Assert.hh"
#include "io/DicomValue.hh"

namespace mcdose
{
namespace
{
gdcm::Tag gdcm_tag(DicomTag tag)
{
    return gdcm::Tag(tag.group, tag.element);
}

gdcm::VR gdcm_vr(DicomVr vr)
{
    switch (vr)
    {
    case DicomVr::AT:
        return gdcm::VR::AT;
    case DicomVr::CS:
        return gdcm::VR::CS;
    case DicomVr::DA:
        return gdcm::VR::DA;
    case DicomVr::DS:
        return gdcm::VR::DS;
    case DicomVr::IS:
        return gdcm::VR::IS;
    case DicomVr::LO:
        return gdcm::VR::LO;
    case DicomVr::OW:
        return gdcm::VR::OW;
    case DicomVr::PN:
        return gdcm::VR::PN;
    case DicomVr::SH:
        return gdcm::VR::SH;
    case DicomVr::TM:
        return gdcm::VR::TM;
    case DicomVr::UI:
        return gdcm::VR::UI;
    }
    MCDOSE_ASSERT_UNREACHABLE();
}
} // namespace

struct DicomDataSet::Impl
{
    gdcm::DataSet ds;
};

DicomDataSet::DicomDataSet() : impl_(std::make_unique<Impl>())
{
}
DicomDataSet::~DicomDataSet() = default;
DicomDataSet::DicomDataSet(DicomDataSet const& other) : impl_(std::make_unique<Impl>(*other.impl_))
{
}
DicomDataSet& DicomDataSet::operator=(DicomDataSet const& other)
{
    *impl_ = *other.impl_;
    return *this;
}

void DicomDataSet::put(DicomTag tag, DicomVr vr, std::string value)
{
    if (value.size() % 2 != 0)
        value.push_back(vr == DicomVr::UI ? '\0' : ' ');
    this->put_bytes(tag, vr, value.data(), value.size());
}

void DicomDataSet::put_bytes(DicomTag tag, DicomVr vr, void const* bytes, std::size_t size)
{
    gdcm::DataElement de(gdcm_tag(tag));
    de.SetVR(gdcm_vr(vr));
    de.SetByteValue(static_cast<char const*>(bytes), static_cast<std::uint32_t>(size));
    impl_->ds.Replace(de);
}

void DicomDataSet::put_us(DicomTag tag, std::uint16_t value)
{
    // What gdcm::Attribute<group, element>::GetAsDataElement makes of a US element: VR US
    // and the value's two bytes, little endian (the host's order on the hosts mcdose runs on).
    static_assert(sizeof(value) == 2, "US is 16 bits");
    gdcm::DataElement de(gdcm_tag(tag));
    de.SetVR(gdcm::VR::US);
    de.SetByteValue(reinterpret_cast<char const*>(&value), 2);
    impl_->ds.Replace(de);
}

void DicomDataSet::put_sequence(DicomTag tag, std::vector<DicomDataSet> const& items)
{
    gdcm::SmartPointer<gdcm::SequenceOfItems> sequence = new gdcm::SequenceOfItems;
    sequence->SetLengthToUndefined();
    for (DicomDataSet const& d : items)
    {
        gdcm::Item item;
        item.SetVLToUndefined();
        item.SetNestedDataSet(d.impl_->ds);
        sequence->AddItem(item);
    }
    gdcm::DataElement de(gdcm_tag(tag));
    de.SetVR(gdcm::VR::SQ);
    de.SetValue(*sequence);
    de.SetVLToUndefined();
    impl_->ds.Replace(de);
}

std::optional<std::string> DicomDataSet::encode_explicit_little_endian() const
{
    gdcm::Writer writer;
    gdcm::File& file = writer.GetFile();
    file.SetDataSet(impl_->ds);
    file.GetHeader().SetDataSetTransferSyntax(gdcm::TransferSyntax::ExplicitVRLittleEndian);
    std::ostringstream os(std::ios::binary);
    writer.SetStream(os);
    if (!writer.Write())
        return std::nullopt;
    return os.str();
}

void quiet_gdcm()
{
    gdcm::Trace::WarningOff();
    gdcm::Trace::ErrorOff();
    gdcm::Trace::DebugOff();
}

std::string new_dicom_uid()
{
    gdcm::UIDGenerator uid;
    return uid.Generate();
}

struct DicomReadSet::Impl
{
    std::shared_ptr<gdcm::Reader const> file;       //!< keeps the whole file alive
    gdcm::SmartPointer<gdcm::SequenceOfItems> held; //!< the sequence an item belongs to
    gdcm::DataSet const* ds{nullptr};
};

DicomReadSet::DicomReadSet(std::shared_ptr<Impl const> impl) : impl_(std::move(impl))
{
}

std::optional<DicomReadSet> DicomReadSet::read(std::string const& path)
{
    auto reader = std::make_shared<gdcm::Reader>();
    reader->SetFileName(path.c_str());
    if (!reader->Read())
        return std::nullopt;
    auto impl = std::make_shared<Impl>();
    impl->ds = &reader->GetFile().GetDataSet();
    impl->file = std::move(reader);
    return DicomReadSet(std::move(impl));
}

bool DicomReadSet::has(DicomTag tag) const
{
    return impl_->ds->FindDataElement(gdcm_tag(tag));
}

std::string DicomReadSet::text(DicomTag tag) const
{
    gdcm::Tag const t = gdcm_tag(tag);
    if (!impl_->ds->FindDataElement(t))
        return {};
    gdcm::ByteValue const* bv = impl_->ds->GetDataElement(t).GetByteValue();
    if (!bv || !bv->GetPointer())
        return {};
    return trim_dicom_value(std::string(bv->GetPointer(), bv->GetLength()));
}

std::vector<DicomReadSet> DicomReadSet::items(DicomTag tag) const
{
    std::vector<DicomReadSet> result;
    gdcm::Tag const t = gdcm_tag(tag);
    if (!impl_->ds->FindDataElement(t))
        return result;
    gdcm::SmartPointer<gdcm::SequenceOfItems> sq = impl_->ds->GetDataElement(t).GetValueAsSQ();
    if (!sq)
        return result;
    for (gdcm::SequenceOfItems::SizeType i = 1; i <= sq->GetNumberOfItems(); ++i)
    {
        auto impl = std::make_shared<Impl>();
        impl->file = impl_->file;
        impl->held = sq;
        impl->ds = &sq->GetItem(i).GetNestedDataSet();
        result.push_back(DicomReadSet(std::move(impl)));
    }
    return result;
}

struct DicomImageFile::Impl
{
    gdcm::ImageReader reader;
};

DicomImageFile::DicomImageFile() : impl_(std::make_unique<Impl>())
{
}
DicomImageFile::~DicomImageFile() = default;

bool DicomImageFile::read(std::string const& path)
{
    quiet_gdcm();
    impl_->reader.SetFileName(path.c_str());
    return impl_->reader.Read();
}

std::string DicomImageFile::text(DicomTag tag) const
{
    gdcm::DataSet const& ds = impl_->reader.GetFile().GetDataSet();
    gdcm::Tag const t = gdcm_tag(tag);
    if (!ds.FindDataElement(t))
        return {};
    gdcm::ByteValue const* bv = ds.GetDataElement(t).GetByteValue();
    if (!bv)
        return {};
    return trim_dicom_value(std::string(bv->GetPointer(), bv->GetLength()));
}

unsigned DicomImageFile::number_of_dimensions() const
{
    return impl_->reader.GetImage().GetNumberOfDimensions();
}

std::array<unsigned, 3> DicomImageFile::dimensions() const
{
    gdcm::Image const& image = impl_->reader.GetImage();
    unsigned const* dims = image.GetDimensions();
    return {dims[0], dims[1], image.GetNumberOfDimensions() > 2 ? dims[2] : 1u};
}

DicomImageFile::PixelFormat DicomImageFile::pixel_format() const
{
    gdcm::PixelFormat const pf = impl_->reader.GetImage().GetPixelFormat();
    return {pf.GetSamplesPerPixel(), pf.GetBitsAllocated(), pf.GetPixelRepresentation()};
}

std::optional<std::vector<char>> DicomImageFile::decoded_pixels() const
{
    gdcm::Image const& image = impl_->reader.GetImage();
    std::vector<char> buffer(image.GetBufferLength());
    if (!image.GetBuffer(buffer.data()))
        return std::nullopt;
    return buffer;
}
} // namespace mcdose
