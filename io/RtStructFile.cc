//! \file io/RtStructFile.cc
#include "io/RtStructFile.hh"

#include <cstdlib>
#include <map>
#include <sstream>

#include <gdcmDataSet.h>
#include <gdcmReader.h>
#include <gdcmSequenceOfItems.h>
#include <gdcmTag.h>

#include "core/Assert.hh"
#include "io/DicomDataSet.hh"
#include "io/DicomFileCheck.hh"
#include "io/DicomValue.hh"
#include "io/InputFile.hh"

namespace mcdose
{
namespace
{
// Tags of the RT Structure Set module (DICOM PS3.3 C.8.8.5, C.8.8.6).
gdcm::Tag const modality_tag(0x0008, 0x0060);
gdcm::Tag const sop_class_tag(0x0008, 0x0016);
gdcm::Tag const series_uid_tag(0x0020, 0x000e);
gdcm::Tag const frame_uid_tag(0x0020, 0x0052);
gdcm::Tag const referenced_frame_seq_tag(0x3006, 0x0010);
gdcm::Tag const referenced_study_seq_tag(0x3006, 0x0012);
gdcm::Tag const referenced_series_seq_tag(0x3006, 0x0014);
gdcm::Tag const roi_seq_tag(0x3006, 0x0020);
gdcm::Tag const roi_number_tag(0x3006, 0x0022);
gdcm::Tag const roi_frame_uid_tag(0x3006, 0x0024);
gdcm::Tag const roi_name_tag(0x3006, 0x0026);
gdcm::Tag const roi_contour_seq_tag(0x3006, 0x0039);
gdcm::Tag const contour_seq_tag(0x3006, 0x0040);
gdcm::Tag const contour_type_tag(0x3006, 0x0042);
gdcm::Tag const contour_points_tag(0x3006, 0x0046);
gdcm::Tag const contour_data_tag(0x3006, 0x0050);
gdcm::Tag const referenced_roi_number_tag(0x3006, 0x0084);

char const rtstruct_sop_class[] = "1.2.840.10008.5.1.4.1.1.481.3";

//! A text element's value without DICOM's padding (NUL or spaces); empty if absent.
std::string element_text(gdcm::DataSet const& ds, gdcm::Tag const& tag)
{
    if (!ds.FindDataElement(tag))
        return {};
    gdcm::ByteValue const* bv = ds.GetDataElement(tag).GetByteValue();
    if (!bv || !bv->GetPointer())
        return {};
    return trim_dicom_value(std::string(bv->GetPointer(), bv->GetLength()));
}

//! The items of a sequence element (none if absent).
gdcm::SmartPointer<gdcm::SequenceOfItems> sequence(gdcm::DataSet const& ds, gdcm::Tag const& tag)
{
    if (!ds.FindDataElement(tag))
        return nullptr;
    return ds.GetDataElement(tag).GetValueAsSQ();
}

//! Calls f(nested data set) for each item of a sequence (items are 1-based in GDCM).
template <class F>
void for_each_item(gdcm::DataSet const& ds, gdcm::Tag const& tag, F&& f)
{
    auto const sq = sequence(ds, tag);
    if (!sq)
        return;
    for (gdcm::SequenceOfItems::SizeType i = 1; i <= sq->GetNumberOfItems(); ++i)
        f(sq->GetItem(i).GetNestedDataSet());
}

int parse_int(std::string const& text, std::string const& what)
{
    char* end = nullptr;
    long const x = std::strtol(text.c_str(), &end, 10);
    MCDOSE_VALIDATE(!text.empty() && end == text.c_str() + text.size(),
                    << what << ": '" << text << "' is not an integer");
    return int(x);
}

//! Contours of one ROI Contour Sequence item.
void read_contours(gdcm::DataSet const& item, std::string const& where, RtRoi& roi)
{
    for_each_item(
        item, contour_seq_tag,
        [&](gdcm::DataSet const& c)
        {
            std::string const type = element_text(c, contour_type_tag);
            if (type != "CLOSED_PLANAR")
            {
                // The other types of PS3.3 C.8.8.6.1 are not areas; anything else is damage.
                MCDOSE_VALIDATE(type == "POINT" || type == "OPEN_PLANAR" ||
                                    type == "OPEN_NONPLANAR" || type == "CLOSED_PLANAR_XOR",
                                << where << ": a contour has Contour Geometric Type (3006,0042) '"
                                << type
                                << "', not one of DICOM's (CLOSED_PLANAR, OPEN_PLANAR, "
                                   "OPEN_NONPLANAR, POINT); the file is damaged: export it again");
                ++roi.skipped_contours;
                return;
            }
            std::vector<double> const xyz =
                dicom_decimals(element_text(c, contour_data_tag), where + " Contour Data");
            std::string const n_text = element_text(c, contour_points_tag);
            std::size_t const n = n_text.empty()
                                      ? xyz.size() / 3
                                      : std::size_t(parse_int(n_text, where + " point count"));
            MCDOSE_VALIDATE(xyz.size() == 3 * n,
                            << where << ": a contour says it has " << n << " points but holds "
                            << xyz.size() << " coordinates; the file is damaged: export it again");
            RtContour contour;
            contour.points_mm.reserve(n);
            for (std::size_t p = 0; p < n; ++p)
                contour.points_mm.push_back({xyz[3 * p], xyz[3 * p + 1], xyz[3 * p + 2]});
            roi.contours.push_back(std::move(contour));
        });
}
} // namespace

RtRoi const* RtStructureSet::find(std::string const& name) const
{
    for (auto const& r : rois)
    {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

std::string RtStructureSet::names() const
{
    std::string s;
    for (auto const& r : rois)
        s += (s.empty() ? "'" : ", '") + r.name + "'";
    return s.empty() ? "(none)" : s;
}

RtStructureSet read_rt_structure_set(std::string const& path)
{
    require_regular_file(path, "RT Structure Set");
    // mcdose's own walk first: GDCM stops the program (an assertion) on some damaged files.
    MCDOSE_VALIDATE(read_dicom_elements(path, "RT Structure Set"),
                    << "'" << path
                    << "' is not a DICOM file (no 'DICM' at byte 128); give the path of an RT "
                       "Structure Set (RTSTRUCT) file");
    quiet_gdcm();
    gdcm::Reader reader;
    reader.SetFileName(path.c_str());
    MCDOSE_VALIDATE(reader.Read(), << "cannot read '" << path
                                   << "' as a DICOM file (missing, unreadable or not DICOM); "
                                      "give the path of an RT Structure Set (RTSTRUCT) file");
    gdcm::DataSet const& ds = reader.GetFile().GetDataSet();
    std::string const modality = element_text(ds, modality_tag);
    MCDOSE_VALIDATE(modality == "RTSTRUCT" || element_text(ds, sop_class_tag) == rtstruct_sop_class,
                    << "'" << path << "' is a DICOM file of modality '" << modality
                    << "', not an RT Structure Set (RTSTRUCT); give the structure set exported "
                       "with the CT");
    RtStructureSet set;
    set.path = path;
    set.frame_of_reference_uid = element_text(ds, frame_uid_tag);
    for_each_item(ds, referenced_frame_seq_tag,
                  [&](gdcm::DataSet const& frame)
                  {
                      if (set.frame_of_reference_uid.empty())
                          set.frame_of_reference_uid = element_text(frame, frame_uid_tag);
                      for_each_item(frame, referenced_study_seq_tag,
                                    [&](gdcm::DataSet const& study)
                                    {
                                        for_each_item(study, referenced_series_seq_tag,
                                                      [&](gdcm::DataSet const& series) {
                                                          set.referenced_series_uids.push_back(
                                                              element_text(series, series_uid_tag));
                                                      });
                                    });
                  });

    std::map<int, std::size_t> by_number;
    for_each_item(ds, roi_seq_tag,
                  [&](gdcm::DataSet const& item)
                  {
                      RtRoi roi;
                      roi.number = parse_int(element_text(item, roi_number_tag),
                                             "'" + path + "' ROI Number");
                      roi.name = element_text(item, roi_name_tag);
                      roi.frame_uid = element_text(item, roi_frame_uid_tag);
                      by_number[roi.number] = set.rois.size();
                      set.rois.push_back(std::move(roi));
                  });
    for_each_item(ds, roi_contour_seq_tag,
                  [&](gdcm::DataSet const& item)
                  {
                      int const number = parse_int(element_text(item, referenced_roi_number_tag),
                                                   "'" + path + "' Referenced ROI Number");
                      auto const it = by_number.find(number);
                      MCDOSE_VALIDATE(it != by_number.end(),
                                      << "'" << path << "' has contours for ROI number " << number
                                      << ", which its Structure Set ROI Sequence does not list; "
                                         "the file is inconsistent: export it again");
                      RtRoi& roi = set.rois[it->second];
                      read_contours(item, "'" + path + "' structure '" + roi.name + "'", roi);
                  });
    return set;
}
} // namespace mcdose
