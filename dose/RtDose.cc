//! \file dose/RtDose.cc
//! Written and read through io/DicomDataSet.hh (GDCM's thin typed adapter). Attributes
//! follow DICOM PS3.3 A.18 (RT Dose IOD):
//! Patient, General Study, RT Series, Frame of Reference, General Equipment,
//! General Image, Image Plane, Image Pixel, Multi-frame, RT Dose and SOP Common.
#include "dose/RtDose.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/ParallelFor.hh"
#include "io/DicomDataSet.hh"
#include "io/DicomFileCheck.hh"

namespace mcdose
{
namespace
{
constexpr char rt_dose_storage_uid[] = "1.2.840.10008.5.1.4.1.1.481.2";
constexpr double mm_per_cm = 10.0;

//! A decimal string (DS) value: at most 16 characters (PS3.5 6.2), as many
//! significant digits as fit.
std::string ds_text(double x)
{
    char buf[32];
    for (int digits = 12; digits >= 1; --digits)
    {
        std::snprintf(buf, sizeof(buf), "%.*g", digits, x);
        if (std::strlen(buf) <= 16)
            return buf;
    }
    MCDOSE_ASSERT_UNREACHABLE();
}

std::string ds_list(std::vector<double> const& values)
{
    std::string s;
    for (double v : values)
        s += (s.empty() ? "" : "\\") + ds_text(v);
    return s;
}

//! The digits of an ISO 8601 UTC time "YYYY-MM-DDTHH:MM:SSZ" as DICOM DA and TM.
std::pair<std::string, std::string> dicom_date_time(std::string const& iso)
{
    std::string digits;
    for (char c : iso)
    {
        if (c >= '0' && c <= '9')
            digits.push_back(c);
    }
    if (digits.size() < 14)
        return {};
    return {digits.substr(0, 8), digits.substr(8, 6)};
}

//! Identity shared by the two instances of one run.
struct SeriesIdentity
{
    DicomReference ref; //!< the CT's, or new UIDs
    std::string series_uid;
    std::string date, time;
};

SeriesIdentity series_identity(RunMetadata const& meta)
{
    SeriesIdentity id;
    id.ref = meta.ct_dicom;
    bool const from_ct =
        !id.ref.frame_of_reference_uid.empty() && !id.ref.study_instance_uid.empty();
    std::tie(id.date, id.time) = dicom_date_time(meta.started_utc);
    if (!from_ct)
    {
        // A phantom without a DICOM CT: a study and frame of reference of its own.
        id.ref = DicomReference{};
        id.ref.study_instance_uid = new_dicom_uid();
        id.ref.frame_of_reference_uid = new_dicom_uid();
        id.ref.study_date = id.date;
        id.ref.study_time = id.time;
    }
    id.series_uid = new_dicom_uid();
    return id;
}

void put_patient_and_study(DicomDataSet& ds, SeriesIdentity const& id)
{
    DicomReference const& r = id.ref;
    if (!r.specific_character_set.empty())
        ds.put({0x0008, 0x0005}, DicomVr::CS, r.specific_character_set);
    ds.put({0x0010, 0x0010}, DicomVr::PN, r.patient_name);
    ds.put({0x0010, 0x0020}, DicomVr::LO, r.patient_id);
    ds.put({0x0010, 0x0030}, DicomVr::DA, r.patient_birth_date);
    ds.put({0x0010, 0x0040}, DicomVr::CS, r.patient_sex);
    ds.put({0x0020, 0x000D}, DicomVr::UI, r.study_instance_uid);
    ds.put({0x0008, 0x0020}, DicomVr::DA, r.study_date);
    ds.put({0x0008, 0x0030}, DicomVr::TM, r.study_time);
    ds.put({0x0008, 0x0090}, DicomVr::PN, r.referring_physician);
    ds.put({0x0020, 0x0010}, DicomVr::SH, r.study_id);
    ds.put({0x0008, 0x0050}, DicomVr::SH, r.accession_number);
    ds.put({0x0020, 0x0052}, DicomVr::UI, r.frame_of_reference_uid);
    ds.put({0x0020, 0x1040}, DicomVr::LO, ""); // Position Reference Indicator
}

void put_series_and_equipment(DicomDataSet& ds, SeriesIdentity const& id, RunMetadata const& meta,
                              int instance)
{
    ds.put({0x0008, 0x0060}, DicomVr::CS, "RTDOSE");
    ds.put({0x0020, 0x000E}, DicomVr::UI, id.series_uid);
    ds.put({0x0020, 0x0011}, DicomVr::IS, "1");
    ds.put({0x0008, 0x103E}, DicomVr::LO, "mcdose Monte Carlo dose");
    ds.put({0x0008, 0x1070}, DicomVr::PN, ""); // Operators' Name
    ds.put({0x0008, 0x0070}, DicomVr::LO, "mcdose");
    ds.put({0x0008, 0x1090}, DicomVr::LO, "mcdose");
    ds.put({0x0018, 0x1020}, DicomVr::LO, meta.version.substr(0, 64));
    ds.put({0x0020, 0x0013}, DicomVr::IS, std::to_string(instance));
    ds.put({0x0008, 0x0023}, DicomVr::DA, id.date);
    ds.put({0x0008, 0x0033}, DicomVr::TM, id.time);
    ds.put({0x0008, 0x0012}, DicomVr::DA, id.date);
    ds.put({0x0008, 0x0013}, DicomVr::TM, id.time);
    ds.put({0x0008, 0x0016}, DicomVr::UI, rt_dose_storage_uid);
    ds.put({0x0008, 0x0018}, DicomVr::UI, new_dicom_uid());
}

//! The largest pixel of `bits`: 2^bits - 1.
double max_pixel(int bits)
{
    return std::ldexp(1.0, bits) - 1;
}

//! Image Plane, Image Pixel and Multi-frame geometry of the grid.
void put_geometry(DicomDataSet& ds, GridGeometry const& g, int bits)
{
    double const* d = g.direction;
    // Column c of the row-major direction matrix is index axis c.
    double const row[3] = {d[0], d[3], d[6]};
    double const col[3] = {d[1], d[4], d[7]};
    double const normal[3] = {row[1] * col[2] - row[2] * col[1], row[2] * col[0] - row[0] * col[2],
                              row[0] * col[1] - row[1] * col[0]};
    // The k axis is +normal or -normal (orthonormal direction): offsets carry the sign.
    double const k_sign = d[2] * normal[0] + d[5] * normal[1] + d[8] * normal[2] < 0 ? -1.0 : 1.0;
    double const dz_mm = g.spacing_cm[2] * mm_per_cm;
    std::vector<double> offsets(std::size_t(g.dims[2]));
    for (std::size_t k = 0; k < offsets.size(); ++k)
        offsets[k] = k_sign * dz_mm * double(k);

    ds.put({0x0020, 0x0032}, DicomVr::DS,
           ds_list({g.origin_cm[0] * mm_per_cm, g.origin_cm[1] * mm_per_cm,
                    g.origin_cm[2] * mm_per_cm}));
    ds.put({0x0020, 0x0037}, DicomVr::DS,
           ds_list({row[0], row[1], row[2], col[0], col[1], col[2]}));
    // Pixel Spacing is (between rows, between columns) = (j spacing, i spacing).
    ds.put({0x0028, 0x0030}, DicomVr::DS,
           ds_list({g.spacing_cm[1] * mm_per_cm, g.spacing_cm[0] * mm_per_cm}));
    ds.put({0x0018, 0x0050}, DicomVr::DS, ds_text(dz_mm));
    ds.put({0x3004, 0x000C}, DicomVr::DS, ds_list(offsets));
    ds.put({0x0028, 0x0008}, DicomVr::IS, std::to_string(g.dims[2]));
    {
        // Frame Increment Pointer (AT, little endian: group then element) -> (3004,000C).
        char const at[4] = {0x04, 0x30, 0x0C, 0x00};
        ds.put_bytes({0x0028, 0x0009}, DicomVr::AT, at, 4);
    }
    ds.put_us({0x0028, 0x0010}, static_cast<std::uint16_t>(g.dims[1])); // Rows
    ds.put_us({0x0028, 0x0011}, static_cast<std::uint16_t>(g.dims[0])); // Columns
    ds.put_us({0x0028, 0x0002}, 1);                                     // Samples per Pixel
    ds.put({0x0028, 0x0004}, DicomVr::CS, "MONOCHROME2");
    auto const b = static_cast<std::uint16_t>(bits);
    ds.put_us({0x0028, 0x0100}, b);                                 // Bits Allocated
    ds.put_us({0x0028, 0x0101}, b);                                 // Bits Stored
    ds.put_us({0x0028, 0x0102}, static_cast<std::uint16_t>(b - 1)); // High Bit
    ds.put_us({0x0028, 0x0103}, 0);                                 // Pixel Representation
}

//! DoseGridScaling as written (a DS) and its value: the largest value maps to at most
//! 2^bits - 1 (the DS text, rounded to 16 characters, at most a part in 10^11 above).
std::pair<std::string, double> dose_grid_scaling(double max_value, double top)
{
    if (!(max_value > 0))
        return {"1", 1.0};
    double s = max_value / top;
    for (;;)
    {
        std::string const text = ds_text(s);
        double const parsed = std::stod(text);
        if (max_value / parsed <= top)
            return {text, parsed};
        s *= 1 + 1e-11; // the rounded text fell below: nudge up
    }
}

//! The pixels of `n` values as `Pixel` integers of at most `top`.
template <class Pixel, class ValueOf>
std::vector<Pixel> dose_pixels(size_type n, double scaling, double top, ValueOf&& value_of)
{
    std::vector<Pixel> pixels(n);
    parallel_for_pieces(n, 0,
                        [&](size_type begin, size_type end, size_type)
                        {
                            for (size_type v = begin; v < end; ++v)
                            {
                                double const p = std::round(std::max(0.0, value_of(v)) / scaling);
                                pixels[v] = static_cast<Pixel>(std::min(p, top));
                            }
                        });
    return pixels;
}

//! Pixel data and DoseGridScaling of per-voxel values, in `bits`-bit pixels.
template <class ValueOf>
void put_dose_pixels(DicomDataSet& ds, size_type n, int bits, ValueOf&& value_of)
{
    MCDOSE_VALIDATE(n <= max_rt_dose_voxels(bits),
                    << "the dose grid of " << n << " voxels is too large for one RT Dose file of "
                    << bits << "-bit pixels (at most " << max_rt_dose_voxels(bits)
                    << " voxels: the Pixel Data length is a 32-bit count); use the HDF5 output "
                       "or a coarser grid");
    std::vector<double> piece_max(parallel_pieces(n, 0), 0.0);
    parallel_for_pieces(n, 0,
                        [&](size_type begin, size_type end, size_type piece)
                        {
                            double m = 0;
                            for (size_type v = begin; v < end; ++v)
                                m = std::max(m, value_of(v));
                            piece_max[piece] = m;
                        });
    double const max_value =
        piece_max.empty() ? 0.0 : *std::max_element(piece_max.begin(), piece_max.end());
    double const top = max_pixel(bits);
    auto const [scaling_text, scaling] = dose_grid_scaling(max_value, top);
    ds.put({0x3004, 0x000E}, DicomVr::DS, scaling_text);
    if (bits == 16)
    {
        auto const pixels = dose_pixels<std::uint16_t>(n, scaling, top, value_of);
        ds.put_bytes({0x7FE0, 0x0010}, DicomVr::OW, pixels.data(), pixels.size() * 2);
        return;
    }
    auto const pixels = dose_pixels<std::uint32_t>(n, scaling, top, value_of);
    ds.put_bytes({0x7FE0, 0x0010}, DicomVr::OW, pixels.data(), pixels.size() * 4);
}

//! Referenced RT Plan Sequence with one item: the RT Plan (SOP Class RT Plan Storage).
void put_referenced_plan(DicomDataSet& ds, std::string const& plan_uid)
{
    DicomDataSet item;
    item.put({0x0008, 0x1150}, DicomVr::UI, "1.2.840.10008.5.1.4.1.1.481.5");
    item.put({0x0008, 0x1155}, DicomVr::UI, plan_uid);
    ds.put_sequence({0x300C, 0x0002}, {item});
}

//! What differs between the two instances of a run.
struct RtDoseInstance
{
    SeriesIdentity const& id;
    RunMetadata const& meta;
    GridGeometry const& grid;
    int number;
    bool absolute;
    std::string dose_type;
    std::string comment;
    RtDoseOptions const& options;
};

//! One RT Dose instance as the bytes of its file.
template <class ValueOf>
std::string rt_dose_file(RtDoseInstance const& in, ValueOf&& value_of)
{
    DicomDataSet ds;
    put_patient_and_study(ds, in.id);
    put_series_and_equipment(ds, in.id, in.meta, in.number);
    put_geometry(ds, in.grid, in.options.bits_allocated);
    ds.put({0x3004, 0x0002}, DicomVr::CS, in.absolute ? "GY" : "RELATIVE");
    ds.put({0x3004, 0x0004}, DicomVr::CS, in.dose_type);
    ds.put({0x3004, 0x0006}, DicomVr::LO, in.comment.substr(0, 64));
    ds.put({0x3004, 0x000A}, DicomVr::CS, "PLAN");
    if (!in.options.referenced_plan_uid.empty())
        put_referenced_plan(ds, in.options.referenced_plan_uid);
    put_dose_pixels(ds, in.grid.num_voxels(), in.options.bits_allocated, value_of);
    std::optional<std::string> bytes = ds.encode_explicit_little_endian();
    MCDOSE_VALIDATE(bytes, << "GDCM could not encode the RT Dose (instance " << in.number
                           << "); this is a bug, please report it");
    return std::move(*bytes);
}
} // namespace

void write_rt_dose(RtDosePaths const& paths, DoseGridData const& data, RunMetadata const& meta,
                   RtDoseOptions const& options)
{
    MCDOSE_VALIDATE(options.bits_allocated == 16 || options.bits_allocated == 32,
                    << "RT Dose pixels of " << options.bits_allocated
                    << " bits; choose 16 or 32 (rtdose_bits)");
    validate_dose_data(data);
    MCDOSE_VALIDATE(
        data.geometry.dims[0] <= max_rt_dose_rows && data.geometry.dims[1] <= max_rt_dose_rows,
        << "the dose grid has " << data.geometry.dims[0] << " columns and " << data.geometry.dims[1]
        << " rows; an RT Dose holds at most 65535 of each: use the HDF5 output");
    validate_geometry(data.geometry, "the dose grid");
    SeriesIdentity const id = series_identity(meta);
    bool const absolute = meta.source_particles.has_value();
    double const scale = absolute ? *meta.source_particles : 1.0;
    std::string const unit = absolute ? "Gy" : "Gy per source particle (DoseUnits RELATIVE)";
    auto const dose = [&](size_type v) { return voxel_dose_gy_per_particle(data, v) * scale; };
    RtDoseInstance instance{id,
                            meta,
                            data.geometry,
                            1,
                            absolute,
                            "PHYSICAL",
                            std::string(meta.quantity.name()) + " in " + unit,
                            options};
    write_text_atomically(paths.dose, rt_dose_file(instance, dose));
    instance.number = 2;
    instance.dose_type = "ERROR";
    // DoseComment is LO (at most 64 characters): "1-sigma of dose to water, Gy per source
    // particle" is 52.
    instance.comment = "1-sigma of " + std::string(meta.quantity.name()) + ", " +
                       (absolute ? "Gy" : "Gy per source particle");
    write_text_atomically(paths.uncertainty,
                          rt_dose_file(instance, [&](size_type v)
                                       { return dose(v) * voxel_relative_uncertainty(data, v); }));
}
} // namespace mcdose

