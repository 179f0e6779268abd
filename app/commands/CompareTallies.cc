//! \file app/commands/CompareTallies.cc
//! `mcdose compare-tallies`: the tally comparison of Liu et al. 2018 (ARCHER,
//! Tables II-IV) on whole transport runs. Options and output only; the runs
//! and comparisons are in validation/archer_tests/. See docs/compare-tallies.md.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "app/JsonRecords.hh"
#include "app/ListOptions.hh"
#include "study/StudyInput.hh"
#include "validation/archer_tests/ArcherTests.hh"
#include "validation/archer_tests/TallyComparison.hh"

namespace mcdose::app
{
namespace
{
struct Options
{
    std::string mode{"table"};
    int test{0};
    std::string study;
    std::string methods;    // default per mode
    std::string precisions; // default per mode
    std::string histories;  // default per mode
    std::string backend;    // default: the study's
    int threads{-1};
    int batches{1};
    double voxel_fraction{0.01};
    std::string json;
};

std::vector<TallyMethod> parse_methods(std::string const& list)
{
    if (list == "all")
        return all_tally_methods();
    std::vector<TallyMethod> result;
    for (std::string const& item : split_commas(list))
    {
        auto const all = all_tally_methods();
        auto const it = std::find_if(all.begin(), all.end(),
                                     [&](TallyMethod m) { return item == to_cstring(m); });
        MCDOSE_VALIDATE(it != all.end(), << "'--methods': unknown tally method '" << item
                                         << "'; give a comma-separated subset of "
                                            "fa,cas,wag,kas,hb,wib,fx, or all");
        result.push_back(*it);
    }
    MCDOSE_VALIDATE(!result.empty(), << "'--methods' is empty; give e.g. fa,kas,hb or all");
    return result;
}

std::vector<Precision> parse_precisions(std::string const& list)
{
    std::vector<Precision> result;
    for (std::string const& item : split_commas(list))
    {
        MCDOSE_VALIDATE(item == "float" || item == "single" || item == "double",
                        << "'--precisions': unknown transport precision '" << item
                        << "'; give float, double or float,double");
        result.push_back(to_precision(item));
    }
    MCDOSE_VALIDATE(!result.empty(), << "'--precisions' is empty; give float, double or both");
    return result;
}

std::string sci(double v)
{
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << v;
    return s.str();
}

nlohmann::json to_json(TallyRunRecord const& r, std::string const& mode)
{
    return {{"test", r.test},
            {"mode", mode},
            {"method", r.method},
            {"precision", r.precision},
            {"backend", r.backend},
            {"device", r.device},
            {"histories", r.histories},
            {"batches", r.batches},
            {"time_s", r.time_s},
            {"histories_per_s", r.histories_per_s},
            {"total_MeV", r.total_MeV},
            {"reference", r.reference},
            {"rel_dev_total", r.rel_dev_total},
            {"max_rel_dev_voxel", r.max_rel_dev_voxel},
            {"rms_rel_dev_voxel", r.rms_rel_dev_voxel},
            {"tally_rel_dev_total", r.tally_rel_dev_total},
            {"tally_max_rel_dev_voxel", r.tally_max_rel_dev_voxel},
            {"tally_rms_rel_dev_voxel", r.tally_rms_rel_dev_voxel},
            {"voxels_compared", r.voxels_compared}};
}

void print_header(TallyComparisonInput const& in, std::optional<ArcherTestInfo> const& archer_test,
                  std::string const& mode)
{
    std::cout << "mcdose compare-tallies (" << mode << "): " << in.label << ", seed "
              << in.study.rng.seed << ", " << in.batches << " batch(es), voxels above "
              << 100 * in.voxel_fraction << "% of the reference maximum compared\n"
              << "reference: double transport + HB, same histories and seed; 'tally' columns: "
                 "against HB with the same transport precision (tally error only)\n";
    if (archer_test && mode == "table")
    {
        std::cout << "ARCHER (Liu et al. 2018, V100, " << archer_test->histories
                  << " histories): HB ";
        if (archer_test->v100_hb_time_s)
            std::cout << *archer_test->v100_hb_time_s << " s\n";
        else
            std::cout << "time not reported for this test\n";
    }
    if (mode == "sweep")
        std::cout << "ARCHER (Liu et al. 2018, V100, test 3, float transport): summed dose from "
                     "-0.19% (FA, 4e6) to -25.5% (FA, 6.4e7); KAS about 1e-7\n";
    std::cout << std::left << std::setw(7) << "method" << std::setw(7) << "prec" << std::setw(5)
              << "on" << std::right << std::setw(10) << "histories" << std::setw(10) << "time_s"
              << std::setw(11) << "hist/s" << std::setw(13) << "total_MeV" << std::setw(11)
              << "dev_total" << std::setw(11) << "max_voxel" << std::setw(11) << "rms_voxel"
              << std::setw(11) << "tally_tot" << std::setw(11) << "tally_max" << '\n';
}

//! One row, flushed at once so a long GPU run shows its progress.
void print_row(TallyRunRecord const& r)
{
    std::cout << std::left << std::setw(7) << (r.method + (r.reference ? "*" : "")) << std::setw(7)
              << r.precision << std::setw(5) << r.backend << std::right << std::setw(10)
              << r.histories << std::setw(10) << std::setprecision(4) << r.time_s << std::setw(11)
              << sci(r.histories_per_s) << std::setw(13) << std::setprecision(7) << r.total_MeV
              << std::setw(11) << sci(r.rel_dev_total) << std::setw(11) << sci(r.max_rel_dev_voxel)
              << std::setw(11) << sci(r.rms_rel_dev_voxel) << std::setw(11)
              << sci(r.tally_rel_dev_total) << std::setw(11) << sci(r.tally_max_rel_dev_voxel)
              << std::endl;
}

//! The layout of Liu et al. 2018, Table IV: one row per history count, the relative
//! deviation of the summed dose per (method, precision) [against the
//! reference / tally only].
void print_sweep_summary(std::vector<TallyRunRecord> const& records)
{
    std::vector<std::string> columns;
    std::map<std::uint64_t, std::map<std::string, TallyRunRecord>> rows;
    for (auto const& r : records)
    {
        if (r.reference)
            continue;
        std::string const key = r.method + "/" + r.precision;
        if (std::find(columns.begin(), columns.end(), key) == columns.end())
            columns.push_back(key);
        rows[r.histories][key] = r;
    }
    std::cout << "\nsummed dose, relative deviation: against the reference [tally only]\n"
              << std::setw(10) << "histories";
    for (auto const& c : columns)
        std::cout << std::setw(24) << c;
    std::cout << '\n';
    for (auto const& [n, row] : rows)
    {
        std::cout << std::setw(10) << n;
        for (auto const& c : columns)
        {
            auto const it = row.find(c);
            std::string const cell = it == row.end()
                                         ? "-"
                                         : sci(it->second.rel_dev_total) + " [" +
                                               sci(it->second.tally_rel_dev_total) + "]";
            std::cout << std::setw(24) << cell;
        }
        std::cout << '\n';
    }
}

void run(Options const& opt)
{
    MCDOSE_VALIDATE(opt.mode == "table" || opt.mode == "sweep",
                    << "'--mode' must be table (every method, Tables II/III) or sweep (float "
                       "FA/KAS over history counts, Table IV) (got '"
                    << opt.mode << "')");
    bool const sweep = opt.mode == "sweep";
    MCDOSE_VALIDATE(!(opt.test != 0 && !opt.study.empty()),
                    << "give either '--test 2|3|4' or '--study FILE', not both");
    int const test = opt.test != 0 ? opt.test : (opt.study.empty() && sweep ? 3 : 0);
    MCDOSE_VALIDATE(test != 0 || !opt.study.empty(),
                    << "no study: give '--test 2|3|4' (the ARCHER tally tests of Liu et al. "
                       "2018) or "
                       "'--study FILE'");

    TallyComparisonInput in;
    std::optional<ArcherTestInfo> archer_test;
    if (test != 0)
    {
        archer_test = archer_test_info(test);
        std::string const label = "test" + std::to_string(test);
        in.study = parse_study(archer_test_study_json(test), label + ".json");
        in.label = label;
    }
    else
    {
        in.study = load_study(opt.study);
        in.label = opt.study;
    }
    in.methods = parse_methods(opt.methods.empty() ? (sweep ? "fa,kas" : "all") : opt.methods);
    in.precisions = parse_precisions(opt.precisions.empty() ? (sweep ? "float" : "double,float")
                                                            : opt.precisions);
    if (!opt.histories.empty())
    {
        in.histories = parse_counts(opt.histories, "--histories");
    }
    else if (sweep)
    {
        in.histories = {4000000, 8000000, 16000000, 32000000, 64000000};
    }
    else
    {
        MCDOSE_VALIDATE(in.study.run.histories,
                        << in.label << ": the study has no 'run.histories'; give '--histories'");
        in.histories = {*in.study.run.histories};
    }
    if (!opt.backend.empty())
        in.backend = to_backend(opt.backend);
    if (opt.threads >= 0)
        in.cpu_threads = opt.threads;
    in.batches = opt.batches;
    in.voxel_fraction = opt.voxel_fraction;

    // The JSON is rewritten (atomically) after every run, so a command stopped
    // by a time limit keeps the runs it finished.
    auto const json_of = [&](TallyRunRecord const& r) { return to_json(r, opt.mode); };
    std::vector<TallyRunRecord> done;
    print_header(in, archer_test, opt.mode);
    auto const records =
        compare_tally_methods(in,
                              [&](TallyRunRecord const& r)
                              {
                                  print_row(r);
                                  done.push_back(r);
                                  write_json_records(opt.json, done, json_of, false);
                              });
    if (sweep)
        print_sweep_summary(records);
    write_json_records(opt.json, records, json_of);
}

bool const registered = register_command(
    {"compare-tallies",
     "The ARCHER tally tests of Liu et al. 2018 (test 2: a 20 MeV electron pencil beam on a "
     "40 cm water cube of 100^3 voxels; test 3: of 10^3 voxels; test 4: of 2^3 voxels) on "
     "transport runs: every tally method in float and double against double-precision HB "
     "(table), or float FA/KAS over history counts (sweep)",
     [](CLI::App& sub, GlobalOptions const&)
     {
         auto opt = std::make_shared<Options>();
         sub.add_option("--mode", opt->mode, "table (Tables II/III) or sweep (Table IV)")
             ->capture_default_str();
         sub.add_option("--test", opt->test,
                        "ARCHER test of Liu et al. 2018: 2 (100^3 voxels), 3 (10^3) or 4 "
                        "(2^3), a 20 MeV electron pencil beam on a 40 cm water cube (sweep "
                        "default: 3)");
         sub.add_option("--study", opt->study, "Any study file (JSON) instead of an ARCHER test")
             ->check(CLI::ExistingFile);
         sub.add_option("--methods", opt->methods,
                        "Tally methods, comma-separated from fa,cas,wag,kas,hb,wib,fx, or all "
                        "(table: all; sweep: fa,kas); HB always runs as the reference");
         sub.add_option("--precisions", opt->precisions,
                        "Transport precisions: float, double or float,double (table: both; "
                        "sweep: float)");
         sub.add_option("--histories", opt->histories,
                        "History counts, comma-separated (table: the study's; sweep: "
                        "4e6,8e6,1.6e7,3.2e7,6.4e7)");
         sub.add_option("--backend", opt->backend,
                        "cpu, gpu or auto (default: the study's; the ARCHER tests: auto)")
             ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
         sub.add_option("--threads", opt->threads, "CPU backend threads (0: all cores)");
         sub.add_option("--batches", opt->batches,
                        "Batches folded into double totals (1: the whole run in one grid, as "
                        "Liu et al. 2018)")
             ->capture_default_str();
         sub.add_option("--voxel-fraction", opt->voxel_fraction,
                        "Compare voxels whose reference energy exceeds this fraction of the "
                        "maximum")
             ->capture_default_str();
         sub.add_option("--json", opt->json, "Write the records as a JSON array to FILE");
         sub.callback([opt] { run(*opt); });
     },
     /*developer=*/true});
} // namespace
} // namespace mcdose::app
