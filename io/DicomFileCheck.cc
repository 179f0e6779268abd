//! \file io/DicomFileCheck.cc
//! A walk over a DICOM file's element headers (PS3.5): the file meta group in explicit VR
//! little endian (7.1), the data set in its transfer syntax's encoding; a value of defined
//! length is skipped, one of undefined length walked: a sequence's items (7.5), encapsulated
//! fragments (A.4), or an item's elements up to its delimiter.
#include "io/DicomFileCheck.hh"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <cstdlib>

#include "core/Assert.hh"
#include "io/DicomValue.hh"

namespace mcdose
{
namespace
{
constexpr std::uint32_t undefined_length = 0xFFFFFFFFu;
constexpr std::uint16_t item_group = 0xFFFE;
constexpr std::uint16_t item = 0xE000, item_end = 0xE00D, sequence_end = 0xE0DD;
constexpr int max_depth = 64; //!< nested sequences walked (deeper: left to the reader)

//! How a data set is encoded.
struct Encoding
{
    bool explicit_vr{true};
    bool big_endian{false};
};

//! An element's header.
struct Header
{
    std::uint16_t group{0}, element{0};
    char vr[2]{};
    std::uint32_t length{0};
    std::uint64_t value_at{0}; //!< where the value starts
};

//! The walk's end: the file is whole as far as it was understood, or it is cut short (with
//! what the message says), or its bytes are not DICOM elements (left to the reader).
enum class Walk
{
    whole,
    cut_short,
    not_understood
};

//! VRs with two reserved bytes and a 4-byte length in explicit VR (PS3.5 7.1.2).
bool long_vr(char const* vr)
{
    static constexpr char const* long_vrs[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ",
                                               "SV", "UC", "UN", "UR", "UT", "UV"};
    for (char const* l : long_vrs)
    {
        if (vr[0] == l[0] && vr[1] == l[1])
            return true;
    }
    return false;
}

//! One file's walk: its element headers read where they are (the values skipped).
class DicomWalker
{
  public:
    //! The data set's top-level elements, in file order, as the walk passed them.
    std::vector<Header> top_level;
    Encoding encoding;  //!< the data set's
    std::string syntax; //!< Transfer Syntax UID (0002,0010)

    explicit DicomWalker(std::string const& path) : in_(path, std::ios::binary)
    {
        std::error_code ec;
        size_ = std::filesystem::file_size(path, ec);
        ok_ = in_ && !ec;
    }

    //! The file, from its preamble.
    Walk walk()
    {
        char magic[4] = {};
        if (!ok_ || !this->read(128, magic, 4) || std::memcmp(magic, "DICM", 4) != 0)
            return Walk::not_understood;
        // The file meta group: explicit VR little endian, up to the first other group.
        std::uint64_t at = 132;
        Encoding const meta{};
        while (at < size_)
        {
            unsigned char group[2];
            if (!this->read(at, group, 2) || number(group, 2, false) != 0x0002)
                break; // the data set, in its own encoding (or a cut, found there)
            Header h;
            Walk const w = this->header(at, meta, h);
            if (w != Walk::whole)
                return w;
            if (h.length == undefined_length)
                return Walk::not_understood;
            std::uint64_t next = at;
            if (this->skip_value(h, next) != Walk::whole)
                return Walk::cut_short;
            if (h.element == 0x0010 && h.length < 128)
            {
                syntax.assign(h.length, '\0');
                this->read(h.value_at, syntax.data(), h.length);
                while (!syntax.empty() && (syntax.back() == '\0' || syntax.back() == ' '))
                    syntax.pop_back();
            }
            at = next;
        }
        if (at >= size_)
        {
            problem_ = "it ends at byte " + std::to_string(size_) +
                       ", after its file meta information, with no data set";
            return Walk::cut_short;
        }
        if (syntax == "1.2.840.10008.1.2.1.99")
            return Walk::whole; // deflated: the walk would need the inflated bytes
        encoding.explicit_vr = syntax != "1.2.840.10008.1.2";
        encoding.big_endian = syntax == "1.2.840.10008.1.2.2";
        return this->elements(at, encoding, false, 0, at);
    }

