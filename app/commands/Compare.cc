//! \file app/commands/Compare.cc
//! `mcdose compare REFERENCE EVALUATED`: dose-difference statistics and the
//! 3D gamma index of two dose grids (dose/DoseComparison.hh), printed, and
//! optionally as JSON and a gamma-map image. docs/compare.md explains them.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "app/ListOptions.hh"
#include "core/AtomicFile.hh"
#include "dose/DoseComparison.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"
#include "io/InputPath.hh"
#include "io/RtStructFile.hh"
#include "phantoms/StructureMask.hh"

namespace mcdose::app
{
namespace
{
struct Options
{
    std::string reference;
    std::string evaluated;
    std::string criteria{"3%/3mm,2%/2mm"};
    std::string normalisation{"global"};
    double threshold_percent{10};
    std::optional<double> normalisation_dose;
    double search_radius_dta{ComparisonOptions{}.search_radius_dta};
    int samples_per_dta{ComparisonOptions{}.samples_per_dta};
    int threads{0};
    std::string json;
    std::string gamma_map;
    std::string structures; //!< RT Structure Set or label image
    std::string region{"body"};
};

//! The reference voxels a comparison looks at, and what they are, for the report.
struct Region
{
    std::string description;
    std::vector<std::uint8_t> mask; //!< per reference voxel; empty: the whole grid
};

bool is_image_path(std::string const& path)
{
    for (char const* ext : {".mha", ".mhd", ".nrrd", ".nhdr", ".nii", ".nii.gz"})
    {
        std::string const e = ext;
        if (path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0)
            return true;
    }
    return false;
}

//! The structure `o.region` of `o.structures` on the reference grid.
StructureMask named_structure(Options const& o, GridGeometry const& grid)
{
    if (is_image_path(o.structures))
    {
        int label = 0;
        std::size_t used = 0;
        try
        {
            label = std::stoi(o.region, &used);
        }
        catch (std::exception const&)
        {
            used = 0;
        }
        MCDOSE_VALIDATE(used > 0 && used == o.region.size() && label > 0,
                        << "'--region " << shortened_name(o.region) << "': with a label image ("
                        << o.structures << ") the region is a label, a positive whole number "
                        << "(e.g. --region 1)");
        return label_structure(read_scalar_image(o.structures), label,
                               "label " + std::to_string(label), grid, default_sub_voxel_samples);
    }
    RtStructureSet const set = read_rt_structure_set(o.structures);
    std::string names;
    for (RtRoi const& roi : set.rois)
    {
        if (roi.name == o.region)
            return rasterise_contours(roi, grid, default_sub_voxel_samples);
        names += (names.empty() ? "" : ", ") + shortened_name(roi.name, 40);
    }
    MCDOSE_VALIDATE(false, << o.structures << " has no structure '" << shortened_name(o.region)
                           << "' (it has: " << names << "); give one of these with --region");
    return {};
}

/*!
 * The region compared: a named structure of --structures, or the body outline of the
 * reference's densities (mcdose result files), or, for a reference without densities, the
 * whole grid (said in the description).
 */
Region comparison_region(Options const& o, DoseGrid const& reference)
{
    GridGeometry const& g = reference.geometry;
    Region r;
    StructureMask m;
    if (!o.structures.empty())
    {
        m = named_structure(o, g);
        r.description = "structure '" + m.name + "' of " + o.structures;
    }
    else if (o.region == "grid")
    {
        r.description = "the whole grid (--region grid)";
        return r;
    }
    else
    {
        if (reference.density_g_cm3.empty())
        {
            r.description = "the whole grid (" + reference.source +
                            " records no densities to find the body in; give --structures and "
                            "--region for one)";
            return r;
        }
        std::vector<float> const density(reference.density_g_cm3.begin(),
                                         reference.density_g_cm3.end());
        m = body_outline(g, make_span(density), default_body_density_g_cm3);
        std::ostringstream text;
        text << "the body (outline of the reference's densities above "
             << default_body_density_g_cm3 << " g/cm3)";
        r.description = text.str();
    }
    MCDOSE_VALIDATE(m.size() > 0, << r.description << " covers no voxel of the reference grid; "
                                  << "check the files, or give --region grid");
    r.mask.assign(g.num_voxels(), 0);
    for (size_type i = 0; i < m.size(); ++i)
        r.mask[m.voxel(i)] = 1;
    return r;
}

std::vector<GammaCriterion> parse_criteria(Options const& o)
{
    std::vector<GammaCriterion> result;
    std::vector<bool> locals;
    if (o.normalisation != "local")
        locals.push_back(false);
    if (o.normalisation != "global")
        locals.push_back(true);
    for (bool local : locals)
    {
        for (std::string const& item : split_commas(o.criteria))
            result.push_back(parse_gamma_criterion(item, local));
    }
    return result;
}

std::string grid_text(DoseGrid const& d)
{
    GridGeometry const& g = d.geometry;
    std::ostringstream os;
    os << g.dims[0] << "x" << g.dims[1] << "x" << g.dims[2] << " voxels of " << 10 * g.spacing_cm[0]
       << "x" << 10 * g.spacing_cm[1] << "x" << 10 * g.spacing_cm[2] << " mm";
    return os.str();
}

bool same_grid(GridGeometry const& a, GridGeometry const& b)
{
    for (int c = 0; c < 3; ++c)
    {
        if (a.dims[c] != b.dims[c] || std::abs(a.spacing_cm[c] - b.spacing_cm[c]) > 1e-6 ||
            std::abs(a.origin_cm[c] - b.origin_cm[c]) > 1e-6)
            return false;
    }
    for (int e = 0; e < 9; ++e)
    {
        if (std::abs(a.direction[e] - b.direction[e]) > 1e-9)
            return false;
    }
    return true;
}

nlohmann::json grid_json(DoseGrid const& d)
{
    GridGeometry const& g = d.geometry;
    return {{"file", d.source},
            {"units", d.units},
            {"dimensions", {g.dims[0], g.dims[1], g.dims[2]}},
            {"spacing_cm", {g.spacing_cm[0], g.spacing_cm[1], g.spacing_cm[2]}},
            {"origin_cm", {g.origin_cm[0], g.origin_cm[1], g.origin_cm[2]}}};
}

void print_difference(DoseDifferenceStats const& s, std::string const& units, bool given)
{
    double const pct = s.normalisation_dose > 0 ? 100 / s.normalisation_dose : 0;
    std::cout << "normalisation: " << s.normalisation_dose << " " << units
              << (given ? " (--norm-dose)" : " (the region's near max, D0.03cc)")
              << "; reference maximum over the whole grid " << s.reference_max << " " << units
              << " (reported apart)\n"
              << "dose difference (evaluated - reference) over " << s.voxels
              << " voxels of the region at or above " << s.threshold_dose << " " << units
              << " (threshold); percentages of " << s.normalisation_dose << " " << units << ":\n"
              << std::setprecision(4) << "  mean " << s.mean_difference * pct << " %, mean |d| "
              << s.mean_abs_difference * pct << " %, rms " << s.rms_difference * pct
              << " %, max |d| " << s.max_abs_difference * pct << " % at (" << s.max_abs_at_cm[0]
              << ", " << s.max_abs_at_cm[1] << ", " << s.max_abs_at_cm[2]
              << ") cm; mean ratio evaluated/reference " << std::setprecision(6) << s.mean_ratio
              << '\n';
    if (s.outside > 0)
    {
        std::cout << "  " << s.outside
                  << " reference voxels above the threshold lie outside the evaluated grid "
                     "and are not compared\n";
    }
}

nlohmann::json difference_json(DoseDifferenceStats const& s)
{
    return {
        {"voxels", s.voxels},
        {"outside_evaluated_grid", s.outside},
        {"reference_max", s.reference_max},
        {"region_near_max", s.region_near_max},
        {"normalisation_dose", s.normalisation_dose},
        {"threshold_dose", s.threshold_dose},
        {"mean_difference", s.mean_difference},
        {"mean_abs_difference", s.mean_abs_difference},
        {"rms_difference", s.rms_difference},
        {"max_abs_difference", s.max_abs_difference},
        {"max_abs_difference_at_cm", {s.max_abs_at_cm[0], s.max_abs_at_cm[1], s.max_abs_at_cm[2]}},
        {"mean_ratio", s.mean_ratio}};
}

nlohmann::json gamma_json(GammaResult const& g, double seconds)
{
    return {{"criterion", g.criterion.label()},
            {"dose_difference_percent", 100 * g.criterion.dose_fraction},
            {"dta_mm", g.criterion.dta_mm},
            {"normalisation", g.criterion.local ? "local" : "global"},
            {"evaluated", g.evaluated},
            {"passed", g.passed},
            {"pass_rate_percent", 100 * g.pass_rate},
            {"mean_gamma", g.mean_gamma},
            {"gamma_p95", g.gamma_p95},
            {"max_gamma", g.max_gamma},
            {"gamma_cap", g.cap},
            {"time_s", seconds}};
}

void run_compare(Options const& o, GlobalOptions const& global)
{
    // Everything the command line says is checked before a file is read.
    std::vector<GammaCriterion> const criteria = parse_criteria(o);
    MCDOSE_VALIDATE(!criteria.empty(), << "'--criteria' is empty; give e.g. 3%/3mm,2%/2mm");
    MCDOSE_VALIDATE(!o.structures.empty() || o.region == "body" || o.region == "grid",
                    << "'--region " << shortened_name(o.region)
                    << "' needs --structures (an RT Structure Set or a label image); without it "
                       "give body or grid");
    MCDOSE_VALIDATE(o.gamma_map.empty() || is_writable_image_path(o.gamma_map),
                    << "'--gamma-map " << o.gamma_map
                    << "': give a .mha, .nrrd, .nii or .nii.gz file name");
    refuse_outputs_over_inputs({{o.gamma_map, "--gamma-map image"}, {o.json, "--json report"}},
                               {{o.reference, "reference dose"}, {o.evaluated, "evaluated dose"}});
    ComparisonOptions options;
    options.threshold_fraction = o.threshold_percent / 100;
    options.normalisation_dose = o.normalisation_dose;
    options.search_radius_dta = o.search_radius_dta;
    options.samples_per_dta = o.samples_per_dta;
    options.threads = o.threads;

    DoseGrid const reference = read_dose_grid(o.reference);
    DoseGrid const evaluated = read_dose_grid(o.evaluated);
    check_finite(reference);
    check_finite(evaluated);
    check_comparable(reference, evaluated);
    Region region = comparison_region(o, reference);
    options.region = std::move(region.mask);
    std::string const units = reference.units.empty() ? evaluated.units : reference.units;
    std::string const unit_text = units.empty() ? "(image units)" : units;
    bool const resampled = !same_grid(reference.geometry, evaluated.geometry);
    if (!global.quiet)
    {
        std::cout << "reference: " << reference.source << ", " << grid_text(reference) << '\n'
                  << "evaluated: " << evaluated.source << ", " << grid_text(evaluated)
                  << (resampled ? ", interpolated (trilinear) at the reference voxel centres" : "")
                  << '\n'
                  << "region   : " << region.description << '\n';
        if (reference.units.empty() != evaluated.units.empty())
        {
            std::cout << "note: " << (reference.units.empty() ? "the reference" : "the evaluated")
                      << " file records no unit; it is taken to be in " << units << '\n';
        }
    }
    DoseDifferenceStats const diff = dose_difference(reference, evaluated, options);
    MCDOSE_VALIDATE(diff.normalisation_dose > 0,
                    << "the reference dose is zero everywhere in " << region.description
                    << "; check the files, the region, or give --norm-dose");
    MCDOSE_VALIDATE(diff.voxels > 0,
                    << "no reference voxel of " << region.description
                    << " at or above the threshold (" << o.threshold_percent << " % of "
                    << diff.normalisation_dose << " " << unit_text
                    << ") lies inside the evaluated grid; check the files, or lower --threshold");
    if (!global.quiet)
        print_difference(diff, unit_text, o.normalisation_dose.has_value());

    nlohmann::json report;
    report["format"] = "mcdose dose comparison";
    report["reference"] = grid_json(reference);
    report["evaluated"] = grid_json(evaluated);
    report["resampled"] = resampled;
    report["region"] = region.description;
    report["threshold_percent"] = o.threshold_percent;
    report["threshold_relative_to"] = "normalisation_dose";
    report["search_radius_dta"] = o.search_radius_dta;
    report["samples_per_dta"] = o.samples_per_dta;
    report["dose_difference"] = difference_json(diff);
    report["gamma"] = nlohmann::json::array();
    std::vector<float> first_map;
    for (GammaCriterion const& c : criteria)
    {
        auto const t0 = std::chrono::steady_clock::now();
        GammaResult g = gamma_index(reference, evaluated, c, options);
        double const seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << "gamma " << c.label() << ": pass rate " << std::fixed << std::setprecision(2)
                  << 100 * g.pass_rate << " % (" << g.passed << " of " << g.evaluated
                  << " voxels), mean " << std::setprecision(3) << g.mean_gamma
                  << ", 95th percentile " << g.gamma_p95 << ", max " << g.max_gamma
                  << (g.max_gamma >= g.cap ? " (capped)" : "") << std::defaultfloat
                  << std::setprecision(6) << "; " << seconds << " s\n";
        report["gamma"].push_back(gamma_json(g, seconds));
        if (first_map.empty())
            first_map = std::move(g.map);
    }
    if (!o.gamma_map.empty())
    {
        write_image(o.gamma_map, reference.geometry, make_span(std::as_const(first_map)));
        report["gamma_map"] = {{"file", o.gamma_map}, {"criterion", criteria.front().label()}};
        if (!global.quiet)
            std::cout << "wrote " << o.gamma_map << " (" << criteria.front().label() << ")\n";
    }
    if (!o.json.empty())
    {
        write_text_atomically(o.json, report.dump(2) + "\n");
        if (!global.quiet)
            std::cout << "wrote " << o.json << '\n';
    }
}

bool const registered = register_command(
    {"compare",
     "Compare two dose grids (HDF5, MHA/NRRD/NIfTI, DICOM RT Dose): dose difference and 3D "
     "gamma index",
     [](CLI::App& sub, GlobalOptions const& global)
     {
         auto o = std::make_shared<Options>();
         sub.add_option("reference", o->reference,
                        "Reference dose: mcdose .h5 (dose_Gy, else dose), image, or RT Dose")
             ->required();
         sub.add_option("evaluated", o->evaluated,
                        "Evaluated dose (interpolated onto the reference voxel centres)")
             ->required();
         sub.add_option("--criteria", o->criteria,
                        "Gamma criteria DOSE%/DISTANCEmm, comma-separated")
             ->capture_default_str();
         sub.add_option("--normalisation", o->normalisation,
                        "global: dose difference relative to the region's near max (or "
                        "--norm-dose); local: to the reference dose at the point; both")
             ->check(CLI::IsMember({"global", "local", "both"}))
             ->capture_default_str();
         sub.add_option("--threshold", o->threshold_percent,
                        "Low-dose threshold, % of the normalisation dose (the region's near "
                        "max, or --norm-dose): voxels below are not evaluated")
             ->check(CLI::Range(0.0, 100.0))
             ->capture_default_str();
         sub.add_option("--norm-dose", o->normalisation_dose,
                        "Global normalisation dose, in the files' unit, e.g. the prescription "
                        "(default: the region's near max, D0.03cc)")
             ->check(CLI::PositiveNumber);
         sub.add_option("--search-radius", o->search_radius_dta,
                        "Search radius in units of the distance criterion; larger gamma values "
                        "are reported as this value")
             ->check(CLI::Range(1.0, 10.0))
             ->capture_default_str();
         sub.add_option("--samples-per-dta", o->samples_per_dta,
                        "Search lattice points per distance criterion (the best is then refined)")
             ->check(CLI::Range(2, 50))
             ->capture_default_str();
         sub.add_option("--structures", o->structures,
                        "Where the region is: a DICOM RT Structure Set, or a label image (.mha, "
                        ".nrrd, .nii) on any grid over the same patient coordinates");
         sub.add_option("--region", o->region,
                        "Region compared and normalised to: body (outline of an mcdose "
                        "result's densities), grid (every voxel), or with --structures a "
                        "structure name (e.g. PTV) or label number")
             ->capture_default_str();
         sub.add_option("--threads", o->threads, "Threads (0: all cores; at most 1024)")
             ->check(CLI::Range(0, 1024))
             ->capture_default_str();
         sub.add_option("--json", o->json, "Write the results as JSON to this file");
         sub.add_option("--gamma-map", o->gamma_map,
                        "Write the gamma map of the first criterion (-1 where not evaluated) "
                        "as an image (.mha, .nrrd, .nii) on the reference grid");
         sub.callback([o, &global] { run_compare(*o, global); });
     }});
} // namespace
} // namespace mcdose::app
