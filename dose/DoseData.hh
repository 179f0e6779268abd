//! \file dose/DoseData.hh
//! What the writers take: plain per-voxel arrays and run metadata, so that the
//! writers do not depend on the tally or transport internals.
//!
//! All per-voxel energies are per source particle. Arrays are in the grid's
//! linear order (i fastest; see core/GridGeometry.hh).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/Constants.hh"
#include "core/GridGeometry.hh"
#include "core/Span.hh"
#include "dose/DoseFigures.hh"
#include "dose/RunTimings.hh"
#include "io/DicomReference.hh"
#include "phantoms/VoxelGrid.hh"
#include "tally/EnergyBalance.hh"
#include "tally/EnergyMask.hh"

namespace mcdose
{
/*!
 * The dose [Gy per source particle] and relative 1-sigma uncertainty of the voxels of a
 * grid's energy mask, in voxel order, computed once (voxel_dose_gy_per_particle,
 * voxel_relative_uncertainty) for the dose report's passes and the writers: in a short
 * run's large grid the voxels with energy are few and scattered (one in 40 of the 512^3
 * benchmark study's), and each pass would otherwise gather a voxel's energy, uncertainty,
 * density and material from four grids, a cache miss each. Index k of voxel v (whose mask
 * bit is set): the set bits before it, `before[v / 64]` plus those of its own word.
 */
struct EnergyVoxelTable
{
    //! index() of a voxel without energy.
    static constexpr size_type none = ~size_type(0);
    std::vector<std::uint32_t> before;  //!< per mask word: the voxels of the words before it
    std::vector<double> dose;           //!< voxel_dose_gy_per_particle of each
    std::vector<double> relative_sigma; //!< voxel_relative_uncertainty of each

    //! Was it made (energy_voxel_table), for DoseGridData::energy_table? Else null.
    EnergyVoxelTable const* if_made() const { return before.empty() ? nullptr : this; }