    //! What the message says after "is cut short: ".
    std::string const& problem() const { return problem_; }

    //! The file's length [bytes].
    std::uint64_t size() const { return size_; }

    //! `n` bytes at `at` (false past the end).
    bool read(std::uint64_t at, void* to, std::size_t n)
    {
        if (at + n > size_)
            return false;
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(at));
        return static_cast<bool>(in_.read(static_cast<char*>(to), static_cast<std::streamsize>(n)));
    }

  private:
    std::ifstream in_;
    std::uint64_t size_{0};
    bool ok_{false};
    std::string problem_;

    static std::uint32_t number(unsigned char const* p, int bytes, bool big_endian)
    {
        std::uint32_t v = 0;
        for (int i = 0; i < bytes; ++i)
            v |= std::uint32_t(p[big_endian ? bytes - 1 - i : i]) << (8 * i);
        return v;
    }

    Walk header(std::uint64_t at, Encoding e, Header& h)
    {
        std::array<unsigned char, 12> b{};
        auto const cut = [&]
        {
            problem_ = "it ends at byte " + std::to_string(size_) +
                       ", inside the header of the element that starts at byte " +
                       std::to_string(at);
            return Walk::cut_short;
        };
        if (!this->read(at, b.data(), 8))
            return cut();
        h.group = std::uint16_t(number(b.data(), 2, e.big_endian));
        h.element = std::uint16_t(number(b.data() + 2, 2, e.big_endian));
        if (h.group == item_group || !e.explicit_vr)
        {
            h.length = number(b.data() + 4, 4, e.big_endian);
            h.value_at = at + 8;
            return Walk::whole;
        }
        h.vr[0] = char(b[4]);
        h.vr[1] = char(b[5]);
        if (h.vr[0] < 'A' || h.vr[0] > 'Z' || h.vr[1] < 'A' || h.vr[1] > 'Z')
            return Walk::not_understood;
        if (!long_vr(h.vr))
        {
            h.length = number(b.data() + 6, 2, e.big_endian);
            h.value_at = at + 8;
            return Walk::whole;
        }
        if (!this->read(at, b.data(), 12))
            return cut();
        h.length = number(b.data() + 8, 4, e.big_endian);
        h.value_at = at + 12;
        return Walk::whole;
    }

    Walk value_cut_short(Header const& h)
    {
        char tag[16];
        std::snprintf(tag, sizeof(tag), "(%04X,%04X)", unsigned(h.group), unsigned(h.element));
        std::uint64_t const there = h.value_at < size_ ? size_ - h.value_at : 0;
        problem_ = (h.group == 0x7FE0 && h.element == 0x0010 ? std::string("its Pixel Data")
                                                             : "its element " + std::string(tag)) +
                   " holds " + std::to_string(there) + " of the " + std::to_string(h.length) +
                   " bytes its header announces";
        return Walk::cut_short;
    }

    //! Past a value of defined length: `at` to its end, or the value runs past the file's.
    Walk skip_value(Header const& h, std::uint64_t& at)
    {
        if (h.value_at + h.length > size_)
            return this->value_cut_short(h);
        at = h.value_at + h.length;
        return Walk::whole;
    }

    Walk missing_delimiter(char const* what)
    {
        problem_ = std::string("it ends at byte ") + std::to_string(size_) + " inside " + what +
                   ", before its delimiter";
        return Walk::cut_short;
    }

