//! \file io/DicomPixelData.cc
//! GDCM reads the file up to its Pixel Data element's value (the value skipped); the
//! element's length, or its fragments' items, are then read from the file itself (PS3.5
//! section 7.1 for the element's header, A.4 for encapsulated fragments).
#include "io/DicomPixelData.hh"

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <gdcmReader.h>
#include <gdcmTag.h>
#include <gdcmTransferSyntax.h>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
constexpr std::uint32_t undefined_length = 0xFFFFFFFFu;

std::uint32_t read_u32(unsigned char const* p, bool big_endian)
{
    return big_endian ? std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 |
                            std::uint32_t(p[2]) << 8 | std::uint32_t(p[3])
                      : std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 |
                            std::uint32_t(p[1]) << 8 | std::uint32_t(p[0]);
}

//! The length in the header of the Pixel Data element whose value starts at `value_at`
//! (implicit VR: tag, length; explicit VR: tag, VR, two reserved bytes, length), or no
//! value where the bytes before it are not such a header.
bool pixel_data_length(std::ifstream& in, std::uint64_t value_at, bool big_endian,
                       std::uint32_t& length)
{
    if (value_at < 12)
        return false;
    std::array<unsigned char, 12> h{};
    in.seekg(static_cast<std::streamoff>(value_at - 12));
    if (!in.read(reinterpret_cast<char*>(h.data()), 12))
        return false;
    static constexpr unsigned char le_tag[4] = {0xE0, 0x7F, 0x10, 0x00};
    static constexpr unsigned char be_tag[4] = {0x7F, 0xE0, 0x00, 0x10};
    unsigned char const* tag = big_endian ? be_tag : le_tag;
    if (std::memcmp(h.data() + 4, tag, 4) == 0) // implicit VR
    {
        length = read_u32(h.data() + 8, big_endian);
        return true;
    }
    bool const vr_letters = h[4] >= 'A' && h[4] <= 'Z' && h[5] >= 'A' && h[5] <= 'Z';
    if (std::memcmp(h.data(), tag, 4) == 0 && vr_letters) // explicit VR
    {
        length = read_u32(h.data() + 8, big_endian);
        return true;
    }
    return false;
}

//! Where encapsulated fragments starting at `at` end: 0 where an item runs past `size` or
//! the file ends before the sequence delimiter (cut short); `size` + 1 where the bytes are
//! not items (not checked here).
std::uint64_t end_of_fragments(std::ifstream& in, std::uint64_t at, std::uint64_t size)
{
    static constexpr unsigned char item[4] = {0xFE, 0xFF, 0x00, 0xE0};
    static constexpr unsigned char delimiter[4] = {0xFE, 0xFF, 0xDD, 0xE0};
    in.seekg(static_cast<std::streamoff>(at));
    while (at + 8 <= size)
    {
        std::array<unsigned char, 8> h{};
        if (!in.read(reinterpret_cast<char*>(h.data()), 8))
            return 0;
        if (std::memcmp(h.data(), delimiter, 4) == 0)
            return at + 8;
        if (std::memcmp(h.data(), item, 4) != 0)
            return size + 1;
        std::uint64_t const next = at + 8 + read_u32(h.data() + 4, false);
        if (next > size)
            return 0;
        at = next;
        in.seekg(static_cast<std::streamoff>(at));
    }
    return 0;
}
} // namespace

void check_dicom_pixel_data_complete(std::string const& path, std::string const& what)
{
    gdcm::Tag const pixel_data(0x7FE0, 0x0010);
    gdcm::Reader reader;
    reader.SetFileName(path.c_str());
    std::set<gdcm::Tag> const skip{pixel_data};
    if (!reader.ReadUpToTag(pixel_data, skip))
        return; // not readable as DICOM: the reader that follows says so
    gdcm::TransferSyntax const ts = reader.GetFile().GetHeader().GetDataSetTransferSyntax();
    if (ts == gdcm::TransferSyntax::DeflatedExplicitVRLittleEndian)
        return; // positions are in the inflated stream
    std::uint64_t const value_at = reader.GetStreamCurrentPosition();
    std::error_code ec;
    std::uint64_t const size = std::filesystem::file_size(path, ec);
    if (ec || value_at > size)
        return;
    std::ifstream in(path, std::ios::binary);
    std::uint32_t length = 0;
    bool const big_endian = ts.GetSwapCode() == gdcm::SwapCode::BigEndian;
    if (!in || !pixel_data_length(in, value_at, big_endian, length))
        return; // no Pixel Data, or not where GDCM stopped
    if (length != undefined_length)
    {
        MCDOSE_VALIDATE(value_at + length <= size,
                        << "cannot read the " << what << ": file '" << path
                        << "' is cut short: its Pixel Data holds " << (size - value_at)
                        << " of the " << length
                        << " bytes its header announces (a truncated or damaged copy, whose "
                           "missing pixels would read as zeros); copy the file again from "
                           "its source");
        return;
    }
    std::uint64_t const end = end_of_fragments(in, value_at, size);
    MCDOSE_VALIDATE(end != 0, << "cannot read the " << what << ": file '" << path
                              << "' is cut short inside its compressed Pixel Data (a fragment "
                                 "runs past the file's end, or the fragments' delimiter is "
                                 "missing); copy the file again from its source");
}
} // namespace mcdose
