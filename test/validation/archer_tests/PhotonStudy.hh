//! \file test/validation/archer_tests/PhotonStudy.hh
//! A small photon pencil-beam study for the tally-comparison tests: it runs
//! in a fraction of a second on the CPU (the ARCHER tests use electrons).
#pragma once

#include <cstdint>
#include <string>

namespace mcdose::test
{
inline std::string photon_study_json(std::uint64_t histories)
{
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [4, 4, 10], "spacing_cm": [1, 1, 1], "origin_cm": [-1.5, -1.5, 0.5]},
    "background": {"material": "water"}},
  "sources": [{"type": "pencil", "particle": "photon", "energy_MeV": 1.25,
               "position_cm": [0.25, 0.25, -1], "direction": [0, 0, 1]}],
  "rng": {"generator": "philox", "seed": 7},
  "run": {"histories": )" +
           std::to_string(histories) + R"(},
  "backend": "cpu",
  "outputs": {"image_format": "none"}
})";
}
} // namespace mcdose::test
