//! \file io/DicomCtSlice.cc
//! A CT slice's attributes parsed from its elements as stored (PS3.5 6.2: DS and IS are
//! text, US two bytes in the transfer syntax's byte order), checked, and its pixels
//! converted to HU: native pixels read from the file directly, encapsulated (compressed)
//! ones decoded by GDCM (io/DicomDataSet.hh).
#include "io/detail/DicomCtSlice.hh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "core/Assert.hh"
#include "io/DicomValue.hh"

namespace mcdose::detail
{
namespace
{
constexpr DicomTag modality_tag{0x0008, 0x0060}, series_tag{0x0020, 0x000E},
    frame_tag{0x0020, 0x0052}, photometric_tag{0x0028, 0x0004}, rows_tag{0x0028, 0x0010},
    columns_tag{0x0028, 0x0011}, frames_tag{0x0028, 0x0008}, samples_tag{0x0028, 0x0002},
    bits_allocated_tag{0x0028, 0x0100}, bits_stored_tag{0x0028, 0x0101},
    high_bit_tag{0x0028, 0x0102}, representation_tag{0x0028, 0x0103}, spacing_tag{0x0028, 0x0030},
    orientation_tag{0x0020, 0x0037}, position_tag{0x0020, 0x0032}, slope_tag{0x0028, 0x1053},
    intercept_tag{0x0028, 0x1052}, thickness_tag{0x0018, 0x0050}, between_tag{0x0018, 0x0088},
    pixel_tag{0x7FE0, 0x0010};

std::string tag_name(DicomTag t)
{
    char s[16];
    std::snprintf(s, sizeof(s), "(%04X,%04X)", unsigned(t.group), unsigned(t.element));
    return s;
}

//! "cannot read the <what>: file '<path>' "
std::string file_prefix(std::string const& what, DicomFileElements const& f)
{
    return "cannot read the " + what + ": file '" + f.path + "' ";
}

//! The `n` numbers of a DS or IS value (backslash-separated text); throws where a number is
//! malformed or not finite. None (an empty vector) when the element is absent or empty.
std::vector<double> numbers(DicomFileElements const& f, DicomTag tag, char const* name,
                            std::size_t n, std::string const& what)
{
    std::string const text = f.text(tag);
    std::ostringstream where;
    where << file_prefix(what, f) << "has " << name << " " << tag_name(tag) << " '" << text << "'";
    std::vector<double> const out =
        dicom_decimals(text, where.str(), "the file is damaged: export it again");
    if (out.empty())
        return out;
    MCDOSE_VALIDATE(out.size() == n, << file_prefix(what, f) << "has " << name << " "
                                     << tag_name(tag) << " '" << text << "' (" << out.size()
                                     << " values, not " << n
                                     << "); the file is damaged: export it again");
    return out;
}

unsigned us_value(DicomFileElements const& f, DicomTag tag, unsigned absent)
{
    return f.us(tag).value_or(absent);
}

void parse_geometry(DicomCtSlice& s, std::string const& what)
{
    DicomFileElements const& f = s.file;
    auto const spacing = numbers(f, spacing_tag, "Pixel Spacing", 2, what);
    auto const orientation = numbers(f, orientation_tag, "Image Orientation (Patient)", 6, what);
    auto const position = numbers(f, position_tag, "Image Position (Patient)", 3, what);
    s.has_spacing = !spacing.empty();
    s.has_orientation = !orientation.empty();
    s.has_position = !position.empty();
    std::copy(spacing.begin(), spacing.end(), s.pixel_spacing_mm.begin());
    std::copy(orientation.begin(), orientation.end(), s.orientation.begin());
    std::copy(position.begin(), position.end(), s.position_mm.begin());
    auto const between = numbers(f, between_tag, "Spacing Between Slices", 1, what);
    auto const thickness = numbers(f, thickness_tag, "Slice Thickness", 1, what);
    s.thickness_mm = !between.empty() ? between[0] : !thickness.empty() ? thickness[0] : 0;
}

void parse_rescale(DicomCtSlice& s, std::string const& what)
{
    auto const slope = numbers(s.file, slope_tag, "Rescale Slope", 1, what);
    auto const intercept = numbers(s.file, intercept_tag, "Rescale Intercept", 1, what);
    s.slope = slope.empty() ? 1.0 : slope[0];
    s.intercept = intercept.empty() ? 0.0 : intercept[0];
}
} // namespace

std::array<double, 3> DicomCtSlice::normal() const
{
    auto const& o = orientation;
    return {{o[1] * o[5] - o[2] * o[4], o[2] * o[3] - o[0] * o[5], o[0] * o[4] - o[1] * o[3]}};
}

DicomCtSlice parse_ct_slice(DicomFileElements file, std::string const& what)
{
    DicomCtSlice s;
    s.file = std::move(file);
    DicomFileElements const& f = s.file;
    s.modality = f.text(modality_tag);
    s.series_uid = f.text(series_tag);
    s.frame_uid = f.text(frame_tag);
    s.photometric = f.text(photometric_tag);
    s.has_rows = f.find(rows_tag) != nullptr;
    s.has_pixels = f.find(pixel_tag) != nullptr;
    if (!s.has_rows && !s.has_pixels && s.modality != "CT")
        return s; // not an image: the caller names it
    s.rows = us_value(f, rows_tag, 0);
    s.columns = us_value(f, columns_tag, 0);
    s.samples = us_value(f, samples_tag, 1);
    s.bits_allocated = us_value(f, bits_allocated_tag, 0);
    s.bits_stored = us_value(f, bits_stored_tag, s.bits_allocated);
    s.high_bit = us_value(f, high_bit_tag, s.bits_stored ? s.bits_stored - 1 : 0);
    s.representation = us_value(f, representation_tag, 0);
    auto const frames = numbers(f, frames_tag, "Number of Frames", 1, what);
    MCDOSE_VALIDATE(frames.empty() || (frames[0] == std::floor(frames[0]) && frames[0] < 1e9),
                    << file_prefix(what, f) << "has Number of Frames (0028,0008) '"
                    << f.text(frames_tag) << "', not a whole number; the file is damaged: "
                    << "export it again");
    s.frames = frames.empty() ? 1 : static_cast<long long>(frames[0]);
    if (s.modality == "CT")
    {
        parse_geometry(s, what);
        parse_rescale(s, what);
    }
    return s;
}

namespace
{
void check_pixel_format(DicomCtSlice const& s, std::string const& what)
{
    std::string const at = file_prefix(what, s.file);
    MCDOSE_VALIDATE(s.has_pixels, << at << "has no Pixel Data (7FE0,0010): it ends before "
                                  << "its pixels (a truncated copy); copy the series again "
                                     "from its source");
    MCDOSE_VALIDATE(s.rows >= 1 && s.columns >= 1,
                    << at << "has Rows " << s.rows << " and Columns " << s.columns
                    << "; a CT slice has at least one of each: export the series again");
    MCDOSE_VALIDATE(s.frames == 1, << at << "holds " << s.frames
                                   << " frames (Number of Frames (0028,0008)); mcdose reads CT "
                                      "series of one slice per file: convert it to single-frame "
                                      "CT Image Storage (e.g. dcm2dcm, emf2sf)");
    MCDOSE_VALIDATE(s.samples == 1 && (s.photometric.empty() || s.photometric == "MONOCHROME1" ||
                                       s.photometric == "MONOCHROME2"),
                    << at << "has " << s.samples << " samples per pixel, Photometric "
                    << "Interpretation '" << s.photometric
                    << "' (colour?); a CT image has one grey value per pixel");
    bool const bits_ok =
        (s.bits_allocated == 8 || s.bits_allocated == 16 || s.bits_allocated == 32) &&
        s.bits_stored >= 1 && s.bits_stored <= s.bits_allocated &&
        s.high_bit == s.bits_stored - 1 && s.representation <= 1;
    MCDOSE_VALIDATE(bits_ok, << at << "has Bits Allocated " << s.bits_allocated << ", Bits Stored "
                             << s.bits_stored << ", High Bit " << s.high_bit
                             << " and Pixel Representation " << s.representation
                             << "; mcdose reads 8-, 16- or 32-bit pixels with Bits Stored <= "
                                "Bits Allocated and High Bit = Bits Stored - 1");
    check_dicom_pixel_length(s.file, what);
}

bool unit(double x, double y, double z)
{
    return std::abs(std::sqrt(x * x + y * y + z * z) - 1) <= 1e-3;
}

//! The type 1 attributes (required, with a value) of the CT Image, Image Pixel, Image Plane
//! and Frame of Reference modules that mcdose uses (PS3.3 C.8.2.1, C.7.6.3, C.7.6.2, C.7.4.1):
//! without one, a default would silently change the image.
void check_required(DicomCtSlice const& s, std::string const& what)
{
    struct Required
    {
        DicomTag tag;
        char const* name;
    };
    static Required const required[] = {{series_tag, "Series Instance UID"},
                                        {frame_tag, "Frame of Reference UID"},
                                        {samples_tag, "Samples per Pixel"},
                                        {photometric_tag, "Photometric Interpretation"},
                                        {rows_tag, "Rows"},
                                        {columns_tag, "Columns"},
                                        {bits_allocated_tag, "Bits Allocated"},
                                        {bits_stored_tag, "Bits Stored"},
                                        {high_bit_tag, "High Bit"},
                                        {representation_tag, "Pixel Representation"},
                                        {intercept_tag, "Rescale Intercept"},
                                        {slope_tag, "Rescale Slope"}};
    for (Required const& r : required)
    {
        DicomElementAt const* e = s.file.find(r.tag);
        MCDOSE_VALIDATE(e && e->length > 0,
                        << file_prefix(what, s.file) << "has no " << r.name << " "
                        << tag_name(r.tag)
                        << ", which a CT image must have (DICOM PS3.3 C.8.2.1, C.7.6.3): the "
                           "file is damaged or incomplete; export the series again");
    }
}
} // namespace

void check_ct_slice(DicomCtSlice const& s, std::string const& what)
{
    std::string const at = file_prefix(what, s.file);
    MCDOSE_VALIDATE(s.modality == "CT",
                    << at << "has Modality (0008,0060) '" << s.modality
                    << "', not CT: mcdose converts CT numbers (HU) to materials and densities, "
                       "which other modalities do not hold; give a CT series (for an MR-only "
                       "plan, a synthetic CT in HU)");
    MCDOSE_VALIDATE(s.has_pixels, << at << "has no Pixel Data (7FE0,0010): it ends before "
                                  << "its pixels (a truncated copy); copy the series again "
                                     "from its source");
    check_required(s, what);
    check_pixel_format(s, what);
    MCDOSE_VALIDATE(s.has_spacing, << at
                                   << "has no Pixel Spacing (0028,0030): the size of its pixels is "
                                   << "unknown; a CT image states it (export the series again)");
    MCDOSE_VALIDATE(s.has_orientation && s.has_position,
                    << at << "has no Image "
                    << (s.has_orientation ? "Position (0020,0032)" : "Orientation (0020,0037)")
                    << ": the slice cannot be placed; a CT image states it (export the series "
                       "again)");
    auto const& p = s.pixel_spacing_mm;
    MCDOSE_VALIDATE(p[0] > 0 && p[1] > 0, << at << "has Pixel Spacing (0028,0030) " << p[0] << "\\"
                                          << p[1] << " mm; both must be > 0 mm: the file is "
                                          << "damaged, export the series again");
    auto const& o = s.orientation;
    double const dot = o[0] * o[3] + o[1] * o[4] + o[2] * o[5];
    MCDOSE_VALIDATE(unit(o[0], o[1], o[2]) && unit(o[3], o[4], o[5]) && std::abs(dot) <= 1e-3,
                    << at << "has Image Orientation (Patient) (0020,0037) " << o[0] << "\\" << o[1]
                    << "\\" << o[2] << "\\" << o[3] << "\\" << o[4] << "\\" << o[5]
                    << ": not two orthogonal unit vectors (within 1e-3); the file is damaged: "
                       "export the series again");
    MCDOSE_VALIDATE(s.slope != 0, << at << "has Rescale Slope (0028,1053) 0: every pixel would "
                                  << "be the intercept; the file is damaged: export the series "
                                     "again");
}

namespace
{
//! Whether a and b agree within `relative` of the larger magnitude (and 1e-6 absolutely).
bool close(double a, double b, double relative)
{
    return std::abs(a - b) <= std::max(1e-6, relative * std::max(std::abs(a), std::abs(b)));
}

template <class T>
std::string listed(T const& values)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < values.size(); ++i)
        os << (i ? "\\" : "") << values[i];
    return os.str();
}

