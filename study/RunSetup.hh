//! \file study/RunSetup.hh
//! The first stage of a study's run (run_study): everything set up before any transport.
//! The phantom and its materials, the GPUs and the physics tables (started together), the
//! checks, the structures, dose-to-water factors, the outputs' directory locked, the batch
//! plan and memory plan, the sources. Bad input stops here, before any history runs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dose/BatchFigures.hh"
#include "dose/DoseData.hh"
#include "dose/RunTimings.hh"
#include "io/DicomReference.hh"
#include "phantoms/StructureSet.hh"
#include "phantoms/VoxelGrid.hh"
#include "phantoms/materials/Material.hh"
#include "sources/SourceParams.hh"
#include "study/DoseToWater.hh"
#include "study/OutputPlan.hh"
#include "study/StudyRunner.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose
{
class Comm;

//! What the sources imply for the physics tables, the FX quantum and the dose in Gy.
struct SourceBounds
{
    double max_kinetic_MeV{0}; //!< largest kinetic energy a source emits (table range)
    //! Largest energy a history brings, 2 m c^2 of a positron's annihilation included
    //! (the FX quantum is set from it).
    double max_primary_MeV{0};
    //! Particles the run represents, if every source says (then dose also in Gy).
    std::optional<double> source_particles;
};

//! The voxel phantom and the material of each of its material indices.
struct StudyPhantom
{
    Phantom phantom;
    std::vector<Material> materials; //!< by MaterialIndex
    DicomReference ct_dicom;         //!< a DICOM CT series' identity (empty otherwise)
};

//! Per-GPU copy of the read-only data of every GPU after the first: each
//! params object caches exactly one device copy (the current device's at
//! its first view), so GPU i needs its own. Built on the host here, uploaded
//! by GPU i's host thread.
struct DeviceReplica
{
    std::unique_ptr<VoxelGridParams> grid;
    std::unique_ptr<TransportParams> physics;
};

//! The study's source samplers in the transport's precision, one per worker group.
using StudySources =
    std::variant<std::vector<SourceMixParams<float>>, std::vector<SourceMixParams<double>>>;

//! Where outputs.phase_space goes ("": none) and the comments of its file.
struct PhaseSpacePlan
{
    std::string path;
    std::vector<std::string> comments;
};

/*!
 * Everything the set-up made, for the transport and the finish. What others point into
 * (the study, the phantom, the structures, the tables) is on the heap, so the set-up moves
 * as a whole.
 */
struct RunSetup
{
    std::unique_ptr<StudyInput const> study_input; //!< the command line's overrides applied
    StudyInput const& study() const { return *study_input; }
    std::string started_utc;
    bool writes{false}; //!< this rank writes the outputs
    Backend backend{Backend::cpu};
    TransportChoice choice;
    SourceBounds bounds;
    std::unique_ptr<StudyPhantom const> study_phantom;
    Phantom const& phantom() const { return study_phantom->phantom; }
    std::vector<int> gpus;
    std::unique_ptr<StructureSet const> structures;
    StructureMask const* stop_region{nullptr}; //!< in `structures`
    DoseToWater to_water;
    std::optional<PreparedOutputs> prepared; //!< where this rank writes (locked)
    //! Backend, threads, GPUs, RNG, history count and batches, checkpoints; its on_batch is
    //! the caller's (the transport stage adds the run's own hooks).
    TransportRunOptions run_options;
    int depth_axis{2};
    StudySources sources;
    std::unique_ptr<TransportParams const> physics; //!< the CPU's or the first GPU's
    std::vector<DeviceReplica> replicas;            //!< one per GPU after the first
    PhaseSpacePlan phase_space_out;
};

//! Set up the run of `study` (the first of run_study's three stages); each step booked on
//! `clock`, warnings and the tables' origin into `summary`.
RunSetup set_up_run(StudyInput const& study, StudyRunOptions const& options, StepClock& clock,
                    StudyRunSummary& summary);

//! The structures whose DVH figures the run reports, in the report's order: the body
//! (unless it is a named structure), then the study's structures.
std::vector<StructureMask const*> dvh_structures(StudyInput const& study,
                                                 StructureSet const& structures);

//! What each batch keeps of the structures of dvh_structures, and their figures' sigmas
//! from it (the phantom, structures and dose-to-water factors of `setup`).
StructureBatchFigures structure_batch_figures(RunSetup const& setup);

//! Energy per voxel and its 1 sigma on the phantom's grid (spans into the arguments).
DoseGridData dose_grid_view(Phantom const& phantom, Span<double const> edep_MeV,
                            Span<double const> sigma_MeV);
} // namespace mcdose
