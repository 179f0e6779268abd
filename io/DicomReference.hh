//! \file io/DicomReference.hh
//! The DICOM identity of a CT series, kept as plain text so that files
//! derived from it (an RT Dose) can name the same patient, study and frame of
//! reference, which is how viewers know that they overlay.
#pragma once

#include <string>

#include "io/DicomValue.hh"

namespace mcdose
{
//! Whether `uid` is a valid DICOM UID (PS3.5 9.1: components of digits
//! separated by '.', no leading zero in a component of more than one digit,
//! at most 64 characters).
bool is_dicom_uid(std::string const& uid);

//! Patient, study and frame-of-reference attributes of a CT series, as
//! written in its first file (padding removed). Empty where the CT has none.
struct DicomReference
{
    std::string specific_character_set; //!< (0008,0005), for the names below
    std::string patient_name;           //!< (0010,0010)
    std::string patient_id;             //!< (0010,0020)
    std::string patient_birth_date;     //!< (0010,0030)
    std::string patient_sex;            //!< (0010,0040)
    std::string study_instance_uid;     //!< (0020,000D)
    std::string study_date;             //!< (0008,0020)
    std::string study_time;             //!< (0008,0030)
    std::string study_id;               //!< (0020,0010)
    std::string accession_number;       //!< (0008,0050)
    std::string referring_physician;    //!< (0008,0090)
    std::string frame_of_reference_uid; //!< (0020,0052)
    std::string series_instance_uid;    //!< (0020,000E) of the CT series
};
} // namespace mcdose