[[noreturn]] void disagree(DicomCtSlice const& first, DicomCtSlice const& s,
                           std::string const& what, std::string const& item,
                           std::string const& first_value, std::string const& value)
{
    throw RuntimeError("cannot read the " + what + ": file '" + s.file.path + "' has " + item +
                       " " + value + ", but '" + first.file.path + "' has " + first_value +
                       ": the slices of one series must agree (a file of another series or a "
                       "damaged copy?); remove the odd file or export the series again");
}
} // namespace

void check_slices_agree(DicomCtSlice const& first, DicomCtSlice const& s, std::string const& what)
{
    auto const size = [](DicomCtSlice const& x)
    { return std::to_string(x.rows) + " x " + std::to_string(x.columns); };
    if (s.rows != first.rows || s.columns != first.columns)
        disagree(first, s, what, "Rows x Columns", size(first), size(s));
    auto const format = [](DicomCtSlice const& x)
    {
        return std::to_string(x.bits_allocated) + "/" + std::to_string(x.bits_stored) + "/" +
               std::to_string(x.representation);
    };
    if (s.bits_allocated != first.bits_allocated || s.bits_stored != first.bits_stored ||
        s.representation != first.representation)
    {
        disagree(first, s, what, "Bits Allocated/Stored/Pixel Representation", format(first),
                 format(s));
    }
    // DS values are text of at most 16 characters: equal geometry may differ in the last digit.
    constexpr double text_precision = 1e-5;
    for (int a = 0; a < 2; ++a)
    {
        if (!close(s.pixel_spacing_mm[a], first.pixel_spacing_mm[a], text_precision))
        {
            disagree(first, s, what, "Pixel Spacing (0028,0030)", listed(first.pixel_spacing_mm),
                     listed(s.pixel_spacing_mm));
        }
    }
    for (int a = 0; a < 6; ++a)
    {
        if (std::abs(s.orientation[a] - first.orientation[a]) > 1e-4)
        {
            disagree(first, s, what, "Image Orientation (Patient) (0020,0037)",
                     listed(first.orientation), listed(s.orientation));
        }
    }
    if (s.frame_uid != first.frame_uid)
    {
        disagree(first, s, what, "Frame of Reference UID (0020,0052)", "'" + first.frame_uid + "'",
                 "'" + s.frame_uid + "'");
    }
}

