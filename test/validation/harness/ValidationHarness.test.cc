//! \file test/validation/harness/ValidationHarness.test.cc
//! The judgement of `mcdose validate` on hand-made depth doses with known
//! answers (a planted 2 % error fails; a shifted fall-off fails R50), the reading
//! of case.json, the report and the generated block of a document; and the
//! committed cases load with the figures their provenance states.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "core/Assert.hh"
#include "validation/harness/ValidationHarness.hh"

namespace mcdose::test
{
namespace
{
namespace fs = std::filesystem;

//! 50 slabs of 0.2 cm: 1 MeV up to z = 5 cm, falling linearly to 0 at z = 7 cm
//! (through the bin centres), then 0.01 MeV; sigma 0.1 % of the maximum.
DepthDoseCurve plateau_and_falloff(double shift_cm = 0)
{
    DepthDoseCurve c;
    for (int k = 0; k < 50; ++k)
    {
        double const lo = 0.2 * k, hi = lo + 0.2, z = 0.5 * (lo + hi) - shift_cm;
        double d = z <= 5 ? 1.0 : (z < 7 ? 1.0 - (z - 5) / 2 : 0.0);
        c.lo_cm.push_back(lo);
        c.hi_cm.push_back(hi);
        c.edep_MeV.push_back(std::max(d, 0.01));
        c.edep_sigma_MeV.push_back(0.001);
    }
    return c;
}

DepthDoseTolerances electron_like_tolerances()
{
    DepthDoseTolerances t;
    t.z_max_cm = 5.0;
    t.bin_of_max = 0.02;
    t.sigmas = 4;
    t.energy_deposited = 0.01;
    t.r50_cm = 0.1;
    t.rp_cm = 0.1;
    return t;
}

ValidationCriterion const& criterion(DepthDoseVerdict const& v, std::string const& start)
{
    for (auto const& c : v.criteria)
    {
        if (c.quantity.rfind(start, 0) == 0)
            return c;
    }
    throw std::runtime_error("no criterion " + start);
}

std::string write_file(fs::path const& path, std::string const& text)
{
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
}
} // namespace

TEST(ValidationHarnessTest, IdenticalCurvesPassEveryCriterion)
{
    auto const ref = plateau_and_falloff();
    auto const v = judge_depth_dose(ref, ref, electron_like_tolerances());
    EXPECT_TRUE(v.passed());
    EXPECT_DOUBLE_EQ(v.energy_ratio, 1.0);
    EXPECT_DOUBLE_EQ(v.mean_abs_diff_of_max, 0.0);
    EXPECT_EQ(v.comparison.bins_compared, 25); // z_hi <= 5 cm
    // R50 by hand: the linear fall-off crosses 0.5 at z = 6 cm.
    ASSERT_TRUE(v.r50_test_cm && v.r50_ref_cm);
    EXPECT_NEAR(*v.r50_ref_cm, 6.0, 1e-9);
    EXPECT_EQ(v.criteria.size(), 4u);
}

TEST(ValidationHarnessTest, PlantedTwoPercentDoseErrorFails)
{
    // A reference 2 % high everywhere: each bin is within 2 % of the maximum (the
    // bin criterion alone would pass), the energy deposited is 1/1.02 = 0.980 of it.
    auto const test = plateau_and_falloff();
    auto ref = test;
    for (double& e : ref.edep_MeV)
        e *= 1.02;
    auto const v = judge_depth_dose(test, ref, electron_like_tolerances());
    EXPECT_FALSE(v.passed());
    EXPECT_NEAR(v.energy_ratio, 1 / 1.02, 1e-12);
    EXPECT_FALSE(criterion(v, "energy deposited").passed);
    EXPECT_TRUE(criterion(v, "bins").passed);
    EXPECT_TRUE(criterion(v, "R50").passed); // the shape is unchanged
}

TEST(ValidationHarnessTest, LocalErrorFailsItsBin)
{
    auto const ref = plateau_and_falloff();
    auto test = ref;
    test.edep_MeV[10] += 0.03; // z = 2.1 cm, 3 % of the maximum (sigma allowance 0.57 %)
    auto const v = judge_depth_dose(test, ref, electron_like_tolerances());
    EXPECT_FALSE(v.passed());
    EXPECT_EQ(v.comparison.bins_failed, 1);
    EXPECT_NEAR(v.comparison.worst_diff_of_max, 0.03, 1e-12);
    EXPECT_NEAR(v.comparison.worst_z_cm, 2.1, 1e-12);
    EXPECT_NEAR(v.mean_abs_diff_of_max, 0.03 / 25, 1e-12);
    EXPECT_FALSE(criterion(v, "bins").passed);
    EXPECT_TRUE(criterion(v, "energy deposited").passed); // +0.03 of 36.6 MeV
}

TEST(ValidationHarnessTest, ShiftedFalloffFailsR50AndRp)
{
    auto const ref = plateau_and_falloff();
    auto const test = plateau_and_falloff(0.2); // 2 mm deeper
    auto const v = judge_depth_dose(test, ref, electron_like_tolerances());
    EXPECT_NEAR(*v.r50_test_cm - *v.r50_ref_cm, 0.2, 1e-9);
    EXPECT_FALSE(criterion(v, "R50").passed);
    EXPECT_FALSE(criterion(v, "Rp").passed);
    EXPECT_TRUE(criterion(v, "bins").passed); // the plateau is unchanged up to 5 cm
}

TEST(ValidationHarnessTest, ComparisonCsvHasOneRowPerBin)
{
    auto const ref = plateau_and_falloff();
    auto test = ref;
    test.edep_MeV[10] += 0.03;
    fs::path const dir = fs::temp_directory_path() / "mcdose_harness_csv";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string const path = (dir / "c.csv").string();
    write_depth_dose_comparison_csv(path, test, ref, electron_like_tolerances());
    std::ifstream in(path);
    std::string header, line;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("z_lo_cm,z_hi_cm,z_mid_cm,reference_MeV", 0), 0u);
    int rows = 0, failed = 0;
    while (std::getline(in, line))
    {
        ++rows;
        failed += line.substr(line.rfind(',') + 1) == "0";
    }
    EXPECT_EQ(rows, 50);
    EXPECT_EQ(failed, 1);
    fs::remove_all(dir);
}

