//! \file app/commands/Phantom.cc
//! `mcdose phantom study.json`: build the study's phantom and print its grid
//! and the voxels, volume and mass of each material (or JSON with --json);
//! --export writes the material-index and density images for inspection.
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "io/ImageIO.hh"
#include "study/StudyChecks.hh"

namespace mcdose::app
{
namespace
{
struct PhantomOptions
{
    std::string study;
    bool as_json{false};
    std::string export_stem;
};

bool is_identity(GridGeometry const& g)
{
    for (int e = 0; e < 9; ++e)
    {
        if (g.direction[e] != (e % 4 == 0 ? 1.0 : 0.0))
            return false;
    }
    return true;
}

nlohmann::json summary_json(StudyInput const& study, Phantom const& phantom)
{
    GridGeometry const& g = phantom.grid.geometry();
    nlohmann::json j;
    j["study"] = study.study_file;
    j["type"] = to_cstring(study.phantom.kind);
    j["dimensions"] = {g.dims[0], g.dims[1], g.dims[2]};
    j["voxels"] = g.num_voxels();
    j["spacing_cm"] = {g.spacing_cm[0], g.spacing_cm[1], g.spacing_cm[2]};
    j["origin_cm"] = {g.origin_cm[0], g.origin_cm[1], g.origin_cm[2]};
    j["direction"] = std::vector<double>(g.direction, g.direction + 9);
    j["materials"] = nlohmann::json::array();
    double total_mass = 0;
    for (auto const& t : material_totals(phantom))
    {
        j["materials"].push_back({{"name", t.name},
                                  {"voxels", t.voxels},
                                  {"volume_cm3", t.volume_cm3},
                                  {"mass_g", t.mass_g},
                                  {"min_density_g_cm3", t.min_density_g_cm3},
                                  {"max_density_g_cm3", t.max_density_g_cm3}});
        total_mass += t.mass_g;
    }
    j["total_mass_g"] = total_mass;
    return j;
}

void print_summary(StudyInput const& study, Phantom const& phantom)
{
    GridGeometry const& g = phantom.grid.geometry();
    std::cout << "phantom of " << study.study_file << " (" << to_cstring(study.phantom.kind)
              << ")\n";
    std::cout << "  grid      : " << g.dims[0] << " x " << g.dims[1] << " x " << g.dims[2] << " = "
              << g.num_voxels() << " voxels\n";
    std::cout << std::setprecision(6);
    std::cout << "  spacing   : " << g.spacing_cm[0] << " x " << g.spacing_cm[1] << " x "
              << g.spacing_cm[2] << " cm\n";
    std::cout << "  origin    : (" << g.origin_cm[0] << ", " << g.origin_cm[1] << ", "
              << g.origin_cm[2] << ") cm (centre of voxel 0,0,0)\n";
    std::cout << "  extent    : " << g.dims[0] * g.spacing_cm[0] << " x "
              << g.dims[1] * g.spacing_cm[1] << " x " << g.dims[2] * g.spacing_cm[2] << " cm\n";
    if (!is_identity(g))
    {
        std::cout << "  direction : [";
        for (int e = 0; e < 9; ++e)
            std::cout << (e ? (e % 3 ? ", " : "; ") : "") << g.direction[e];
        std::cout << "]\n";
    }
    std::cout << "  materials :\n";
    std::cout << "    " << std::left << std::setw(4) << "#" << std::setw(22) << "name" << std::right
              << std::setw(12) << "voxels" << std::setw(14) << "volume/cm3" << std::setw(14)
              << "mass/g" << std::setw(22) << "density/(g/cm3)" << '\n';
    double total_mass = 0;
    double total_volume = 0;
    auto const totals = material_totals(phantom);
    for (std::size_t m = 0; m < totals.size(); ++m)
    {
        auto const& t = totals[m];
        std::ostringstream rho;
        rho << std::setprecision(4) << t.min_density_g_cm3;
        if (t.max_density_g_cm3 != t.min_density_g_cm3)
            rho << " - " << t.max_density_g_cm3;
        std::cout << "    " << std::left << std::setw(4) << m << std::setw(22) << t.name
                  << std::right << std::setw(12) << t.voxels << std::setw(14)
                  << std::setprecision(6) << t.volume_cm3 << std::setw(14) << t.mass_g
                  << std::setw(22) << rho.str() << '\n';
        total_mass += t.mass_g;
        total_volume += t.volume_cm3;
    }
    std::cout << "    " << std::left << std::setw(26) << "total" << std::right << std::setw(12)
              << g.num_voxels() << std::setw(14) << total_volume << std::setw(14) << total_mass
              << '\n';
}

void run_phantom(PhantomOptions const& opts, GlobalOptions const& global)
{
    StudyInput const study = load_study(opts.study);
    std::vector<std::string> warnings;
    Phantom const phantom = build_study_phantom(study, &warnings);
    for (auto const& w : warnings)
        std::cerr << "mcdose: warning: " << w << '\n';
    if (opts.as_json)
        std::cout << summary_json(study, phantom).dump(2) << '\n';
    else
        print_summary(study, phantom);
    if (!opts.export_stem.empty())
    {
        auto const& grid = phantom.grid;
        std::string const mat = opts.export_stem + "_material.mha";
        std::string const rho = opts.export_stem + "_density.mha";
        write_image(mat, grid.geometry(), make_span(grid.material()));
        write_image(rho, grid.geometry(), make_span(grid.density_g_cm3()));
        if (!global.quiet && !opts.as_json)
            std::cout << "wrote " << mat << " and " << rho << '\n';
    }
}

bool const registered = register_command(
    {"phantom",
     "Build the phantom of a study and print its grid and the voxels, volume and mass of each "
     "material",
     [](CLI::App& sub, GlobalOptions const& global)
     {
         auto opts = std::make_shared<PhantomOptions>();
         sub.add_option("study", opts->study, "Study JSON file")->required();
         sub.add_flag("--json", opts->as_json, "Print the summary as JSON");
         sub.add_option("--export", opts->export_stem,
                        "Also write <stem>_material.mha and <stem>_density.mha");
         sub.callback([opts, &global] { run_phantom(*opts, global); });
     }});
} // namespace
} // namespace mcdose::app
