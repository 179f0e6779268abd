//! \file validation/archer_tests/ArcherTests.hh
//! The ARCHER tally tests of Liu et al. 2018 (tests 2-4): a 20 MeV
//! electron pencil beam entering the centre of the upstream (z = 0) face of a
//! 40 x 40 x 40 cm^3 water cube along +z, 4e6 histories, on 100^3 (test 2),
//! 10^3 (test 3) or 2^3 (test 4) voxels. The same studies are committed as
//! validation/archer_tests/test{2,3,4}.json (a unit test keeps them equal).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mcdose
{
struct ArcherTestInfo
{
    int number{0};
    int voxels_per_axis{0};
    std::uint64_t histories{0};
    //! The paper's V100 transport time with HB atomics (tests 2 and 3 only) [s].
    std::optional<double> v100_hb_time_s;
};

//! Test 2, 3 or 4 (RuntimeError naming '--test' otherwise).
ArcherTestInfo archer_test_info(int number);

//! The study of an ARCHER test as JSON text (load with parse_study).
std::string archer_test_study_json(int number);
} // namespace mcdose