TEST(ValidationHarnessTest, CaseFileErrorsNameTheField)
{
    fs::path const dir = fs::temp_directory_path() / "mcdose_harness_case" / "my_case";
    fs::remove_all(dir.parent_path());
    write_file(dir / "study.json", "{}");
    write_file(dir / "ref.csv", "z_lo_cm,z_hi_cm,edep_MeV,edep_sigma_MeV\n0,1,1,0.1\n");
    write_file(dir / "README.md", "provenance\n");
    std::string const good = R"({"title": "T", "kind": "depth_dose", "study": "study.json",
      "reference": {"file": "ref.csv", "label": "L", "provenance": "README.md"},
      "histories": {"quick": 10, "full": 100},
      "tolerances": {"bin_of_max": 0.02, "sigmas": 4, "energy_deposited": 0.01, "r50_cm": 0.1}})";
    write_file(dir / "case.json", good);
    auto const c = load_validation_case(dir.string());
    EXPECT_EQ(c.name, "my_case");
    EXPECT_EQ(c.histories(ValidationMode::quick), 10u);
    EXPECT_EQ(c.histories(ValidationMode::full), 100u);
    ASSERT_TRUE(c.tolerances.r50_cm);
    EXPECT_FALSE(c.tolerances.rp_cm);

    auto message_of = [&](std::string const& text)
    {
        write_file(dir / "case.json", text);
        try
        {
            load_validation_case(dir.string());
        }
        catch (RuntimeError const& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::string bad = good;
    bad.replace(bad.find("ref.csv"), 7, "missing.csv");
    EXPECT_NE(message_of(bad).find("/reference/file"), std::string::npos) << message_of(bad);
    bad = good;
    bad.replace(bad.find("\"sigmas\""), 8, "\"sigma\"");
    EXPECT_NE(message_of(bad).find("sigmas"), std::string::npos) << message_of(bad);
    bad = good;
    bad.replace(bad.find("0.02"), 4, "-0.02");
    EXPECT_NE(message_of(bad).find("/tolerances/bin_of_max"), std::string::npos);
    fs::remove_all(dir.parent_path());
}

TEST(ValidationHarnessTest, CommittedCasesLoadWithTheirProvenanceFigures)
{
    auto const cases = find_validation_cases(source_dir() + "/validation");
    std::map<std::string, double> total;
    for (auto const& c : cases)
    {
        auto const ref = read_depth_dose_csv(c.reference_path);
        EXPECT_EQ(ref.lo_cm.size(), 200u) << c.name;
        double sum = 0;
        for (double e : ref.edep_MeV)
            sum += e;
        total[c.name] = sum;
        EXPECT_TRUE(fs::is_regular_file(c.provenance_path)) << c.name;
        EXPECT_GE(c.full_histories, c.quick_histories) << c.name;
    }
    // The reference README's summary: 19.24 MeV (electrons), 3.196 MeV (photons) per history.
    ASSERT_EQ(total.count("electron_20MeV_water"), 1u);
    ASSERT_EQ(total.count("photon_6MeV_water"), 1u);
    EXPECT_NEAR(total["electron_20MeV_water"], 19.24, 0.01);
    EXPECT_NEAR(total["photon_6MeV_water"], 3.196, 0.001);
}

// A reference with a NaN, infinite or unreadable bin is refused, naming the file, the row
// and the column: it would pass or fail any comparison silently.
TEST(ValidationHarnessTest, NonFiniteReferenceBinsAreRefused)
{
    fs::path const dir = fs::temp_directory_path() / "mcdose_validation_nan_bins";
    fs::create_directories(dir);
    for (std::string const bad : {"nan", "inf", "-inf", "x"})
    {
        std::string const path = (dir / "ref.csv").string();
        std::ofstream(path) << "z_lo_cm,z_hi_cm,edep_MeV,edep_sigma_MeV\n0,1,0.5,0.01\n1,2," << bad
                            << ",0.01\n";
        try
        {
            read_depth_dose_csv(path);
            ADD_FAILURE() << bad << " accepted";
        }
        catch (RuntimeError const& e)
        {
            std::string const what = e.what();
            EXPECT_NE(what.find("ref.csv' row 3, column edep_MeV"), std::string::npos) << what;
            EXPECT_NE(what.find("not a finite number"), std::string::npos) << what;
        }
    }
    fs::remove_all(dir);
}

TEST(ValidationHarnessTest, ReportAndGeneratedBlock)
{
    ValidationReport rep;
    rep.command = "mcdose validate --quick --backend cpu";
    rep.build = "b";
    rep.machine = "m";
    rep.date_utc = "d";
    ValidationCaseResult r;
    r.vcase.name = "c1";
    r.vcase.title = "Case one";
    r.vcase.provenance_path = "/x/c1/README.md";
    r.histories = 1000;
    r.backend = "cpu";
    r.device = "2 CPU threads";
    auto const ref = plateau_and_falloff();
    auto test = ref;
    for (double& e : test.edep_MeV)
        e *= 1.02;
    r.verdict = judge_depth_dose(test, ref, electron_like_tolerances());
    r.csv_file = "c1/comparison.csv";
    r.plot_note = "no plot: python3 with matplotlib was not found";
    rep.cases.push_back(r);
    EXPECT_FALSE(rep.passed());
    std::string const md = validation_report_markdown(rep, "validation/");
    EXPECT_NE(md.find("| Case one | cpu | 1000 | 1.0200 |"), std::string::npos) << md;
    EXPECT_NE(md.find("**FAIL**"), std::string::npos);
    EXPECT_NE(md.find("(validation/c1/comparison.csv)"), std::string::npos);
    EXPECT_NE(md.find("matplotlib was not found"), std::string::npos);

    fs::path const doc = fs::temp_directory_path() / "mcdose_harness_doc.md";
    write_file(doc, "# T\n\nbefore\n<!-- mcdose validate: begin -->\nold\n"
                    "<!-- mcdose validate: end -->\nafter\n");
    replace_generated_block(doc.string(), "new\n");
    std::ifstream in(doc);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), "# T\n\nbefore\n<!-- mcdose validate: begin -->\nnew\n\n"
                        "<!-- mcdose validate: end -->\nafter\n");
    write_file(doc, "# no markers\n");
    EXPECT_THROW(replace_generated_block(doc.string(), "x"), RuntimeError);
    fs::remove(doc);
}
} // namespace mcdose::test