namespace
{
//! Stored values (`bits` allocated, `stored` bits used, signed or not) to HU.
void to_hu(DicomCtSlice const& s, unsigned char const* bytes, bool big_endian, double* hu)
{
    std::size_t const n = std::size_t(s.rows) * s.columns;
    unsigned const width = s.bits_allocated / 8;
    std::uint64_t const mask =
        s.bits_stored >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << s.bits_stored) - 1;
    std::uint64_t const sign = std::uint64_t(1) << (s.bits_stored - 1);
    for (std::size_t v = 0; v < n; ++v)
    {
        std::uint64_t raw = 0;
        for (unsigned b = 0; b < width; ++b)
        {
            unsigned const from = big_endian ? width - 1 - b : b;
            raw |= std::uint64_t(bytes[v * width + from]) << (8 * b);
        }
        raw &= mask;
        double const stored = s.representation == 1 && (raw & sign)
                                  ? double(std::int64_t(raw) - std::int64_t(mask) - 1)
                                  : double(raw);
        hu[v] = stored * s.slope + s.intercept;
    }
}

std::vector<unsigned char> native_pixels(DicomCtSlice const& s, std::string const& what,
                                         std::size_t bytes)
{
    DicomElementAt const* pixels = s.file.find(pixel_tag);
    std::vector<unsigned char> out(bytes);
    std::ifstream in(s.file.path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(pixels->value_at));
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(bytes));
    MCDOSE_VALIDATE(in && std::size_t(in.gcount()) == bytes,
                    << file_prefix(what, s.file)
                    << "could not be read again (changed or removed while mcdose read the "
                       "series?); run again once the folder is stable");
    return out;
}

