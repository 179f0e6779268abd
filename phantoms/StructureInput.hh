//! \file phantoms/StructureInput.hh
//! The structures section of a study, as parsed from JSON
//! (phantoms/Structures.json.cc) and built by phantoms/StructureSet.hh. Plain data.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "phantoms/StructureMask.hh"

namespace mcdose
{
//! Structures of a DICOM RT Structure Set, by ROI name.
struct RtStructInput
{
    std::string path;               //!< resolved (relative to the study file)
    std::vector<std::string> names; //!< ROI names to use
    std::string pointer;            //!< JSON pointer, for messages
};

//! Structures of a label image: name -> label value.
struct LabelImageInput
{
    std::string path;
    std::vector<std::pair<std::string, int>> labels;
    std::string pointer; //!< JSON pointer, for messages
};

//! The structures section.
struct StructuresInput
{
    std::string study_file; //!< for error messages
    std::string pointer{"/structures"};
    //! "auto" (the default: "threshold" for image phantoms, "phantom" for shapes),
    //! "threshold", "phantom", or the name of one of the structures below.
    std::string body{"auto"};
    double body_density_threshold_g_cm3{default_body_density_g_cm3};
    //! Voxels below this density are reported apart and never decide a summary
    //! figure or the stopping rule [g/cm^3] (air 0.0012, lung 0.2-0.3).
    double low_density_threshold_g_cm3{0.05};
    int sub_voxel_samples{default_sub_voxel_samples};
    std::vector<RtStructInput> rt_structs;
    std::vector<LabelImageInput> label_images;

    //! Every structure name the section lists, in order.
    std::vector<std::string> names() const;
};
} // namespace mcdose
