//! \file test/study/SetupStop.test.cc
//! A stop request (Ctrl-C, SIGTERM) during the set-up ends the run at the next step with
//! StopRequested and no output: the request is a deterministic hook here, set before a
//! step starts, so that nothing depends on timing.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/StopRequest.hh"
#include "study/StudyInput.hh"
#include "study/StudyRunner.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
std::string water_study(fs::path const& out)
{
    return R"({
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [4, 4, 4], "spacing_cm": [1, 1, 1]},
    "background": {"material": "water"}},
  "sources": [{"type": "pencil", "particle": "photon", "energy_MeV": 1.0,
               "position_cm": [0, 0, -3], "direction": [0, 0, 1]}],
  "run": {"histories": 1000},
  "backend": "cpu",
  "outputs": {"directory": ")" +
           out.string() + R"(", "name": "t", "image_format": "none"}
})";
}
} // namespace

TEST(SetupStopTest, AStopRequestedDuringTheSetUpEndsTheRunWithNoOutput)
{
    fs::path const dir =
        fs::temp_directory_path() / ("mcdose_setup_stop_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    StudyInput const study = parse_study(water_study(dir / "out"), (dir / "s.json").string());
    for (int stop_at : {1, 2, 3})
    {
        int polls = 0;
        StudyRunOptions options;
        options.cpu_threads = 1;
        options.stop_requested = [&polls, stop_at] { return ++polls >= stop_at; };
        bool const stopped = [&]
        {
            try
            {
                run_study(study, options);
            }
            catch (StopRequested const& e)
            {
                EXPECT_NE(std::string(e.what()).find("nothing was written"), std::string::npos);
                return true;
            }
            return false;
        }();
        EXPECT_TRUE(stopped) << "stop at poll " << stop_at;
        EXPECT_EQ(stop_at, polls) << "the set-up went on after the request";
        bool any_file = false;
        if (fs::exists(dir / "out"))
        {
            for (auto const& e : fs::recursive_directory_iterator(dir / "out"))
                any_file =
                    any_file || (e.is_regular_file() && e.path().filename() != ".mcdose.lock");
        }
        EXPECT_FALSE(any_file) << "an output was written";
    }
    fs::remove_all(dir);
}
} // namespace mcdose::test
