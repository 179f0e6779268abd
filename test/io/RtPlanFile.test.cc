//! \file test/io/RtPlanFile.test.cc
//! The RT Plan reader: plans written through io/DicomDataSet.hh read back with DICOM's
//! omitted values carried, and every bad or unmodelled plan refused naming the beam, the
//! control point and the item.
#include "io/RtPlanFile.hh"

#include <filesystem>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "io/TestRtPlan.hh"

namespace mcdose
{
namespace
{
using test::static_beam;
using test::TestBeam;
using test::TestPlan;

class RtPlanFileTest : public ::testing::Test
{
  protected:
    std::string path_ = (std::filesystem::temp_directory_path() /
                         ("mcdose_rtplan_" + std::to_string(::getpid()) + ".dcm"))
                            .string();
    void TearDown() override { std::filesystem::remove(path_); }

    RtPlan write_and_read(TestPlan const& plan)
    {
        test::write_test_plan(plan, path_);
        return read_rt_plan(path_);
    }

    //! The message of the refusal of `plan`, which must contain every one of `parts`.
    void expect_refused(TestPlan const& plan, std::vector<std::string> const& parts)
    {
        test::write_test_plan(plan, path_);
        try
        {
            read_rt_plan(path_);
            ADD_FAILURE() << "the plan was not refused";
        }
        catch (RuntimeError const& e)
        {
            for (auto const& p : parts)
                EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
                    << "'" << p << "' not in: " << e.what();
        }
    }
};

TEST_F(RtPlanFileTest, StaticBeamWithOmittedValuesCarried)
{
    TestPlan p;
    p.beams = {static_beam(-50, 50, -60, 40)};
    p.beams[0].control_points[0].gantry_deg = 270;
    p.beams[0].control_points[0].collimator_deg = 10;
    p.beams[0].control_points[0].isocentre_mm = std::vector<double>{1, -2, 3};
    RtPlan const plan = write_and_read(p);
    EXPECT_EQ(plan.frame_of_reference_uid, p.frame_uid);
    EXPECT_EQ(plan.fractions, 30);
    ASSERT_EQ(plan.beams.size(), 1u);
    RtBeam const& b = plan.beams[0];
    EXPECT_EQ(b.machine, "TrueBeam1");
    EXPECT_EQ(b.patient_position, "HFS");
    EXPECT_DOUBLE_EQ(b.meterset_mu, 100);
    EXPECT_DOUBLE_EQ(b.sad_mm, 1000);
    ASSERT_EQ(b.devices.size(), 3u);
    EXPECT_EQ(b.devices[2].boundaries_mm.size(), 61u);
    ASSERT_EQ(b.control_points.size(), 2u);
    for (auto const& cp : b.control_points)
    {
        EXPECT_DOUBLE_EQ(cp.gantry_deg, 270);
        EXPECT_DOUBLE_EQ(cp.collimator_deg, 10);
        EXPECT_DOUBLE_EQ(cp.isocentre_mm[1], -2);
        ASSERT_EQ(cp.positions_mm.size(), 3u);
        EXPECT_DOUBLE_EQ(cp.positions_mm[1][0], -60);
        EXPECT_DOUBLE_EQ(cp.positions_mm[2][59], -50);
        EXPECT_DOUBLE_EQ(cp.positions_mm[2][60], 50);
    }
    EXPECT_DOUBLE_EQ(b.control_points[1].cumulative_weight, 1);
}

TEST_F(RtPlanFileTest, ArcControlPointsKeepTheirOwnValues)
{
    TestBeam b = static_beam(-20, 20, -20, 20);
    b.control_points[0].gantry_direction = "CW";
    b.control_points.insert(b.control_points.begin() + 1, b.control_points[1]);
    b.control_points[1].weight = 0.5;
    b.control_points[1].gantry_deg = 90;
    b.control_points[1].positions = {{"ASYMX", {-30, 30}}};
    b.control_points[2].gantry_deg = 180;
    TestPlan p;
    p.beams = {b};
    RtBeam const r = write_and_read(p).beams.at(0);
    ASSERT_EQ(r.control_points.size(), 3u);
    EXPECT_DOUBLE_EQ(r.control_points[1].gantry_deg, 90);
    EXPECT_DOUBLE_EQ(r.control_points[2].gantry_deg, 180);
    EXPECT_EQ(r.control_points[2].gantry_direction, "CW");
    EXPECT_DOUBLE_EQ(r.control_points[1].positions_mm[0][1], 30);
    EXPECT_DOUBLE_EQ(r.control_points[2].positions_mm[0][1], 30); // carried
    EXPECT_DOUBLE_EQ(r.control_points[2].positions_mm[1][1], 20);
}

TEST_F(RtPlanFileTest, BeamsWithoutMetersetAreNotDelivered)
{
    TestPlan p;
    p.beams = {static_beam(-50, 50, -50, 50), static_beam(-50, 50, -50, 50)};
    p.beams[1].number = 2;
    p.beams[1].meterset_mu = 0.0;
    RtPlan const plan = write_and_read(p);
    ASSERT_EQ(plan.beams.size(), 1u);
    EXPECT_EQ(plan.beams[0].number, 1);
}

TEST_F(RtPlanFileTest, RefusesMissingFirstControlPointValues)
{
    TestPlan p;
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].control_points[0].gantry_deg.reset();
    expect_refused(p, {"beam 1 ('B1')", "control point 0", "Gantry Angle (300A,011E)"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].control_points[0].positions.pop_back();
    expect_refused(p, {"beam 1", "control point 0", "'MLCX'", "first control point"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].control_points[1].weight.reset();
    expect_refused(p, {"beam 1", "control point 1", "Cumulative Meterset Weight"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].meterset_mu.reset();
    expect_refused(p, {"beam 1", "Beam Meterset (300A,0086)"});
}

TEST_F(RtPlanFileTest, RefusesLeafCountsThatDisagree)
{
    TestPlan p;
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].devices[2].boundaries_mm.pop_back();
    expect_refused(p, {"beam 1", "'MLCX'", "Leaf Position Boundaries", "60 leaf pairs", "61"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].control_points[0].positions[2].positions_mm.pop_back();
    expect_refused(p, {"beam 1", "control point 0", "'MLCX'", "119 values", "120"});
}

TEST_F(RtPlanFileTest, RefusesCrossingLeavesAndDecreasingWeights)
{
    std::vector<double> leaves(60, -10);
    leaves.insert(leaves.end(), 60, 10);
    leaves[7] = 12; // bank 1 of pair 8 past bank 2
    TestPlan p;
    p.beams = {static_beam(-50, 50, -50, 50, leaves)};
    expect_refused(p, {"beam 1", "control point 0", "leaf pair 8", "crosses"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    auto& cps = p.beams[0].control_points;
    cps.insert(cps.begin() + 1, cps[1]);
    cps[1].weight = 0.7;
    cps[2].weight = 0.6;
    p.beams[0].final_weight = 0.6;
    expect_refused(p, {"beam 1", "control point 2", "Cumulative Meterset Weight", "decrease"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].final_weight = 2;
    expect_refused(p, {"beam 1", "Final Cumulative Meterset Weight"});
}

TEST_F(RtPlanFileTest, RefusesWhatIsNotModelled)
{
    TestPlan p;
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].radiation = "ELECTRON";
    expect_refused(p, {"beam 1 ('B1')", "Radiation Type", "ELECTRON"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].extra = [](DicomDataSet& d)
    {
        DicomDataSet wedge;
        wedge.put({0x300a, 0x00d2}, DicomVr::IS, "1");
        d.put({0x300a, 0x00d0}, DicomVr::IS, "1");
        d.put_sequence({0x300a, 0x00d1}, {wedge});
    };
    expect_refused(p, {"beam 1", "wedge", "Wedge Sequence"});
    p.beams[0].extra = [](DicomDataSet& d)
    {
        DicomDataSet block;
        block.put({0x300a, 0x00fc}, DicomVr::IS, "1");
        d.put_sequence({0x300a, 0x00f4}, {block});
    };
    expect_refused(p, {"beam 1", "block"});
    p.beams[0].extra = [](DicomDataSet& d)
    {
        DicomDataSet applicator;
        applicator.put({0x300a, 0x0108}, DicomVr::SH, "A10");
        d.put_sequence({0x300a, 0x0107}, {applicator});
    };
    expect_refused(p, {"beam 1", "applicator"});
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.beams[0].devices[0].type = "MLCZ";
    expect_refused(p, {"beam 1", "'MLCZ'", "RT Beam Limiting Device Type"});
}

TEST_F(RtPlanFileTest, RefusesFilesThatAreNotPlans)
{
    TestPlan p;
    p.beams = {static_beam(-50, 50, -50, 50)};
    p.frame_uid = "";
    expect_refused(p, {"Frame of Reference UID"});
    EXPECT_THROW(read_rt_plan(path_ + ".absent"), RuntimeError);
    DicomDataSet d;
    d.put({0x0008, 0x0060}, DicomVr::CS, "CT");
    d.put({0x0008, 0x0016}, DicomVr::UI, "1.2.840.10008.5.1.4.1.1.2");
    d.put({0x0008, 0x0018}, DicomVr::UI, new_dicom_uid());
    std::ofstream(path_, std::ios::binary) << d.encode_explicit_little_endian().value();
    try
    {
        read_rt_plan(path_);
        ADD_FAILURE() << "a CT file read as a plan";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("not an RT Plan"), std::string::npos) << e.what();
    }
}
} // namespace
} // namespace mcdose
