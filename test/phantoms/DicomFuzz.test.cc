//! Fuzzing the DICOM readers from fixed seeds: a CT series (4 slices) and the example RT
//! Structure Set, each with >= 200 mutants: truncations anywhere, a byte flipped in an
//! element's header (tag, VR or length, at any depth), and values of the attributes that
//! matter replaced (Rows, Pixel Spacing, Rescale Slope, orientation, Frame of Reference,
//! Number of Frames; Contour Geometric Type, point counts). Every mutant ends in a
//! RuntimeError whose message names the file or folder and leaks no library text, or reads
//! to the same result as the original: no crash, hang or silent accept.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <unistd.h>

#include <gtest/gtest.h>

#include "DicomTestSeries.hh"
#include "StderrToFile.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "io/RtStructFile.hh"
#include "phantoms/PhantomBuilder.hh"
#include "phantoms/StructureSet.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
std::string read_bytes(fs::path const& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(fs::path const& path, std::string const& bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

unsigned number(std::string const& b, std::size_t at, int n)
{
    unsigned v = 0;
    for (int i = 0; i < n; ++i)
        v |= unsigned(static_cast<unsigned char>(b[at + i])) << (8 * i);
    return v;
}

//! "(gggg,eeee)" of the element header at `at`.
std::string tag_at(std::string const& b, std::size_t at)
{
    char s[16];
    std::snprintf(s, sizeof(s), "(%04X,%04X)", number(b, at, 2), number(b, at + 2, 2));
    return s;
}

//! Where each element header starts and how long it is, at any depth, in a little-endian
//! Part 10 file (explicit VR in the meta group; the data set explicit or implicit, as its
//! transfer syntax says). A test-side walk, independent of mcdose's.
struct HeaderWalk
{
    std::string const& b;
    bool explicit_vr;
    std::vector<std::pair<std::size_t, std::size_t>> headers;

    static bool long_vr(std::string const& vr)
    {
        return vr == "OB" || vr == "OW" || vr == "OF" || vr == "SQ" || vr == "UN" || vr == "UT" ||
               vr == "UC" || vr == "UR" || vr == "OD" || vr == "OL";
    }

    //! Elements from `at` to `end` (or an item delimiter); returns where it stopped.
    std::size_t elements(std::size_t at, std::size_t end, bool meta)
    {
        while (at + 8 <= end)
        {
            unsigned const group = number(b, at, 2), element = number(b, at + 2, 2);
            if (meta && group != 2)
                return at;
            if (group == 0xFFFE)
            {
                headers.push_back({at, 8});
                return at + 8; // item delimiter
            }
            bool const ex = meta || explicit_vr;
            std::string const vr = ex ? b.substr(at + 4, 2) : "";
            std::size_t const h = ex && long_vr(vr) ? 12 : 8;
            unsigned const length = h == 12 ? number(b, at + 8, 4)
                                    : ex    ? number(b, at + 6, 2)
                                            : number(b, at + 4, 4);
            headers.push_back({at, h});
            at += h;
            if (length == 0xFFFFFFFFu)
                at = items(at, end);
            else
                at += length;
            (void)element;
        }
        return at;
    }

    std::size_t items(std::size_t at, std::size_t end)
    {
        while (at + 8 <= end)
        {
            unsigned const element = number(b, at + 2, 2), length = number(b, at + 4, 4);
            headers.push_back({at, 8});
            at += 8;
            if (element == 0xE0DD)
                return at;
            at = length == 0xFFFFFFFFu ? elements(at, end, false) : at + length;
        }
        return at;
    }
};

std::vector<std::pair<std::size_t, std::size_t>> element_headers(std::string const& b)
{
    HeaderWalk w{b, true, {}};
    std::size_t const data = w.elements(132, b.size(), true);
    w.explicit_vr = b.find("1.2.840.10008.1.2\0", 0) == std::string::npos ||
                    b.find("1.2.840.10008.1.2.1") < data;
    w.elements(data, b.size(), false);
    return w.headers;
}

//! A mutant's outcome: refused (with its message) or read.
struct Outcome
{
    bool refused{false};
    std::string message;
};

//! The message must be mcdose's: naming `where`, without GDCM's or ITK's text.
void expect_own_message(Outcome const& o, std::string const& where, std::string const& mutant)
{
    std::string lower = o.message;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    EXPECT_NE(std::string::npos, o.message.find(where)) << mutant << ": " << o.message;
    EXPECT_EQ(std::string::npos, lower.find("itk::")) << mutant << ": " << o.message;
    EXPECT_EQ(std::string::npos, lower.find("gdcm::")) << mutant << ": " << o.message;
    EXPECT_EQ(std::string::npos, lower.find("exception")) << mutant << ": " << o.message;
}

//! A value replacement: the element, its VR, the new value, and whether the file stays the
//! same series (an equivalent spelling) or must be refused.
struct ValueEdit
{
    std::uint16_t group, element;
    char const* vr;
    std::string value;
    bool same;
};

std::vector<ValueEdit> ct_value_edits()
{
    using test::us_bytes;
    return {
        {0x0028, 0x0010, "US", us_bytes(0), false},
        {0x0028, 0x0010, "US", us_bytes(5), false},
        {0x0028, 0x0010, "US", us_bytes(7), false},
        {0x0028, 0x0010, "US", us_bytes(65535), false},
        {0x0028, 0x0010, "US", us_bytes(6), true},
        {0x0028, 0x0011, "US", us_bytes(4), false},
        {0x0028, 0x0030, "DS", "0\\1.5", false},
        {0x0028, 0x0030, "DS", "-2.5\\1.5", false},
        {0x0028, 0x0030, "DS", "nan\\1.5", false},
        {0x0028, 0x0030, "DS", "1e999\\1.5", false},
        {0x0028, 0x0030, "DS", "2.5", false},
        {0x0028, 0x0030, "DS", "2.5\\1.6", false},
        {0x0028, 0x0030, "DS", "", false},
        {0x0028, 0x0030, "DS", "2.50\\1.500", true},
        {0x0028, 0x1053, "DS", "0", false},
        {0x0028, 0x1053, "DS", "-0", false},
        {0x0028, 0x1053, "DS", "NaN", false},
        {0x0028, 0x1053, "DS", "inf", false},
        {0x0028, 0x1053, "DS", "", false},
        {0x0028, 0x1053, "DS", "0.5\\1", false},
        {0x0028, 0x1053, "DS", "5e-1", true},
        {0x0028, 0x1052, "DS", "-inf", false},
        {0x0020, 0x0037, "DS", "1\\0\\0\\0\\1", false},
        {0x0020, 0x0037, "DS", "0\\1\\0\\1\\0\\0", false},
        {0x0020, 0x0037, "DS", "1\\0\\0\\0\\0\\-1", false},
        {0x0020, 0x0037, "DS", "2\\0\\0\\0\\1\\0", false},
        {0x0020, 0x0037, "DS", "1\\0\\0\\1\\0\\0", false},
        {0x0020, 0x0037, "DS", "1.0\\0.0\\0\\0\\1.00\\0", true},
        {0x0020, 0x0052, "UI", "2.25.7", false},
        {0x0020, 0x0052, "UI", "", false},
        {0x0028, 0x0008, "IS", "0", false},
        {0x0028, 0x0008, "IS", "2", false},
        {0x0028, 0x0008, "IS", "-1", false},
        {0x0028, 0x0008, "IS", "x", false},
        {0x0028, 0x0008, "IS", "1", true},
        {0x0008, 0x0060, "CS", "MR", false},
        {0x0028, 0x0100, "US", test::us_bytes(8), false},
        {0x0028, 0x0103, "US", test::us_bytes(0), false},
    };
}

class DicomFuzzTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_dicomfuzz_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path dir_;
};

//! The same ROIs: numbers, names, frames, contours (the referenced series is not used).
bool same_structures(RtStructureSet const& a, RtStructureSet const& b)
{
    if (a.frame_of_reference_uid != b.frame_of_reference_uid || a.rois.size() != b.rois.size())
        return false;
    for (std::size_t i = 0; i < a.rois.size(); ++i)
    {
        RtRoi const& x = a.rois[i];
        RtRoi const& y = b.rois[i];
        if (x.number != y.number || x.name != y.name || x.frame_uid != y.frame_uid ||
            x.skipped_contours != y.skipped_contours || x.contours.size() != y.contours.size())
        {
            return false;
        }
        for (std::size_t c = 0; c < x.contours.size(); ++c)
        {
            if (x.contours[c].points_mm != y.contours[c].points_mm)
                return false;
        }
    }
    return true;
}

//! Equal grids and values.
bool same_image(ScalarImage const& a, ScalarImage const& b)
{
    for (int e = 0; e < 9; ++e)
    {
        if (a.geometry.direction[e] != b.geometry.direction[e])
            return false;
    }
    return a.geometry.dims == b.geometry.dims && a.geometry.spacing_cm == b.geometry.spacing_cm &&
           a.geometry.origin_cm == b.geometry.origin_cm && a.values == b.values;
}
} // namespace

