//! The spectrum, beam and plan examples run end to end on the CPU with few histories; a beam
//! whose field misses the phantom and a plan made on another CT are refused before transport
//! without writing an output.
#include <filesystem>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "RunCommand.hh"
#include "TestMacros.hh"
#include "io/TestRtPlan.hh"

namespace mcdose::test
{
namespace
{
namespace fs = std::filesystem;

fs::path fresh_dir(std::string const& name)
{
    fs::path const dir = fs::temp_directory_path() / ("mcdose_source_examples_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

//! `mcdose check` and `mcdose run` of `study` (written to `path`) both fail with every one of
//! `messages`, writing no output.
void expect_refused_before_transport(nlohmann::json const& study, fs::path const& path,
                                     std::vector<std::string> const& messages)
{
    std::ofstream(path) << study.dump(2);
    fs::path const out = path.parent_path() / "results";
    std::string const run =
        " run " + path.string() + " --backend cpu --histories 100 --output-dir " + out.string();
    for (std::string const& command : {" check " + path.string(), run})
    {
        auto const r = run_command(mcdose_exe() + command);
        EXPECT_NE(0, r.exit_code) << r.output;
        for (auto const& m : messages)
            EXPECT_NE(r.output.find(m), std::string::npos) << r.output;
        EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out)) << "an output was written";
    }
}
} // namespace

TEST(SourceExamples, RunOnTheCpuWithFewHistories)
{
    for (std::string const name :
         {"spectrum_6MV_water", "beam_6MV_two_beams", "synthetic_ct_plan_vmat"})
    {
        fs::path const out = fresh_dir(name);
        std::string const study = source_dir() + "/examples/" + name + ".json";
        auto const check = run_command(mcdose_exe() + " check " + study);
        EXPECT_EQ(0, check.exit_code) << check.output;
        auto const r =
            run_command(mcdose_exe() + " run " + study +
                        " --backend cpu --threads 2 --histories 2000 --output-dir " + out.string());
        ASSERT_EQ(0, r.exit_code) << r.output;
        EXPECT_NE(r.output.find("histories        : 2000"), std::string::npos) << r.output;
        fs::path const summary = out / (name + "_summary.json");
        ASSERT_TRUE(fs::exists(summary)) << r.output;
        fs::remove_all(out);
    }
}

TEST(SourceExamples, BeamThatMissesThePhantomIsRefusedBeforeTransport)
{
    fs::path const dir = fresh_dir("miss");
    std::ifstream in(source_dir() + "/examples/beam_6MV_two_beams.json");
    nlohmann::json j = nlohmann::json::parse(in);
    // The isocentre 40 cm to the patient's left of the 30 cm cube, beams from above.
    for (auto& s : j["sources"])
    {
        s["isocentre_cm"] = {40, -5, 0};
        s["gantry_deg"] = 0;
        s["spectrum_file"] = source_dir() + "/examples/mohan6.spectrum";
        if (s.contains("aperture"))
            s["aperture"]["image"] = source_dir() + "/examples/beam_aperture.mha";
    }
    expect_refused_before_transport(
        j, dir / "miss.json",
        {"/sources/0: the beam's field misses the phantom", "check 'isocentre_cm'"});
    fs::remove_all(dir);
}
TEST(SourceExamples, PlanOnAnotherFrameOfReferenceIsRefusedBeforeTransport)
{
    fs::path const dir = fresh_dir("plan_frame");
    TestPlan plan;
    plan.frame_uid = "1.2.826.0.1.3680043.2.1125.99.1"; // not the CT's
    plan.beams = {static_beam(-20, 20, -20, 20)};
    write_test_plan(plan, (dir / "plan.dcm").string());
    std::ifstream in(source_dir() + "/examples/synthetic_ct_plan_vmat.json");
    nlohmann::json j = nlohmann::json::parse(in);
    j["phantom"]["image"] = source_dir() + "/examples/synthetic_ct_dicom";
    j["sources"][0]["file"] = (dir / "plan.dcm").string();
    j["sources"][0]["machine"] = source_dir() + "/examples/machines/varian_millennium120.json";
    j["sources"][0]["spectrum_file"] = source_dir() + "/examples/mohan6.spectrum";
    expect_refused_before_transport(j, dir / "plan.json",
                                    {"/sources/0: the plan", "Frame of Reference"});
    fs::remove_all(dir);
}
} // namespace mcdose::test
