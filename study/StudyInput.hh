//! \file study/StudyInput.hh
//! A whole study as parsed from JSON (study/Study.json.cc): phantom,
//! user materials, sources, physics options, RNG, tally, stopping rule,
//! backend and outputs. Plain data with defaults; the format, units and
//! defaults are documented in docs/study-reference.md and docs/study.schema.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/Array3.hh"
#include "core/GridGeometry.hh"
#include "core/Types.hh"
#include "dose/DoseData.hh"
#include "dose/DoseImages.hh"
#include "phantoms/PhantomInput.hh"
#include "phantoms/StructureInput.hh"
#include "rng/RngKind.hh"
#include "sources/SourceInput.hh"
#include "tally/TallyMethod.hh"
#include "transport/engine/TransportParams.hh"

namespace mcdose
{
/*!
 * Physics options: the transport's own (the reader fills them from the JSON "physics"
 * section; their defaults are TransportOptions' and ElectronTransportOptions', which
 * docs/physics.md documents with their measured effect), and the precision of the run.
 * The run sets `transport.emax_MeV` from the sources. JSON names: electron_cutoff_MeV
 * (electron.absorption_MeV), photon_cutoff_MeV, delta_ray_cut_MeV (electron.delta_cut_MeV),
 * brems_cut_MeV, max_step_energy_loss (electron.max_loss_fraction), max_step_transport_mfp
 * (electron.max_mfp_fraction), electron_transport "condensed" | "local"
 * (electron.condensed_history), density_effect "voxel" | "nominal",
 * bremsstrahlung_photons "transport" | "discard" (electron.discard_brems_photons),
 * photon_tracking "woodcock" | "siddon" (tracking).
 */
struct PhysicsInput
{
    TransportOptions transport;
    Precision precision{Precision::double_};
};

//! Random numbers.
struct RngInput
{
    //! "philox" | "hybrid-taus" | "lagged-fibonacci" | "lcg" | "ran2" (the last two are
    //! baselines for RNG studies; run_study refuses them)
    RngKind generator{RngKind::philox};
    std::uint64_t seed{1};
};

//! How a run estimates the dose uncertainty (docs/tally.md).
enum class TallyUncertainty
{
    automatic, //!< "auto": history by history where a run can, else batches
    batch,     //!< "batch": from statistically independent batches
    history    //!< "history": history by history (the CPU backend only)
};
//! "auto", "batch" or "history".
char const* to_cstring(TallyUncertainty u);
//! Parse "auto|batch|history" (throws RuntimeError naming the choices).
TallyUncertainty to_tally_uncertainty(std::string const& name);

//! Dose tally.
struct TallyInput
{
    TallyMethod method{TallyMethod::wib}; //!< "fa" | "cas" | "wag" | "kas" | "hb" | "wib" | "fx"
    //! "uncertainty": "auto" (history by history where a run can, else batches), "batch"
    //! or "history" (the CPU backend only; docs/tally.md)
    TallyUncertainty uncertainty{TallyUncertainty::automatic};
    //! Batches; 0 (not given): 100 with the batch method, 10 history by history
    int batches{0};