TEST_F(DicomFuzzTest, CtSeriesMutantsAreRefusedOrReadTheSame)
{
    test::DicomTestSeries s;
    s.hu.resize(std::size_t(8) * 6 * 4);
    for (std::size_t v = 0; v < s.hu.size(); ++v)
        s.hu[v] = -1000 + 0.5 * double((v * 37) % 4000);
    auto const files = test::write_dicom_series((dir_ / "base").string(), s);
    ScalarImage const original = read_scalar_image((dir_ / "base").string());
    std::vector<std::string> base;
    for (auto const& f : files)
        base.push_back(read_bytes(f));
    auto const edits = ct_value_edits();
    fs::path const work = dir_ / "mutant";
    int counts[3] = {0, 0, 0}, refused = 0;
    test::StderrToFile capture((dir_ / "stderr.txt").string());
    for (int m = 0; m < 240; ++m)
    {
        std::mt19937_64 rng(5300 + m);
        fs::remove_all(work);
        fs::create_directories(work);
        for (std::size_t f = 0; f < files.size(); ++f)
            write_bytes(work / fs::path(files[f]).filename(), base[f]);
        std::size_t const f = rng() % files.size();
        fs::path const target = work / fs::path(files[f]).filename();
        std::string bytes = base[f];
        int const kind = m % 3;
        bool must_refuse = false;
        std::string mutant = "mutant " + std::to_string(m) + " of '" + target.string() + "': ";
        if (kind == 0)
        {
            bytes.resize(rng() % bytes.size());
            mutant += "cut at byte " + std::to_string(bytes.size());
            must_refuse = true; // Pixel Data is the last element
            write_bytes(target, bytes);
        }
        else if (kind == 1)
        {
            auto const headers = element_headers(bytes);
            auto const [at, length] = headers[rng() % headers.size()];
            std::size_t const byte = at + rng() % length;
            mutant += "byte " + std::to_string(byte) + " of the header of " + tag_at(bytes, at) +
                      " flipped";
            bytes[byte] = char(bytes[byte] ^ char(1 + rng() % 255));
            write_bytes(target, bytes);
        }
        else
        {
            ValueEdit const& e = edits[rng() % edits.size()];
            test::edit_dicom_element(target.string(), e.group, e.element, e.vr, e.value);
            mutant += "(" + std::to_string(e.group) + "," + std::to_string(e.element) + ") = '" +
                      e.value + "'";
            must_refuse = !e.same;
        }
        ++counts[kind];
        Outcome o;
        try
        {
            ScalarImage const image = read_scalar_image(work.string());
            EXPECT_FALSE(must_refuse) << mutant << ": accepted";
            EXPECT_TRUE(same_image(original, image)) << mutant << ": read to another image";
        }
        catch (RuntimeError const& e)
        {
            o = {true, e.what()};
            ++refused;
            expect_own_message(o, work.string(), mutant);
        }
    }
    std::string const printed = capture.restore();
    EXPECT_TRUE(printed.empty()) << "printed on stderr: " << printed.substr(0, 500);
    EXPECT_EQ(80, counts[0]);
    EXPECT_GT(refused, 120);
    std::printf("CT series: 240 mutants (%d cuts, %d header bytes flipped, %d values replaced), "
                "%d refused, %d read the same\n",
                counts[0], counts[1], counts[2], refused, 240 - refused);
}

