//! The spectrum and beam examples run end to end on the CPU with few histories, and a beam
//! whose field misses the phantom is refused before transport without writing an output.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "RunCommand.hh"
#include "TestMacros.hh"

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
} // namespace

TEST(SourceExamples, RunOnTheCpuWithFewHistories)
{
    for (std::string const name : {"spectrum_6MV_water", "beam_6MV_two_beams"})
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
    fs::path const study = dir / "miss.json";
    std::ofstream(study) << j.dump(2);
    fs::path const out = dir / "results";
    std::string const run =
        " run " + study.string() + " --backend cpu --histories 100 --output-dir " + out.string();
    for (std::string const& command : {" check " + study.string(), run})
    {
        auto const r = run_command(mcdose_exe() + command);
        EXPECT_NE(0, r.exit_code) << r.output;
        EXPECT_NE(r.output.find("/sources/0: the beam's field misses the phantom"),
                  std::string::npos)
            << r.output;
        EXPECT_NE(r.output.find("check 'isocentre_cm'"), std::string::npos) << r.output;
        EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out)) << "an output was written";
    }
    fs::remove_all(dir);
}
} // namespace mcdose::test