    //! The batches of a run (`history`: history by history, uses_history_uncertainty).
    int run_batches(bool history) const { return batches > 0 ? batches : history ? 10 : 100; }
};

//! Most histories a run accepts (study and command line).
inline constexpr std::uint64_t max_study_histories = std::uint64_t(1) << 62;

//! Stopping rule: a number of histories, or a target uncertainty with a time limit.
struct RunInput
{
    std::optional<std::uint64_t> histories;
    //! Target mean relative uncertainty (1 sigma) over voxels with dose above
    //! `uncertainty_dose_fraction` of the maximum dose.
    std::optional<double> target_uncertainty;
    double uncertainty_dose_fraction{0.5};
    std::optional<double> time_limit_s; //!< wall-clock limit; default 3600 with a target
    std::optional<std::uint64_t> max_histories;
    std::uint64_t batch_histories{0}; //!< histories per batch (0: engine decides)
    //! Region the target uncertainty is evaluated on: "body" or a structure's name.
    std::string stop_on{"body"};
};

//! A lateral profile: dose along grid axis `axis` through `position_cm`.
struct LateralProfileInput
{
    int axis{0};
    Real3 position_cm{{0, 0, 0}};
    std::string name; //!< file-name suffix
};

//! A phase space scored on a plane outside the grid (study/PhaseSpaceOutput.hh):
//! the particles crossing it along `normal` go to `<name>_phase_space.mcpl`.
struct PhaseSpaceOutputInput
{
    Real3 point_cm{{0, 0, 0}}; //!< a point of the plane, phantom coordinates
    Real3 normal{{0, 0, 1}};   //!< unit normal (normalised by the parser)
};

//! What a run does when files of an earlier run are there (outputs.if_exists, --if-exists).
enum class IfExists
{
    error,     //!< "error": refuse (the default)
    overwrite, //!< "overwrite": remove the files the earlier run's manifest lists, then write
    increment  //!< "increment": write under `<name>_2`, `_3`, ...
};
//! "error", "overwrite" or "increment".
char const* to_cstring(IfExists e);
//! Parse "error|overwrite|increment" (throws RuntimeError naming the choices).
IfExists to_if_exists(std::string const& name);

//! What to write.
struct OutputInput
{
    std::string directory; //!< resolved against the study file's directory
    std::string name;      //!< file stem (default: the study file's stem)
    bool hdf5{true};
    ImageFormat image_format{ImageFormat::mha}; //!< mha|nrrd|nii|none (dose + uncertainty images)
    bool depth_dose{true};
    std::optional<int> depth_axis; //!< default: grid axis closest to the first source's direction
    std::vector<LateralProfileInput> lateral_profiles;
    bool summary{true}; //!< run-summary JSON
    //! DICOM RT Dose files `<name>_dose.dcm` and `<name>_uncertainty.dcm` (dose/RtDose.hh)
    bool rtdose{false};
    //! SOP Instance UID of the RT Plan the dose belongs to ("" : none referenced)
    std::string rtdose_referenced_plan;
    //! Bits of the RT Dose pixels: 16 (the default, read by every DICOM reader) or 32
    int rtdose_bits{16};
    //! What a run does when files of an earlier run are there: "error" (the default),
    //! "overwrite" or "increment" (IfExists).
    IfExists if_exists{IfExists::error};
    //! DVH CSV files (default: when the study has a "structures" section)
    bool dvh{false};
    //! Doses at which the volume receiving at least that dose is reported, in
    //! the run's dose unit (Gy, or Gy per particle without a particle count).
    std::vector<double> dvh_volume_at_doses;
    //! "dose_to": false (default) dose to medium; true dose to water (study/DoseToWater.hh)
    bool dose_to_water{false};
    //! Start energy of the slowing-down spectrum of the stopping-power ratios [MeV]
    //! (default: the largest kinetic energy of the sources)
    std::optional<double> dose_to_water_energy_MeV;
    std::optional<PhaseSpaceOutputInput> phase_space;
};

//! The whole study.
struct StudyInput
{
    std::string study_file; //!< path as given
    std::string study_json; //!< the full input text, echoed into outputs
    PhantomInput phantom;
    StructuresInput structures;      //!< defaults (the body only) when the section is absent
    std::string user_materials_json; //!< the "materials" array as JSON text ("" if none)
    std::vector<std::string> user_material_names;
    std::vector<SourceInput> sources;
    PhysicsInput physics;
    RngInput rng;
    TallyInput tally;
    RunInput run;
    Backend backend{Backend::automatic};
    int cpu_threads{0}; //!< 0: all cores
    OutputInput outputs;
    //! Where the sources' particles come from when they give monitor units (the reader
    //! turns those into `particles` with their calibration: study/SourceCalibration.hh).
    AbsoluteDoseSource absolute;
    std::vector<std::string> reader_warnings; //!< e.g. a calibration from another build
};

//! Read, parse and range-check a study file. Errors are InputError (file,
//! JSON pointer, problem and fix). Image files are not opened here.
StudyInput load_study(std::string const& path);

//! Parse a study from text (`source_name` is used in messages and to resolve
//! relative paths, as if it were the file's path).
StudyInput parse_study(std::string const& text, std::string const& source_name);

//! Depth axis for outputs: `outputs.depth_axis` if set, else the local grid
//! axis most aligned with the first source's direction.
int resolve_depth_axis(StudyInput const& study, GridGeometry const& geometry);
} // namespace mcdose