TEST_F(DicomFuzzTest, RtStructMutantsAreRefusedOrReadTheSame)
{
    std::string const examples = std::string(MCDOSE_TEST_SOURCE_DIR) + "/examples/";
    PhantomInput ct;
    ct.study_file = "study.json";
    ct.pointer = "/phantom";
    ct.kind = PhantomKind::ct_image;
    ct.ct.image_path = examples + "synthetic_ct_dicom";
    ct.ct.calibration.density_curve = {{-1024, 0.0}, {3976, 5.0}};
    ct.ct.calibration.material_bins = {{-1024, "air"}, {-100, "water"}};
    Phantom const phantom = build_phantom(ct, {});
    std::string const base = read_bytes(examples + "synthetic_ct_rtstruct.dcm");
    fs::path const path = dir_ / "rs.dcm";
    auto const structures = [&]
    {
        StructuresInput in;
        in.study_file = "study.json";
        in.sub_voxel_samples = 1;
        in.rt_structs.push_back(
            {path.string(), {"BODY", "PTV", "Lung_L"}, "/structures/rt_struct"});
        return build_structures(in, phantom, true);
    };
    write_bytes(path, base);
    RtStructureSet const original = read_rt_structure_set(path.string());
    EXPECT_NO_THROW(structures());
    auto const headers = element_headers(base);
    // Values replaced by others of the same length: an unknown contour type and a point count
    // that disagrees with the points must be refused; another frame or name is refused where
    // the study uses it.
    struct TextEdit
    {
        std::string from, to;
        bool must_refuse;
    };
    std::string const frame = "2.25.262018574310938472616583340191848371713";
    std::string const points = std::string("\x06\x30\x46\x00IS\x02\x00", 8);
    std::vector<TextEdit> const texts = {{"CLOSED_PLANAR", "CLOSED_PLANAQ", true},
                                         {points + "48", points + "47", true},
                                         {points + "48", points + "4x", true},
                                         {frame, frame.substr(0, 43) + "4", false},
                                         {"Lung_L", "Lung_R", false},
                                         {"PTV", "GTV", false}};
    int refused = 0;
    test::StderrToFile capture((dir_ / "stderr.txt").string());
    for (int m = 0; m < 240; ++m)
    {
        std::mt19937_64 rng(5900 + m);
        std::string bytes = base;
        std::string mutant = "mutant " + std::to_string(m) + ": ";
        bool must_refuse = false;
        int const kind = m % 3;
        if (kind == 0)
        {
            bytes.resize(rng() % bytes.size());
            mutant += "cut at byte " + std::to_string(bytes.size());
            must_refuse = true;
        }
        else if (kind == 1)
        {
            auto const [at, length] = headers[rng() % headers.size()];
            std::size_t const byte = at + rng() % length;
            mutant += "byte " + std::to_string(byte) + " of the header of " + tag_at(bytes, at) +
                      " flipped";
            bytes[byte] = char(bytes[byte] ^ char(1 + rng() % 255));
        }
        else
        {
            // One occurrence of a value replaced by another of the same length.
            TextEdit const& t = texts[rng() % texts.size()];
            std::vector<std::size_t> at;
            for (auto p = bytes.find(t.from); p != std::string::npos; p = bytes.find(t.from, p + 1))
                at.push_back(p);
            ASSERT_FALSE(at.empty()) << t.to;
            std::size_t const where = at[rng() % at.size()];
            bytes.replace(where, t.from.size(), t.to);
            mutant += "at byte " + std::to_string(where) + " '" + t.to + "'";
            must_refuse = t.must_refuse;
        }
        write_bytes(path, bytes);
        try
        {
            // Read as the original, or (another frame, other names) refused where the study
            // uses it: structures are rasterised only then.
            if (same_structures(original, read_rt_structure_set(path.string())))
            {
                EXPECT_FALSE(must_refuse) << mutant << ": accepted";
            }
            else
            {
                structures();
                ADD_FAILURE() << mutant << ": read to other structures and accepted";
            }
        }
        catch (RuntimeError const& e)
        {
            ++refused;
            // Named: the file, or the study's field that names it.
            std::string const message = e.what();
            expect_own_message({true, message},
                               message.find(path.string()) != std::string::npos
                                   ? path.string()
                                   : "/structures/rt_struct",
                               mutant);
        }
    }
    std::string const printed = capture.restore();
    EXPECT_TRUE(printed.empty()) << "printed on stderr: " << printed.substr(0, 500);
    EXPECT_GT(refused, 120);
    std::printf("RT Structure Set: 240 mutants (80 each: cuts, header bytes flipped, values "
                "replaced), %d refused, %d read the same\n",
                refused, 240 - refused);
}
} // namespace mcdose