    //! Voxel v's index in the table, or `none` where its bit of `mask` is not set.
    size_type index(std::uint64_t const* mask, size_type v) const
    {
        std::uint64_t const word = mask[v / 64];
        std::uint64_t const below = (std::uint64_t(1) << (v % 64)) - 1;
        if (((word >> (v % 64)) & 1) == 0)
            return none;
        return size_type(before[v / 64]) + size_type(__builtin_popcountll(word & below));
    }
};

//! Result arrays of a run on a voxel grid.
struct DoseGridData
{
    GridGeometry geometry;
    Span<double const> edep_MeV;        //!< energy deposited per source particle [MeV]
    Span<double const> edep_sigma_MeV;  //!< its 1-sigma statistical uncertainty [MeV]
    Span<float const> density_g_cm3;    //!< mass density [g/cm^3]
    Span<MaterialIndex const> material; //!< index into material_names
    std::vector<std::string> material_names;
    //! Dose to water: the factor by which each material's dose to medium is multiplied
    //! (the water/medium stopping-power ratio, computed in study/DoseToWater.hh), by
    //! material index. Empty: dose to the medium of each voxel.
    std::vector<double> material_dose_factor;
    //! Optional: which voxels have energy, bit v % 64 of word v / 64 set where
    //! edep_MeV[v] != 0 (tally/EnergyMask.hh). Most of a large grid gets no energy in a short
    //! run; the dose report's passes and the writers then read a bit of those voxels
    //! instead of 8 bytes. Empty: they read edep_MeV.
    Span<std::uint64_t const> has_energy;
    //! Optional, with `has_energy`: the dose and uncertainty of its voxels
    //! (energy_voxel_table), which voxel_dose_gy_per_particle and
    //! voxel_relative_uncertainty then read; it must outlive the data.
    EnergyVoxelTable const* energy_table{nullptr};
};

//! The dose data of a grid as views of the caller's per-voxel arrays (which must outlive
//! it), without material names or dose-to-water factors.
inline DoseGridData dose_grid_view(GridGeometry const& geometry, Span<double const> edep_MeV,
                                   Span<double const> edep_sigma_MeV,
                                   Span<float const> density_g_cm3,
                                   Span<MaterialIndex const> material)
{
    DoseGridData d;
    d.geometry = geometry;
    d.edep_MeV = edep_MeV;
    d.edep_sigma_MeV = edep_sigma_MeV;
    d.density_g_cm3 = density_g_cm3;
    d.material = material;
    return d;
}

//! What the dose values of a run are, stated in every output's metadata.
struct DoseQuantity
{
    bool to_water{false}; //!< false: dose to medium
    //! How dose to water was obtained (the stopping-power ratios' spectrum and data).
    std::string method;
    //! Start energy of the electron slowing-down spectrum the ratios average over [MeV].
    double spectrum_energy_MeV{0};
    //! "dose to medium" or "dose to water".
    char const* name() const { return to_water ? "dose to water" : "dose to medium"; }
    //! "medium" or "water".
    char const* keyword() const { return to_water ? "water" : "medium"; }
};

//! How source particles (and so Gy) were obtained: given, or from monitor units.
struct AbsoluteDoseSource
{
    std::string description; //!< e.g. "100 MU with calibration cal.json (...)"
    std::vector<std::string> calibration_files;
    double monitor_units{0}; //!< sum over the sources (0 when particles were given)
    //! Relative 1-sigma uncertainty of the calibration's dose per particle (the largest of
    //! the calibrations used), carried into the figures' sigmas (0 when particles were given).
    double calibration_relative_sigma{0};
};

//! Why a run stopped (written as the to_cstring spelling: "stop_reason" of the run
//! summary and the HDF5 file).
enum class StopReason
{
    histories,          //!< the histories asked for are done
    target_uncertainty, //!< the target uncertainty is reached
    time_limit,         //!< the time limit of a target-uncertainty run passed
    interrupted         //!< stopped early (a signal or the caller): results so far
};
//! "histories", "target_uncertainty", "time_limit" or "interrupted".
char const* to_cstring(StopReason r);

// Energy bookkeeping: the transport's EnergyBalance (tally/EnergyBalance.hh);
// in RunMetadata it holds values per source particle [MeV].

//! The central axis of a run's first source in phantom coordinates: what plots along the
//! beam follow (scripts/plot_dose.py).
struct BeamAxisRecord
{
    Real3 point_cm;  //!< the focal spot (beams) or the source position [cm]
    Real3 direction; //!< unit, along the beam
};

//! Facts about a run, written next to the results.
struct RunMetadata
{
    std::string study_file;
    std::string study_json;  //!< full input, echoed
    std::string version;     //!< mcdose version and git description
    std::string started_utc; //!< ISO 8601
    std::uint64_t seed{0};
    std::string rng_generator;
    std::string tally_method;
    //! How the uncertainty was estimated: "100 batches" or "history by history".
    std::string uncertainty_method;
    std::string precision;
    std::string backend; //!< "gpu" or "cpu" (what actually ran)
    std::string device;  //!< e.g. GPU name or CPU thread count
    std::uint64_t histories{0};
    //! Histories (of this rank) whose source particle was sampled ahead of the transport
    //! on a GPU (the rest sampled it when they started).
    std::uint64_t source_particles_ahead{0};
    double wall_time_s{0}; //!< from the start of the run to the start of its outputs
    double transport_time_s{0};
    //! Wall time of each step so far, the output files' included as they are written.
    std::vector<StepTime> steps;
    bool complete{true}; //!< false when interrupted (results so far)
    StopReason stop_reason{StopReason::histories};
    //! Mean relative uncertainty over voxels above uncertainty_dose_fraction of
    //! the maximum dose (see mean_relative_uncertainty()).
    std::optional<double> uncertainty_reached;
    double uncertainty_dose_fraction{0.5};
    //! Particles the source represents (dose also in Gy when set).
    std::optional<double> source_particles;
    //! Where source_particles came from (empty without them).
    AbsoluteDoseSource absolute;
    //! Dose to medium or dose to water.
    DoseQuantity quantity;
    EnergyBalance energy;
    std::vector<std::string> warnings; //!< what the run warned about (e.g. no dose)
    //! The DICOM CT series the phantom came from (empty UIDs otherwise): an
    //! RT Dose names its patient, study and frame of reference.
    DicomReference ct_dicom;
    //! Summary over the body (or the stop_on structure) and the structures' DVH
    //! figures (dose/DoseFigures.hh); run_study always fills it.
    DoseReport report;
    //! The first source's axis (beams, pencil, parallel and point sources; none for
    //! isotropic, volume and phase-space sources).
    std::optional<BeamAxisRecord> beam_axis;
};

//! The unit of the written dose: "Gy" with a particle count, else "Gy per source particle".
inline char const* dose_unit(RunMetadata const& meta)
{
    return meta.source_particles ? "Gy" : "Gy per source particle";
}

//! The dose of every voxel without energy (voxel_dose_gy_per_particle).
inline constexpr double dose_without_energy = 0.0;
//! The relative uncertainty of every voxel without energy (voxel_relative_uncertainty): the
//! convention that such a voxel carries no information.
inline constexpr double relative_uncertainty_without_energy = 1.0;

//! Dose [Gy per source particle] of voxel v = edep / (density * voxel
//! volume), times the voxel material's dose-to-water factor when the data
//! carry them; 0 where the voxel has no mass. The writers compute it voxel by
//! voxel (or slice by slice) instead of keeping another grid. Inline: every
//! pass over a grid calls it once per voxel; a voxel without energy (most of a
//! large grid in a short run) reads nothing else.
inline double voxel_dose_gy_per_particle(DoseGridData const& data, size_type v)
{
    if (EnergyVoxelTable const* table = data.energy_table)
    {
        size_type const k = table->index(data.has_energy.data(), v);
        return k == EnergyVoxelTable::none ? dose_without_energy : table->dose[k];
    }
    double const e = data.edep_MeV[v];
    if (e == 0)
        return dose_without_energy;
    double const mass_g = double(data.density_g_cm3[v]) * data.geometry.voxel_volume_cm3();
    // D = E / m; 1 MeV/g = gray_per_MeV_g Gy.
    double const factor =
        data.material_dose_factor.empty() ? 1.0 : data.material_dose_factor[data.material[v]];
    return mass_g > 0 ? e / mass_g * constants::gray_per_MeV_g * factor : 0.0;
}

//! Relative 1-sigma uncertainty of voxel v's dose (see relative_uncertainty()).
inline double voxel_relative_uncertainty(DoseGridData const& data, size_type v)
{
    if (EnergyVoxelTable const* table = data.energy_table)
    {
        size_type const k = table->index(data.has_energy.data(), v);
        return k == EnergyVoxelTable::none ? relative_uncertainty_without_energy
                                           : table->relative_sigma[k];
    }
    double const e = data.edep_MeV[v];
    return e > 0 ? data.edep_sigma_MeV[v] / e : relative_uncertainty_without_energy;
}

/*!
 * out[v - begin] = T(value(v)) for v in [begin, end), where `value` gives `empty` for every
 * voxel without energy: by the data's energy mask, where they carry one, the voxels without
 * energy are given `empty` without reading them, and `value` is asked only for the voxels
 * of the mask (a writer's pass over a mostly empty grid).
 */
template <class T, class Value>
void fill_voxel_values(DoseGridData const& data, size_type begin, size_type end, T* out, T empty,
                       Value&& value)
{
    if (data.has_energy.empty())
    {
        for (size_type v = begin; v < end; ++v)
            out[v - begin] = static_cast<T>(value(v));
        return;
    }
    std::fill(out, out + (end - begin), empty);
    for (size_type w = begin / 64; w * 64 < end; ++w)
    {
        for_each_set_bit(word_bits_in(data.has_energy.data(), w, begin, end),
                         std::max(begin, 64 * w),
                         [&](size_type v) { out[v - begin] = static_cast<T>(value(v)); });
    }
}

/*!
 * The table of the voxels of `data`'s energy mask (EnergyVoxelTable), made on `threads`
 * host threads (0: all); not made (if_made() null) where it would not pay or could not
 * serve: the data carry no mask, more than 1/16 of the voxels have
 * energy (dense grids are read in order anyway; the table holds 16 bytes per voxel), or a
 * voxel's energy is negative (StructureDoses' sigma is 0 there, which the table does not
 * hold).
 */
EnergyVoxelTable energy_voxel_table(DoseGridData const& data, int threads = 0);

//! Largest dose of the grid [Gy per source particle] (0 for an empty grid).
double max_dose_gy_per_particle(DoseGridData const& data);

//! Dose [Gy per source particle] = edep / (density * voxel volume); 0 where
//! the voxel has no mass.
std::vector<double> dose_gy_per_particle(DoseGridData const& data);

//! Relative 1-sigma uncertainty of the dose (= of edep); 1 (100 %) where no
//! energy was deposited, the convention that such a voxel carries no information.
std::vector<double> relative_uncertainty(DoseGridData const& data);

//! Mean relative uncertainty over voxels with dose above `fraction` of the
//! maximum dose (what a target-uncertainty run stops on); nullopt if no dose.
std::optional<double> mean_relative_uncertainty(DoseGridData const& data, double fraction);

//! Check array sizes against the geometry (RuntimeError on mismatch).
void validate_dose_data(DoseGridData const& data);
} // namespace mcdose
