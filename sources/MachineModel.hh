//! \file sources/MachineModel.hh
//! A treatment machine's collimation as an rt_plan source models it (a machine file, JSON,
//! read by sources/Machine.json.cc; examples/machines/ holds the Varian Millennium 120 and
//! HD120 and the Elekta Agility, each number with its reference). Lengths in cm; leaf widths
//! and the tongue-and-groove width projected to the isocentre plane, as DICOM gives the leaf
//! position boundaries; heights and distances along the beam from the focal spot.
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
//! The multileaf collimator.
struct MlcModel
{
    std::string type{"MLCX"};         //!< MLCX (leaves move along X_b) or MLCY
    std::vector<double> widths_cm;    //!< each leaf pair's width at the isocentre, from -Y_b
    double leaf_height_cm{0};         //!< leaf extent along the beam
    double centre_distance_cm{0};     //!< focal spot to the middle of the leaf height
    double end_radius_cm{0};          //!< radius of the rounded leaf end (>= half the height)
    double tongue_groove_cm{0};       //!< width at the isocentre where adjacent leaves overlap
    double leaf_transmission{0};      //!< through a leaf's full height (open field = 1)
    double interleaf_transmission{0}; //!< between two closed adjacent leaves
    double max_position_cm{0};        //!< |leaf position| at the isocentre never exceeds it
};

//! The jaws (or diaphragms) the sampled field is clipped to.
struct JawModel
{
    double max_x_cm{20}; //!< |X_b jaw position| at the isocentre never exceeds it
    double max_y_cm{20}; //!< |Y_b jaw position|
};

//! A machine file.
struct MachineModel
{
    std::string path;                       //!< the file, for messages
    std::string name;                       //!< e.g. "Varian Millennium 120"
    std::vector<std::string> machine_names; //!< the plans' Treatment Machine Names it serves
    double sad_cm{100};
    MlcModel mlc;
    JawModel jaws;
};

//! Read a machine file; throws InputError naming the file, the JSON pointer and the range.
MachineModel read_machine_model(std::string const& path);
} // namespace mcdose
