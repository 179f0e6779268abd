//! \file validation/archer_tests/ArcherTests.cc
#include "validation/archer_tests/ArcherTests.hh"

#include <nlohmann/json.hpp>

#include "core/Assert.hh"

namespace mcdose
{
ArcherTestInfo archer_test_info(int number)
{
    MCDOSE_VALIDATE(number >= 2 && number <= 4,
                    << "'--test' must be 2 (100^3 voxels), 3 (10^3) or 4 (2^3), the ARCHER "
                       "tally tests of Liu et al. 2018 (got "
                    << number << "); use '--study FILE' for any other study");
    ArcherTestInfo info;
    info.number = number;
    info.voxels_per_axis = number == 2 ? 100 : number == 3 ? 10 : 2;
    info.histories = 4000000;
    // Liu et al. 2018, V100: HB transport times of tests 2 and 3.
    if (number == 2)
        info.v100_hb_time_s = 1.9;
    else if (number == 3)
        info.v100_hb_time_s = 1.3;
    return info;
}

std::string archer_test_study_json(int number)
{
    ArcherTestInfo const info = archer_test_info(number);
    double const edge_cm = 40;
    int const n = info.voxels_per_axis;
    double const s = edge_cm / n;
    // origin_cm is the centre of voxel (0,0,0): x and y span [-20, 20], z [0, 40].
    double const lateral = -0.5 * edge_cm + 0.5 * s;
    nlohmann::ordered_json j;
    j["description"] = "ARCHER test " + std::to_string(number) +
                       " (Liu et al. 2018): a 20 MeV electron pencil beam entering the "
                       "centre of the z = 0 face of a 40 cm water cube of " +
                       std::to_string(n) + "^3 voxels along +z. Needs electron transport.";
    j["phantom"] = {{"type", "shapes"},
                    {"grid",
                     {{"dimensions", {n, n, n}},
                      {"spacing_cm", {s, s, s}},
                      {"origin_cm", {lateral, lateral, 0.5 * s}}}},
                    {"background", {{"material", "water"}}}};
    j["sources"] = nlohmann::ordered_json::array({{{"type", "pencil"},
                                                   {"particle", "electron"},
                                                   {"energy_MeV", 20},
                                                   {"position_cm", {0, 0, 0}},
                                                   {"direction", {0, 0, 1}}}});
    j["physics"] = {
        {"electron_cutoff_MeV", 0.2}, {"photon_cutoff_MeV", 0.01}, {"precision", "double"}};
    j["rng"] = {{"generator", "philox"}, {"seed", 20180101 + number}};
    j["tally"] = {{"method", "hb"}};
    j["run"] = {{"histories", info.histories}};
    j["backend"] = "auto";
    j["outputs"] = {{"directory", "results"}, {"name", "archer_test" + std::to_string(number)}};
    return j.dump(2) + "\n";
}
} // namespace mcdose