    //! Elements from `at`: to the file's end, or (in_item) to the item's delimiter; `end`
    //! receives where the walk ended.
    Walk elements(std::uint64_t at, Encoding e, bool in_item, int depth, std::uint64_t& end)
    {
        while (at < size_)
        {
            Header h;
            Walk const w = this->header(at, e, h);
            if (w != Walk::whole)
                return w;
            if (h.group == item_group && h.element == item_end && in_item)
            {
                end = h.value_at;
                return Walk::whole;
            }
            if (depth == 0)
                top_level.push_back(h);
            if (h.length != undefined_length)
            {
                if (this->skip_value(h, at) != Walk::whole)
                    return Walk::cut_short;
                continue;
            }
            if (depth >= max_depth)
                return Walk::not_understood;
            bool const pixels = h.group == 0x7FE0 && h.element == 0x0010;
            // A UN value of undefined length is a sequence in implicit VR little endian
            // (PS3.5 6.2.2).
            Encoding inner = e;
            if (e.explicit_vr && h.vr[0] == 'U' && h.vr[1] == 'N')
                inner = Encoding{false, false};
            Walk const s = this->items(h.value_at, inner, pixels, depth + 1, at);
            if (s != Walk::whole)
                return s;
        }
        end = at;
        return in_item ? this->missing_delimiter("an item") : Walk::whole;
    }

    //! A sequence's items (or encapsulated fragments: items of defined length) from `at` to
    //! the sequence's delimiter; `end` receives where it ends.
    Walk items(std::uint64_t at, Encoding e, bool fragments, int depth, std::uint64_t& end)
    {
        while (at < size_)
        {
            Header h;
            Walk const w = this->header(at, Encoding{false, e.big_endian}, h);
            if (w != Walk::whole)
                return w;
            if (h.group != item_group)
                return Walk::not_understood;
            if (h.element == sequence_end)
            {
                end = h.value_at;
                return Walk::whole;
            }
            if (h.element != item)
                return Walk::not_understood;
            if (h.length != undefined_length)
            {
                if (this->skip_value(h, at) != Walk::whole)
                    return Walk::cut_short;
                continue;
            }
            if (fragments)
                return Walk::not_understood;
            Walk const inner = this->elements(h.value_at, e, true, depth, at);
            if (inner != Walk::whole)
                return inner;
        }
        return this->missing_delimiter(fragments ? "its compressed Pixel Data" : "a sequence");
    }
};
} // namespace

namespace
{
std::uint32_t key(DicomTag t)
{
    return std::uint32_t(t.group) << 16 | t.element;
}

[[noreturn]] void refuse_walk(std::string const& what, std::string const& path,
                              std::string const& problem)
{
    throw RuntimeError("cannot read the " + what + ": file '" + path + "' " + problem);
}

[[noreturn]] void refuse_cut_short(std::string const& what, std::string const& path,
                                   std::string const& problem)
{
    refuse_walk(what, path,
                "is cut short: " + problem +
                    " (a truncated or damaged copy); copy the file again from its source");
}
} // namespace

DicomElementAt const* DicomFileElements::find(DicomTag tag) const
{
    for (auto const& e : elements)
    {
        if (e.tag.group == tag.group && e.tag.element == tag.element)
            return &e;
    }
    return nullptr;
}

std::string DicomFileElements::text(DicomTag tag) const
{
    auto const it = values.find(key(tag));
    return it == values.end() ? std::string() : trim_dicom_value(it->second);
}

std::optional<std::uint16_t> DicomFileElements::us(DicomTag tag) const
{
    auto const it = values.find(key(tag));
    if (it == values.end() || it->second.size() != 2)
        return std::nullopt;
    auto const* b = reinterpret_cast<unsigned char const*>(it->second.data());
    return std::uint16_t(big_endian ? (b[0] << 8 | b[1]) : (b[1] << 8 | b[0]));
}

