//! \file study/StudyChecks.hh
//! Whole-study validation used by `mcdose check` (and before a run).
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

#include "phantoms/VoxelGrid.hh"
#include "study/StudyInput.hh"

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
//! calibration (errors name the field). Notes go to `warnings`.
Phantom build_study_phantom(StudyInput const& study, std::vector<std::string>* warnings);

//! Volume sources: each emits from at least one voxel of the phantom (material, region
//! and activity image read and checked; errors name the source's field).
void check_volume_sources(StudyInput const& study, Phantom const& phantom);

//! Everything `mcdose check` verifies: build the phantom, check that output
//! profile points lie in it and the volume sources, then run the registered checks. Returns the
//! phantom for the caller's summary.
Phantom check_study(StudyInput const& study, std::vector<std::string>* warnings);
} // namespace mcdose
