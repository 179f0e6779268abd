//! \file study/StudyChecks.hh
//! Whole-study validation: the checks `mcdose check` and run_study make.
//!
//! The parser (Study.json.cc) checks syntax, types and ranges field by field;
//! the phantom build checks images and the calibration. Checks that need
//! later parts of the engine (e.g. a source energy against the physics
//! tables, a tally method against what the backend supports) register
//! themselves here from their own files, so `mcdose check` grows with them:
//! \code
//!   bool const registered = register_study_check(
//!       {"sources", [](StudyInput const& s, Phantom const& p) { ... }});
//! \endcode
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "io/DicomReference.hh"
#include "phantoms/VoxelGrid.hh"
#include "study/StudyInput.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose
{
//! A named check that throws InputError/RuntimeError describing the problem.
struct StudyCheck
{
    std::string name;
    std::function<void(StudyInput const& study, Phantom const& phantom)> check;
};

//! Register a check (call from a namespace-scope initialiser).
bool register_study_check(StudyCheck check);

//! Registered checks, in registration order.
std::vector<StudyCheck> const& registered_study_checks();

//! Build the study's phantom: user materials, material names, images and
//! calibration (errors name the field). Notes go to `warnings`; a DICOM CT
//! series' identity to `ct_dicom` when it is not null.
Phantom build_study_phantom(StudyInput const& study, std::vector<std::string>* warnings,
                            DicomReference* ct_dicom = nullptr);

//! Which of the study checks to make.
struct StudyCheckOptions
{
    bool outputs{true}; //!< the outputs section (names, directory, earlier files)
};

/*!
 * The checks a study must pass before transport, in order: sources (volume sources
 * against the phantom), random
 * number generator, backend, outputs (profile points inside the phantom,
 * names, directory: study/OutputPlan.hh), then the registered checks. One
 * list for `mcdose check` and run_study, so that `check` refuses whatever a
 * run would refuse before transport.
 */
void run_study_checks(StudyInput const& study, Phantom const& phantom,
                      StudyCheckOptions const& options = {});

/*!
 * Whether a run on `backend` (resolved) estimates the uncertainty history by
 * history: tally.uncertainty "history", or "auto" where a run can (the CPU backend,
 * and no phase-space particle used more than once: its uses are correlated, which
 * the batch method keeps in one batch).
 */
bool uses_history_uncertainty(StudyInput const& study, Backend backend);

//! The backend a run uses: `requested`, with "auto" resolved (a GPU if one
//! is usable); RuntimeError for "gpu" without a usable GPU.
Backend resolve_backend(Backend requested);

//! What the transport runs (precision, generator, tally method), from the study's input;
//! refuses a baseline generator, naming the field.
TransportChoice study_transport_choice(StudyInput const& study);

//! Everything `mcdose check` verifies: build the phantom, run_study_checks,
//! then build the structures (phantoms/StructureSet.hh). Returns the phantom
//! for the caller's summary.
Phantom check_study(StudyInput const& study, std::vector<std::string>* warnings);
} // namespace mcdose
