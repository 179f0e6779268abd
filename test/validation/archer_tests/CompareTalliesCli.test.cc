//! `mcdose compare-tallies` as a user runs it: the table, the JSON records and
//! the errors for bad options (a small photon study on the CPU).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "PhotonStudy.hh"
#include "RunCommand.hh"
#include "TestMacros.hh"

namespace fs = std::filesystem;

namespace mcdose::test
{
namespace
{
class CompareTalliesCliTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_compare_tallies_" +
                std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        std::ofstream(dir_ / "photon.json") << photon_study_json(3000);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string study() const { return (dir_ / "photon.json").string(); }
    std::string json_path() const { return (dir_ / "records.json").string(); }
    CommandResult compare(std::string const& args) const
    {
        return run_command(mcdose_exe() + " compare-tallies " + args);
    }
    nlohmann::json records() const
    {
        std::ifstream in(json_path());
        return nlohmann::json::parse(in);
    }

    fs::path dir_;
};

//! A table row of `method` in `precision` (the reference is marked '*').
bool has_row(std::string const& output, std::string const& method, std::string const& precision)
{
    std::regex const row("(^|\n)" + method + "\\*? +" + precision + " +cpu +");
    return std::regex_search(output, row);
}

nlohmann::json const* find(nlohmann::json const& records, std::string const& method,
                           std::string const& precision)
{
    for (auto const& r : records)
        if (r.at("method") == method && r.at("precision") == precision)
            return &r;
    return nullptr;
}
} // namespace

TEST_F(CompareTalliesCliTest, TablePrintsEveryRequestedRunAndWritesCompleteRecords)
{
    auto const r = compare("--study " + study() +
                           " --backend cpu --threads 2 --methods fa,hb,fx --json " + json_path());
    ASSERT_EQ(0, r.exit_code) << r.output;
    for (char const* prec : {"double", "float"})
        for (char const* m : {"fa", "hb", "fx"})
            EXPECT_TRUE(has_row(r.output, m, prec)) << m << " " << prec << "\n" << r.output;
    EXPECT_NE(r.output.find("reference: double transport + HB"), std::string::npos) << r.output;

    auto const j = records();
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(6u, j.size()) << j.dump(1); // hb*, fa, fx in double; hb, fa, fx in float
    for (auto const& rec : j)
    {
        for (char const* key :
             {"test", "method", "precision", "backend", "histories", "time_s", "histories_per_s",
              "total_MeV", "rel_dev_total", "max_rel_dev_voxel", "rms_rel_dev_voxel"})
            EXPECT_TRUE(rec.contains(key)) << key << " missing in " << rec.dump();
        EXPECT_EQ(study(), rec.at("test"));
        EXPECT_EQ("cpu", rec.at("backend"));
        EXPECT_EQ(3000, rec.at("histories"));
        EXPECT_GT(rec.at("total_MeV").get<double>(), 0);
        EXPECT_NEAR(rec.at("histories").get<double>() / rec.at("time_s").get<double>(),
                    rec.at("histories_per_s").get<double>(),
                    1e-9 * rec.at("histories_per_s").get<double>());
    }
    auto const* hb = find(j, "hb", "double");
    auto const* fx = find(j, "fx", "double");
    auto const* fa = find(j, "fa", "float");
    ASSERT_TRUE(hb && fx && fa);
    EXPECT_TRUE(hb->at("reference").get<bool>());
    EXPECT_EQ(0.0, hb->at("rel_dev_total").get<double>());
    EXPECT_EQ(0.0, hb->at("max_rel_dev_voxel").get<double>());
    EXPECT_EQ(0.0, hb->at("rms_rel_dev_voxel").get<double>());
    EXPECT_LT(std::fabs(fx->at("rel_dev_total").get<double>()), 1e-9);
    EXPECT_NEAR(hb->at("total_MeV").get<double>(), fx->at("total_MeV").get<double>(),
                1e-9 * hb->at("total_MeV").get<double>());
    // FA in float: its deviations are reported (numbers, not null).
    for (char const* key :
         {"rel_dev_total", "max_rel_dev_voxel", "rms_rel_dev_voxel", "tally_rel_dev_total"})
        EXPECT_TRUE(fa->at(key).is_number()) << key << ": " << fa->dump();
}

TEST_F(CompareTalliesCliTest, SweepPrintsOneRowPerHistoryCount)
{
    auto const r = compare("--mode sweep --study " + study() +
                           " --backend cpu --threads 2 --histories 1000,2e3 --json " + json_path());
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("summed dose, relative deviation"), std::string::npos) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex("\n +1000 +[-0-9.e+]+ \\["))) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex("\n +2000 +[-0-9.e+]+ \\["))) << r.output;
    auto const j = records();
    // Per count: the reference (double hb), then float hb, fa, kas.
    ASSERT_EQ(8u, j.size()) << j.dump(1);
    for (auto const& rec : j)
        EXPECT_EQ("sweep", rec.at("mode"));
    EXPECT_TRUE(has_row(r.output, "kas", "float")) << r.output;
}

TEST_F(CompareTalliesCliTest, BadOptionsGiveClearErrors)
{
    struct Case
    {
        std::string args, message;
    };
    std::vector<Case> const cases{
        {"--study " + study() + " --methods fa,xyz", "'--methods': unknown tally method 'xyz'"},
        {"--test 5", "'--test' must be 2 (100^3 voxels), 3 (10^3) or 4 (2^3)"},
        {"--test 2 --study " + study(), "give either '--test 2|3|4' or '--study FILE'"},
        {"", "no study: give '--test 2|3|4'"},
        {"--study " + study() + " --precisions half", "'--precisions': unknown transport"},
        {"--study " + study() + " --histories 0", "'--histories' takes positive whole numbers"},
        {"--study " + study() + " --mode grid", "'--mode' must be table"},
        {"--study " + study() + " --voxel-fraction 1.5", "'--voxel-fraction' must be in [0, 1)"},
        {"--study " + study() + " --batches 0", "'--batches' must be between 1 and 1000"},
    };
    for (auto const& c : cases)
    {
        auto const r = compare(c.args + " --backend cpu --json " + json_path());
        EXPECT_EQ(1, r.exit_code) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find("mcdose: error: " + c.message), std::string::npos) << c.args << "\n"
                                                                                   << r.output;
        EXPECT_FALSE(fs::exists(json_path())) << c.args;
    }
}
// The built-in ARCHER test 2 (20 MeV electrons, now transported) runs and the
// header shows the paper's V100 time next to ours.
TEST_F(CompareTalliesCliTest, ArcherTestHeaderShowsThePapersTime)
{
    auto const r = compare("--test 2 --methods hb --precisions double --histories 20 "
                           "--backend cpu");
    ASSERT_EQ(0, r.exit_code) << r.output;
    EXPECT_NE(r.output.find("V100, 4000000 histories): HB 1.9 s"), std::string::npos) << r.output;
    EXPECT_TRUE(has_row(r.output, "hb", "double")) << r.output;
}
} // namespace mcdose::test