std::optional<DicomFileElements> read_dicom_elements(std::string const& path,
                                                     std::string const& what)
{
    DicomWalker walker(path);
    Walk const w = walker.walk();
    if (w == Walk::cut_short)
        refuse_cut_short(what, path, walker.problem());
    char magic[4] = {};
    if (!walker.read(128, magic, 4) || std::memcmp(magic, "DICM", 4) != 0)
        return std::nullopt;
    if (w == Walk::not_understood)
    {
        refuse_walk(what, path,
                    "holds bytes that are not DICOM data elements (PS3.5 section 7; a damaged "
                    "file?); copy the file again from its source");
    }
    std::string const& ts = walker.syntax;
    bool const known = ts == "1.2.840.10008.1.2" || ts == "1.2.840.10008.1.2.1" ||
                       ts == "1.2.840.10008.1.2.2" || ts == "1.2.840.10008.1.2.5" ||
                       ts == "1.2.840.10008.1.2.1.99" || ts.rfind("1.2.840.10008.1.2.4.", 0) == 0;
    MCDOSE_VALIDATE(known, << "cannot read the " << what << ": file '" << path
                           << "' has Transfer Syntax UID (0002,0010) '" << ts
                           << "', which is not one of DICOM's (PS3.5 section 10 and annex A; a "
                              "damaged file?); copy the file again from its source");
    MCDOSE_VALIDATE(walker.syntax != "1.2.840.10008.1.2.1.99",
                    << "cannot read the " << what << ": file '" << path
                    << "' is deflated (transfer syntax 1.2.840.10008.1.2.1.99), which mcdose "
                       "does not read; convert it to explicit VR little endian (e.g. dcmconv "
                       "+te, or gdcmconv --raw)");
    DicomFileElements out;
    out.path = path;
    out.transfer_syntax = walker.syntax;
    out.big_endian = walker.encoding.big_endian;
    out.file_size = walker.size();
    for (Header const& h : walker.top_level)
    {
        out.elements.push_back({DicomTag{h.group, h.element}, h.value_at, h.length});
        if (h.length > 1024)
            continue;
        std::string value(h.length, '\0');
        walker.read(h.value_at, value.data(), h.length);
        out.values[key(DicomTag{h.group, h.element})] = std::move(value);
    }
    return out;
}

void check_dicom_pixel_length(DicomFileElements const& file, std::string const& what)
{
    DicomElementAt const* pixels = file.find(DicomTag{0x7FE0, 0x0010});
    if (!pixels || pixels->length == undefined_dicom_length)
        return;
    std::string const frames_text = file.text(DicomTag{0x0028, 0x0008});
    char* end = nullptr;
    long long const frames = frames_text.empty() ? 1 : std::strtoll(frames_text.c_str(), &end, 10);
    MCDOSE_VALIDATE(frames_text.empty() || (end && *end == '\0' && frames >= 1),
                    << "cannot read the " << what << ": file '" << file.path
                    << "' has Number of Frames (0028,0008) '" << frames_text
                    << "', not a positive integer; the file is damaged: export it again");
    std::uint64_t const rows = file.us(DicomTag{0x0028, 0x0010}).value_or(0);
    std::uint64_t const columns = file.us(DicomTag{0x0028, 0x0011}).value_or(0);
    std::uint64_t const samples = file.us(DicomTag{0x0028, 0x0002}).value_or(1);
    std::uint64_t const bits = file.us(DicomTag{0x0028, 0x0100}).value_or(0);
    std::uint64_t const expected =
        (rows * columns * std::uint64_t(frames) * samples * bits + 7) / 8;
    std::uint64_t const length = pixels->length;
    MCDOSE_VALIDATE(length == expected || (expected % 2 == 1 && length == expected + 1),
                    << "cannot read the " << what << ": file '" << file.path
                    << "' has Pixel Data of " << length << " bytes, but Rows (" << rows
                    << ") x Columns (" << columns << ") x Number of Frames (" << frames
                    << ") x Samples per Pixel (" << samples << ") x Bits Allocated (" << bits
                    << ") / 8 is " << expected
                    << " bytes: the header does not describe the pixels (a damaged or "
                       "wrongly edited file); export it again from its source");
}

void check_dicom_file_complete(std::string const& path, std::string const& what)
{
    DicomWalker walker(path);
    if (walker.walk() == Walk::cut_short)
        refuse_cut_short(what, path, walker.problem());
}
} // namespace mcdose