std::vector<unsigned char> decoded_pixels(DicomCtSlice const& s, std::string const& what,
                                          std::size_t bytes)
{
    DicomImageFile image;
    std::optional<std::vector<char>> decoded;
    if (image.read(s.file.path))
        decoded = image.decoded_pixels();
    MCDOSE_VALIDATE(decoded && decoded->size() == bytes,
                    << file_prefix(what, s.file) << "has compressed pixels (transfer syntax "
                    << s.file.transfer_syntax << ") that could not be decoded to Rows x Columns ("
                    << s.rows << " x " << s.columns
                    << "); convert the series to uncompressed (e.g. gdcmconv --raw)");
    return std::vector<unsigned char>(decoded->begin(), decoded->end());
}
} // namespace

void read_ct_slice_hu(DicomCtSlice const& s, std::string const& what, double* hu)
{
    std::size_t const bytes = std::size_t(s.rows) * s.columns * (s.bits_allocated / 8);
    bool const encapsulated = s.file.find(pixel_tag)->length == undefined_dicom_length;
    // GDCM decodes to the host's (little-endian) byte order.
    auto const pixels =
        encapsulated ? decoded_pixels(s, what, bytes) : native_pixels(s, what, bytes);
    to_hu(s, pixels.data(), !encapsulated && s.file.big_endian, hu);
}

DicomReference dicom_reference(DicomCtSlice const& s)
{
    auto const value = [&](std::uint16_t group, std::uint16_t element) {
        return s.file.text(DicomTag{group, element});
    };
    DicomReference r;
    r.specific_character_set = value(0x0008, 0x0005);
    r.patient_name = value(0x0010, 0x0010);
    r.patient_id = value(0x0010, 0x0020);
    r.patient_birth_date = value(0x0010, 0x0030);
    r.patient_sex = value(0x0010, 0x0040);
    r.study_instance_uid = value(0x0020, 0x000D);
    r.study_date = value(0x0008, 0x0020);
    r.study_time = value(0x0008, 0x0030);
    r.study_id = value(0x0020, 0x0010);
    r.accession_number = value(0x0008, 0x0050);
    r.referring_physician = value(0x0008, 0x0090);
    r.frame_of_reference_uid = s.frame_uid;
    r.series_instance_uid = s.series_uid;
    return r;
}
} // namespace mcdose::detail
