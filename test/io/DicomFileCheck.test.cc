//! A DICOM file cut short anywhere is refused before GDCM reads it (GDCM reads the missing
//! pixels as zeros, or stops the process on a cut inside an element's header): files built
//! here byte by byte (PS3.5), with sequences and items of defined and undefined length and
//! encapsulated pixel data, in each encoding, cut at every byte; and the example RT Structure
//! Set cut at many places.
#include "io/DicomFileCheck.hh"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "core/Assert.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
//! Bytes of a DICOM file, element by element, with the offsets where its top-level data set
//! elements end.
class DicomBytes
{
  public:
    DicomBytes(bool explicit_vr, bool big_endian) : explicit_(explicit_vr), big_(big_endian)
    {
        bytes_.assign(128, '\0');
        bytes_ += "DICM";
        std::string const syntax = !explicit_vr ? "1.2.840.10008.1.2"
                                   : big_endian ? "1.2.840.10008.1.2.2"
                                                : "1.2.840.10008.1.2.1";
        std::string group = meta("UI", 0x0010, padded(syntax, '\0'));
        bytes_ += meta("UL", 0x0000, le32(std::uint32_t(group.size()))) + group;
    }

    //! An element of defined length (top level: its end is a place where the file is whole).
    DicomBytes& element(std::uint16_t g, std::uint16_t e, char const* vr, std::string value)
    {
        bytes_ += header(g, e, vr, std::uint32_t(value.size())) + value;
        whole_at_.insert(bytes_.size());
        return *this;
    }
    //! A sequence of undefined length: an item of undefined length holding one element, an
    //! item of defined length holding another, then the delimiter.
    DicomBytes& sequence(std::uint16_t g, std::uint16_t e)
    {
        std::string const inner_a = header(0x0008, 0x1150, "UI", 4) + std::string("1.2\0", 4);
        std::string const inner_b = header(0x0008, 0x1155, "UI", 6) + std::string("1.2.3\0", 6);
        bytes_ += header(g, e, "SQ", 0xFFFFFFFFu) + item(0xE000, 0xFFFFFFFFu) + inner_a +
                  item(0xE00D, 0) + item(0xE000, std::uint32_t(inner_b.size())) + inner_b +
                  item(0xE0DD, 0);
        whole_at_.insert(bytes_.size());
        return *this;
    }
    //! Encapsulated Pixel Data: an empty offset table, two fragments, the delimiter.
    DicomBytes& fragments()
    {
        bytes_ += header(0x7FE0, 0x0010, "OB", 0xFFFFFFFFu) + item(0xE000, 0) + item(0xE000, 6) +
                  std::string("frag1\0", 6) + item(0xE000, 4) + std::string("fr2\0", 4) +
                  item(0xE0DD, 0);
        whole_at_.insert(bytes_.size());
        return *this;
    }

    std::string const& bytes() const { return bytes_; }
    //! Lengths at which the file ends after a whole top-level element.
    std::set<std::size_t> const& whole_at() const { return whole_at_; }

  private:
    bool explicit_, big_;
    std::string bytes_;
    std::set<std::size_t> whole_at_;

    static std::string padded(std::string s, char pad)
    {
        if (s.size() % 2)
            s += pad;
        return s;
    }
    std::string number(std::uint32_t v, int n, bool big) const
    {
        std::string s(std::size_t(n), '\0');
        for (int i = 0; i < n; ++i)
            s[std::size_t(big ? n - 1 - i : i)] = char((v >> (8 * i)) & 0xFF);
        return s;
    }
    std::string le32(std::uint32_t v) const { return number(v, 4, false); }
    //! A file meta element: explicit VR little endian, short form.
    std::string meta(char const* vr, std::uint16_t e, std::string const& value) const
    {
        return number(0x0002, 2, false) + number(e, 2, false) + vr +
               number(std::uint32_t(value.size()), 2, false) + value;
    }
    std::string header(std::uint16_t g, std::uint16_t e, char const* vr, std::uint32_t n) const
    {
        std::string h = number(g, 2, big_) + number(e, 2, big_);
        if (!explicit_)
            return h + number(n, 4, big_);
        std::string const v(vr);
        if (v == "OB" || v == "SQ" || v == "UN")
            return h + v + std::string(2, '\0') + number(n, 4, big_);
        return h + v + number(n, 2, big_);
    }
    std::string item(std::uint16_t e, std::uint32_t n) const
    {
        return number(0xFFFE, 2, big_) + number(e, 2, big_) + number(n, 4, big_);
    }
};

class DicomFileCheckTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() / ("mcdose_dicomcheck_" + std::to_string(::getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    //! The check's message for `bytes` written to a file ("" when it passes).
    std::string check(std::string const& bytes) const
    {
        std::string const path = (dir_ / "f.dcm").string();
        std::ofstream(path, std::ios::binary) << bytes;
        try
        {
            check_dicom_file_complete(path, "test file");
        }
        catch (RuntimeError const& e)
        {
            return e.what();
        }
        return "";
    }

    fs::path dir_;
};
} // namespace

TEST_F(DicomFileCheckTest, EveryCutIsRefusedExceptBetweenWholeElements)
{
    struct Case
    {
        bool explicit_vr, big_endian;
    };
    for (Case const c : {Case{true, false}, Case{false, false}, Case{true, true}})
    {
        DicomBytes file(c.explicit_vr, c.big_endian);
        file.element(0x0008, 0x0060, "CS", "CT")
            .sequence(0x0008, 0x1140)
            .element(0x0028, 0x0010, "US", std::string("\x02\x00", 2))
            .fragments();
        std::string const& b = file.bytes();
        std::string const encoding = std::string(c.explicit_vr ? "explicit" : "implicit") +
                                     (c.big_endian ? " big endian" : "");
        EXPECT_EQ("", check(b)) << encoding;
        std::size_t refused = 0;
        for (std::size_t n = 132; n < b.size(); ++n)
        {
            std::string const e = check(b.substr(0, n));
            if (file.whole_at().count(n))
            {
                EXPECT_EQ("", e) << encoding << ", " << n << " bytes";
                continue;
            }
            ASSERT_NE(std::string::npos, e.find("is cut short"))
                << encoding << ", " << n << ": " << e;
            EXPECT_NE(std::string::npos, e.find("cannot read the test file")) << e;
            ++refused;
        }
        EXPECT_EQ(b.size() - 132 - (file.whole_at().size() - 1), refused) << encoding;
    }
}

TEST_F(DicomFileCheckTest, MessagesSayWhereTheFileEnds)
{
    DicomBytes file(true, false);
    file.element(0x0008, 0x0060, "CS", "CT").element(0x7FE0, 0x0010, "OB", std::string(96, 'p'));
    std::string const& b = file.bytes();
    std::string const pixels = check(b.substr(0, b.size() - 5));
    EXPECT_NE(std::string::npos, pixels.find("its Pixel Data holds 91 of the 96 bytes")) << pixels;
    std::string const header = check(b.substr(0, b.size() - 96 - 3));
    EXPECT_NE(std::string::npos, header.find("inside the header of the element")) << header;
    DicomBytes seq(true, false);
    seq.sequence(0x0008, 0x1140);
    std::string const delimiter = check(seq.bytes().substr(0, seq.bytes().size() - 8));
    EXPECT_NE(std::string::npos, delimiter.find("inside a sequence, before its delimiter"))
        << delimiter;
    std::string const meta_only = check(DicomBytes(true, false).bytes());
    EXPECT_NE(std::string::npos, meta_only.find("with no data set")) << meta_only;
    // Not a DICOM Part 10 file: left to the reader.
    EXPECT_EQ("", check("not a DICOM file at all"));
}

TEST_F(DicomFileCheckTest, TheExampleStructureSetCutAnywhereIsRefused)
{
    std::string const example = test::source_dir() + "/examples/synthetic_ct_rtstruct.dcm";
    std::ifstream in(example, std::ios::binary);
    std::string const b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(b.size(), 10000u);
    EXPECT_EQ("", check(b));
    for (std::size_t n = 132; n < b.size(); n += 211)
    {
        std::string const e = check(b.substr(0, n));
        EXPECT_NE(std::string::npos, e.find("is cut short")) << n << " bytes: " << e;
    }
    for (std::size_t cut = 1; cut <= 16; ++cut)
        EXPECT_NE(std::string::npos, check(b.substr(0, b.size() - cut)).find("is cut short"));
}
} // namespace mcdose
