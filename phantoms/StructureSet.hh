//! \file phantoms/StructureSet.hh
//! The body and the named structures of a study on the phantom's grid, built
//! from the structures section (phantoms/StructureInput.hh).
#pragma once

#include <string>
#include <vector>

#include "phantoms/StructureInput.hh"
#include "phantoms/StructureMask.hh"
#include "phantoms/VoxelGrid.hh"

namespace mcdose
{
//! The structures of a run.
struct StructureSet
{
    StructureMask body;                    //!< named "body"
    std::vector<StructureMask> structures; //!< in the order the study lists them
    double low_density_threshold_g_cm3{0.05};

    //! "body" or a structure by name; nullptr if absent.
    StructureMask const* find(std::string const& name) const;
};

/*!
 * Build the body and the structures of `input` on the phantom's grid. The body
 * is, by `input.body`: "auto" -> the density outline (body_outline) for an
 * image phantom, every voxel for a shape phantom (`from_image` false);
 * "threshold" -> the outline; "phantom" -> every voxel; a structure's name ->
 * that structure. Throws InputError naming the structure, the field and the
 * fix: an RT Structure Set on another Frame of Reference than the CT, a
 * structure name not in its file, contours outside the grid, an empty
 * structure. Notes (e.g. a Frame of Reference that cannot be checked) go to
 * `warnings` when it is not null.
 */
StructureSet build_structures(StructuresInput const& input, Phantom const& phantom, bool from_image,
                              std::vector<std::string>* warnings = nullptr);
} // namespace mcdose
