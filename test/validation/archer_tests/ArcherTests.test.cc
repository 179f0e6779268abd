//! The built-in ARCHER tests (`--test 2|3|4`) and the committed study files are the same studies.
#include "validation/archer_tests/ArcherTests.hh"

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "core/Assert.hh"
#include "study/StudyInput.hh"

namespace mcdose::test
{
TEST(ArcherTestsTest, CommittedStudiesMatchTheBuiltInPresets)
{
    for (int n : {2, 3, 4})
    {
        SCOPED_TRACE("test " + std::to_string(n));
        StudyInput const preset = parse_study(archer_test_study_json(n), "preset.json");
        StudyInput const file =
            load_study(std::string(MCDOSE_TEST_SOURCE_DIR) + "/validation/archer_tests/test" +
                       std::to_string(n) + ".json");
        auto const& pg = preset.phantom.shapes;
        auto const& fg = file.phantom.shapes;
        int const voxels = archer_test_info(n).voxels_per_axis;
        for (int a = 0; a < 3; ++a)
        {
            EXPECT_EQ(voxels, pg.dims[a]);
            EXPECT_EQ(pg.dims[a], fg.dims[a]);
            EXPECT_DOUBLE_EQ(40.0, pg.dims[a] * pg.spacing_cm[a]);
            EXPECT_DOUBLE_EQ(pg.spacing_cm[a], fg.spacing_cm[a]);
            ASSERT_TRUE(pg.origin_cm && fg.origin_cm);
            EXPECT_DOUBLE_EQ((*pg.origin_cm)[a], (*fg.origin_cm)[a]);
        }
        // x and y span [-20, 20] cm, z [0, 40] cm: the beam enters the centre of the z = 0 face.
        EXPECT_DOUBLE_EQ(-20.0, (*pg.origin_cm)[0] - 0.5 * pg.spacing_cm[0]);
        EXPECT_DOUBLE_EQ(0.0, (*pg.origin_cm)[2] - 0.5 * pg.spacing_cm[2]);

        ASSERT_EQ(1u, preset.sources.size());
        ASSERT_EQ(1u, file.sources.size());
        auto const& ps = preset.sources.front();
        auto const& fs = file.sources.front();
        EXPECT_EQ(ParticleType::electron, ps.particle);
        EXPECT_EQ(ps.particle, fs.particle);
        EXPECT_EQ(ps.kind, fs.kind);
        EXPECT_EQ(20.0, *ps.energy_MeV);
        EXPECT_EQ(*ps.energy_MeV, *fs.energy_MeV);
        for (int a = 0; a < 3; ++a)
        {
            EXPECT_EQ(ps.position_cm[a], fs.position_cm[a]);
            EXPECT_EQ(ps.direction[a], fs.direction[a]);
        }
        EXPECT_EQ(1.0, ps.direction[2]);
        EXPECT_EQ(4000000u, *preset.run.histories);
        EXPECT_EQ(*preset.run.histories, *file.run.histories);
        EXPECT_EQ(preset.rng.generator, file.rng.generator);
        EXPECT_EQ(preset.rng.seed, file.rng.seed);
        EXPECT_EQ(preset.physics.precision, file.physics.precision);
        EXPECT_EQ(preset.physics.transport.electron.absorption_MeV,
                  file.physics.transport.electron.absorption_MeV);
        EXPECT_EQ(preset.physics.transport.photon_cutoff_MeV,
                  file.physics.transport.photon_cutoff_MeV);
        EXPECT_EQ(preset.tally.method, file.tally.method);
    }
}

TEST(ArcherTestsTest, OtherNumbersAreRefusedNamingTheOption)
{
    for (int n : {0, 1, 5})
    {
        try
        {
            archer_test_info(n);
            ADD_FAILURE() << "test " << n << " accepted";
        }
        catch (RuntimeError const& e)
        {
            EXPECT_NE(std::string(e.what()).find("'--test' must be 2"), std::string::npos)
                << e.what();
        }
    }
}
} // namespace mcdose::test
