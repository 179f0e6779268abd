//! \file dose/Calibration.hh
//! Absolute dose from a reference calibration, as clinical Monte Carlo does it: a source
//! model's dose per source particle at a reference point under a reference condition (e.g.
//! d_max on the axis of a 10 x 10 cm^2 field at SSD 100 cm in water), where the machine
//! gives a known dose per monitor unit (e.g. 0.01 Gy/MU), fixes the particles per MU:
//!
//!   particles = MU x (D_ref / MU) / d_ref x (extent / extent_ref) x c_bs
//!
//! d_ref the dose per particle at the reference point, `extent` the solid angle (point
//! source) or area (parallel source) the field selects from the model's emission
//! (sources/SourceModel.hh), c_bs a user-given monitor-chamber backscatter correction (not
//! transported; Popescu et al., Phys. Med. Biol. 50 (2005) 3375, Eq. 6). This file holds the
//! calibration file (JSON, written by `mcdose calibrate`), its reader and the reference-point
//! dose; study/SourceCalibration.hh applies it to a study's sources.
#pragma once

#include <cstdint>
#include <string>

#include "core/Array3.hh"
#include "dose/DoseData.hh"

namespace mcdose
{
//! Dose at the reference point: the mean dose of the voxels whose centres lie within
//! `radius_cm` of it (radius 0: the voxel holding the point), with its 1-sigma uncertainty
//! sqrt(sum sigma_v^2) / n (voxels taken as independent: a lower bound).
struct ReferencePointDose
{
    double dose_Gy_per_particle{0};
    double sigma_Gy_per_particle{0};
    std::uint64_t voxels{0};
};
ReferencePointDose reference_point_dose(DoseGridData const& data, Real3 const& point_cm,
                                        double radius_cm);

//! A calibration file's contents.
struct DoseCalibration
{
    std::string source_model;       //!< sources/SourceModel.hh source_model_key
    std::string source_description; //!< for people
    double emission_extent{1};      //!< of the reference field (sr, cm^2, or 1 for a pencil)
    std::string emission_extent_unit;
    std::string condition;              //!< the reference condition in words
    Real3 point_cm{{0, 0, 0}};          //!< reference point (phantom coordinates)
    double radius_cm{0};                //!< averaging radius around it
    std::uint64_t voxels{0};            //!< voxels averaged
    double dose_per_monitor_unit_Gy{0}; //!< D_ref / MU under the reference condition
    std::string dose_to{"medium"};      //!< the quantity of d_ref: "medium" or "water"
    double dose_per_particle_Gy{0};     //!< d_ref
    double dose_per_particle_sigma_Gy{0};
    std::string reference_study_file;
    std::string reference_study_hash; //!< FNV-1a 64 of the study text, hex
    std::uint64_t reference_histories{0};
    std::string build; //!< mcdose version (git description) that computed it
    //! SHA-256 of the physics-table code of that build (TableBuildStamp::code_sha256)
    std::string physics_sha256;
    std::string created_utc;

    //! Source particles per monitor unit in the reference field: (D_ref/MU) / d_ref.
    double particles_per_monitor_unit() const
    {
        return dose_per_monitor_unit_Gy / dose_per_particle_Gy;
    }
};

//! The calibration file as JSON text (format "mcdose calibration", version 1).
std::string calibration_json(DoseCalibration const& c);

//! Write calibration_json() atomically.
void write_calibration(std::string const& path, DoseCalibration const& c);

//! Read a calibration file; InputError naming the file and the field on any problem.
DoseCalibration read_calibration(std::string const& path);
} // namespace mcdose
