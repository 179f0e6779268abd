//! \file io/ImageFileCheck.cc
#include "io/detail/ImageFileCheck.hh"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include <zlib.h>

#include "core/Assert.hh"
#include "io/detail/ItkImage.hh"

namespace fs = std::filesystem;

namespace mcdose::detail
{
namespace
{
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
} // namespace

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

void check_gzip_stream(std::string const& path, GzipStream const& g)
{
    auto const [bytes, whole] = inflate_gzip(path, g.offset);
    MCDOSE_VALIDATE(whole && bytes >= g.expected,
                    << "image '" << path << "' is truncated: its compressed data inflate to "
                    << bytes << " of the " << g.expected << " bytes its header promises"
                    << (whole ? "" : " and end before their gzip trailer")
                    << " (an interrupted copy or a full disk?)");
}

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
} // namespace mcdose::detail
