//! \file io/RtPlanFile.hh
//! Reading a DICOM RT Plan (RTPLAN, DICOM PS3.3 C.8.8.9 to C.8.8.14): the fraction group's
//! beams with their monitor units, each beam's machine, source-axis distance, energy and beam
//! limiting devices, and every control point with DICOM's rule applied that a value unchanged
//! since the previous control point may be omitted (the values here are always complete).
//! Read through io/DicomDataSet.hh; no third-party headers.
//!
//! What mcdose does not model is refused, naming the beam and the item: wedges, blocks,
//! compensators, applicators, boli given as beam accessories, radiation other than photons,
//! table-top eccentric, pitch and roll angles. So is every inconsistent plan: a missing tag,
//! a leaf count that does not match the leaf position boundaries, crossing leaves, meterset
//! weights that decrease. Lengths in mm, angles in degrees, as DICOM stores them.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace mcdose
{
//! A beam limiting device of a beam (Beam Limiting Device Sequence item).
struct RtBeamLimitingDevice
{
    std::string type;                  //!< X, Y, ASYMX, ASYMY, MLCX or MLCY
    int pairs{0};                      //!< Number of Leaf/Jaw Pairs
    std::vector<double> boundaries_mm; //!< Leaf Position Boundaries (pairs + 1; MLC only)

    bool is_mlc() const { return type == "MLCX" || type == "MLCY"; }
    //! Whether the device moves along X_b (X, ASYMX, MLCX).
    bool along_x() const { return type == "X" || type == "ASYMX" || type == "MLCX"; }
};

//! A control point with every value given (carried from the previous one where omitted).
struct RtControlPoint
{
    double cumulative_weight{0}; //!< Cumulative Meterset Weight
    double gantry_deg{0};
    std::string gantry_direction{"NONE"}; //!< NONE, CW or CC
    double collimator_deg{0};             //!< Beam Limiting Device Angle
    double couch_deg{0};                  //!< Patient Support Angle
    std::array<double, 3> isocentre_mm{}; //!< Isocenter Position, patient coordinates
    double energy_MV{0};                  //!< Nominal Beam Energy
    //! Leaf/Jaw Positions of each device, in the order of RtBeam::devices: 2 N values, bank
    //! 1 (the -X_b or -Y_b side) first, then bank 2.
    std::vector<std::vector<double>> positions_mm;
};

//! One beam of the fraction group.
struct RtBeam
{
    int number{0};
    std::string name;
    std::string machine; //!< Treatment Machine Name
    std::string type;    //!< STATIC or DYNAMIC
    double sad_mm{1000};
    double meterset_mu{0};        //!< Beam Meterset of the fraction group
    double final_weight{1};       //!< Final Cumulative Meterset Weight
    std::string fluence_mode;     //!< STANDARD or NON_STANDARD (e.g. FFF), "" when absent
    std::string patient_position; //!< HFS, HFP, FFS, FFP, ... (its patient setup)
    std::vector<RtBeamLimitingDevice> devices;
    std::vector<RtControlPoint> control_points;

    //! The device of `type`, or -1.
    int device_index(std::string const& type) const;
};

//! A whole plan (its first and only fraction group).
struct RtPlan
{
    std::string path;
    std::string label;                  //!< RT Plan Label
    std::string sop_instance_uid;       //!< SOP Instance UID, for the dose that references it
    std::string frame_of_reference_uid; //!< Frame of Reference UID
    int fractions{1};                   //!< Number of Fractions Planned
    std::vector<RtBeam> beams;          //!< the fraction group's beams with a meterset > 0
};

//! Read an RT Plan file. Throws RuntimeError naming the file, the beam (number and name),
//! the control point and the item for anything missing, inconsistent or not modelled.
RtPlan read_rt_plan(std::string const& path);
} // namespace mcdose