namespace mcdose
{
namespace
{
//! The numbers of a DS element; RuntimeError naming `name` unless there are `min_count`.
std::vector<double> numbers_of(DicomImageFile const& file, DicomTag tag, char const* name,
                               std::size_t min_count, std::string const& path)
{
    std::vector<double> values;
    std::istringstream in(file.text(tag));
    std::string item;
    while (std::getline(in, item, '\\'))
    {
        char* end = nullptr;
        double const x = std::strtod(item.c_str(), &end);
        MCDOSE_VALIDATE(end != item.c_str() && std::isfinite(x),
                        << "RT Dose '" << path << "': " << name << " holds '" << item
                        << "', not a number; the file is damaged or not written by a "
                           "standard writer");
        values.push_back(x);
    }
    MCDOSE_VALIDATE(values.size() >= min_count, << "RT Dose '" << path << "' has " << values.size()
                                                << " values in " << name << " (needs " << min_count
                                                << "); it holds no usable dose grid");
    return values;
}

DicomReference reference_of(DicomImageFile const& file)
{
    DicomReference r;
    r.specific_character_set = file.text({0x0008, 0x0005});
    r.patient_name = file.text({0x0010, 0x0010});
    r.patient_id = file.text({0x0010, 0x0020});
    r.study_instance_uid = file.text({0x0020, 0x000D});
    r.frame_of_reference_uid = file.text({0x0020, 0x0052});
    r.series_instance_uid = file.text({0x0020, 0x000E});
    return r;
}

//! The grid of an RT Dose: Image Plane attributes and GridFrameOffsetVector.
GridGeometry geometry_of(DicomImageFile const& file, int columns, int rows, int frames,
                         std::string const& path)
{
    auto const ipp = numbers_of(file, {0x0020, 0x0032}, "ImagePositionPatient", 3, path);
    auto const iop = numbers_of(file, {0x0020, 0x0037}, "ImageOrientationPatient", 6, path);
    auto const spacing = numbers_of(file, {0x0028, 0x0030}, "PixelSpacing", 2, path);
    std::vector<double> offsets;
    if (frames > 1)
    {
        offsets =
            numbers_of(file, {0x3004, 0x000C}, "GridFrameOffsetVector", std::size_t(frames), path);
    }
    double dz_mm = 0;
    if (frames > 1)
    {
        dz_mm = (offsets[std::size_t(frames) - 1] - offsets[0]) / double(frames - 1);
        for (int k = 1; k < frames; ++k)
        {
            double const step = offsets[std::size_t(k)] - offsets[std::size_t(k) - 1];
            MCDOSE_VALIDATE(std::abs(step - dz_mm) <= 1e-3 * std::abs(dz_mm) + 1e-4,
                            << "RT Dose '" << path
                            << "': GridFrameOffsetVector is not evenly spaced (frames " << k - 1
                            << " and " << k << " are " << step << " mm apart, the mean is " << dz_mm
                            << " mm); resample it to a regular grid first");
        }
    }
    else
    {
        auto const thickness = file.text({0x0018, 0x0050});
        dz_mm = thickness.empty() ? spacing[0] : std::strtod(thickness.c_str(), nullptr);
    }
    GridGeometry g;
    g.dims = {{columns, rows, frames}};
    double const row[3] = {iop[0], iop[1], iop[2]};
    double const col[3] = {iop[3], iop[4], iop[5]};
    double const normal[3] = {row[1] * col[2] - row[2] * col[1], row[2] * col[0] - row[0] * col[2],
                              row[0] * col[1] - row[1] * col[0]};
    double const sign = dz_mm < 0 ? -1.0 : 1.0;
    for (int r = 0; r < 3; ++r)
    {
        g.direction[3 * r] = row[r];
        g.direction[3 * r + 1] = col[r];
        g.direction[3 * r + 2] = sign * normal[r];
        g.origin_cm[r] = ipp[std::size_t(r)] / mm_per_cm;
    }
    g.spacing_cm = {{spacing[1] / mm_per_cm, spacing[0] / mm_per_cm, std::abs(dz_mm) / mm_per_cm}};
    validate_geometry(g, ("the grid of RT Dose '" + path + "'").c_str());
    return g;
}

//! The stored pixels as numbers (unsigned or signed, 16 or 32 bits).
std::vector<double> pixel_values(DicomImageFile const& image, size_type n, std::string const& path)
{
    DicomImageFile::PixelFormat const pf = image.pixel_format();
    std::optional<std::vector<char>> const decoded = image.decoded_pixels();
    MCDOSE_VALIDATE(decoded, << "cannot decode the pixels of RT Dose '" << path
                             << "' (unsupported compression?); convert it to an uncompressed "
                                "transfer syntax (e.g. gdcmconv --raw)");
    std::vector<char> const& buffer = *decoded;
    unsigned const bytes = pf.bits_allocated / 8;
    MCDOSE_VALIDATE(pf.samples_per_pixel == 1 && (bytes == 2 || bytes == 4) &&
                        buffer.size() >= std::size_t(n) * bytes,
                    << "RT Dose '" << path << "' has " << pf.bits_allocated << "-bit pixels with "
                    << pf.samples_per_pixel << " samples for " << n
                    << " voxels; mcdose reads one 16- or 32-bit sample per voxel");
    bool const is_signed = pf.representation == 1;
    std::vector<double> values(n);
    for (size_type v = 0; v < n; ++v)
    {
        char const* p = buffer.data() + std::size_t(v) * bytes;
        if (bytes == 4)
        {
            std::uint32_t u;
            std::memcpy(&u, p, 4);
            values[v] = is_signed ? double(std::int32_t(u)) : double(u);
        }
        else
        {
            std::uint16_t u;
            std::memcpy(&u, p, 2);
            values[v] = is_signed ? double(std::int16_t(u)) : double(u);
        }
    }
    return values;
}
} // namespace

bool is_dicom_file(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    char head[132] = {};
    in.read(head, sizeof(head));
    return in.gcount() == sizeof(head) && std::memcmp(head + 128, "DICM", 4) == 0;
}

RtDoseGrid read_rt_dose(std::string const& path)
{
    // GDCM reads a cut file, or Pixel Data longer or shorter than Rows x Columns x Number of
    // Frames, as if it fitted: mcdose's own walk refuses them first.
    auto const elements = read_dicom_elements(path, "RT Dose");
    MCDOSE_VALIDATE(elements, << "'" << path
                              << "' is not a DICOM file (no 'DICM' at byte 128); give an RT "
                                 "Dose file");
    check_dicom_pixel_length(*elements, "RT Dose");
    DicomImageFile file;
    MCDOSE_VALIDATE(file.read(path), << "cannot read '" << path
                                     << "' as a DICOM image; check that it is an RT Dose file");
    std::string const sop_class = file.text({0x0008, 0x0016});
    MCDOSE_VALIDATE(sop_class == rt_dose_storage_uid,
                    << "'" << path << "' is a DICOM file of SOP class '" << sop_class
                    << "', not RT Dose (" << rt_dose_storage_uid << "); give an RT Dose file");
    std::array<unsigned, 3> const dims = file.dimensions();
    int const columns = int(dims[0]), rows = int(dims[1]);
    int const frames = file.number_of_dimensions() > 2 ? int(dims[2]) : 1;

    RtDoseGrid out;
    out.geometry = geometry_of(file, columns, rows, frames, path);
    out.dose_units = file.text({0x3004, 0x0002});
    out.dose_type = file.text({0x3004, 0x0004});
    out.dose_comment = file.text({0x3004, 0x0006});
    out.reference = reference_of(file);
    std::string const scaling_text = file.text({0x3004, 0x000E});
    double const scaling = scaling_text.empty() ? 1.0 : std::strtod(scaling_text.c_str(), nullptr);
    MCDOSE_VALIDATE(std::isfinite(scaling) && scaling > 0,
                    << "RT Dose '" << path << "' has DoseGridScaling '" << scaling_text
                    << "'; it must be a positive number");
    out.values = pixel_values(file, out.geometry.num_voxels(), path);
    for (double& x : out.values)
        x *= scaling;
    return out;
}
} // namespace mcdose
