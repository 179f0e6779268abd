//! \file app/commands/Materials.cc
//! `mcdose materials`: print the photon or electron tables of catalogue/user materials:
//! the tables the transport builds (transport/physics/PhysicsTables.hh, with the study
//! defaults' grids and cuts), looked up as the transport does, with their dosimetry
//! columns (mu_en, unrestricted stopping powers, CSDA range, radiation yield, delta).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "core/Assert.hh"
#include "io/JsonInput.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "phantoms/materials/MaterialJson.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose::app
{
namespace
{
//! The top of the printed tables and of --energies [MeV].
constexpr double max_energy_MeV = 50;

struct MaterialsArgs
{
    std::vector<std::string> names;
    bool all{false};
    std::string energies;
    std::string particle{"photon"};
    bool json{false};
    bool csv{false};
    std::string materials_file;
    bool timing{false};
    bool transported{false};
    double delta_ray_cut_MeV{ElectronTransportOptions{}.delta_cut_MeV};
    double brems_cut_MeV{ElectronTransportOptions{}.brems_cut_MeV};
    double density_g_cm3{std::nan("")}; //!< NaN (not given): each material's own
};

//! Highest density --density accepts [g/cm^3] (osmium, the densest element, is 22.6).
constexpr double max_density_g_cm3 = 30;

std::vector<double> parse_energies(std::string const& text)
{
    std::vector<double> result;
    if (text.empty())
    {
        for (double decade = 1e-3; decade < max_energy_MeV; decade *= 10)
            for (double m : {1.0, 2.0, 5.0})
                if (m * decade <= max_energy_MeV)
                    result.push_back(m * decade);
        return result;
    }
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        double e = 0;
        try
        {
            std::size_t used = 0;
            e = std::stod(item, &used);
            MCDOSE_VALIDATE(used == item.size(), << "");
        }
        catch (std::exception const&)
        {
            MCDOSE_VALIDATE(false, << "--energies: '" << item
                                   << "' is not a number; give kinetic energies in MeV separated "
                                      "by commas, e.g. 0.01,0.1,1");
        }
        MCDOSE_VALIDATE(e >= 1e-3 && e <= max_energy_MeV,
                        << "--energies: " << e
                        << " MeV is outside the tables; use 0.001 to 50 MeV");
        result.push_back(e);
    }
    return result;
}

//! The materials asked for: --all (catalogue, then the user file's), then each --material.
std::vector<Material> chosen_materials(MaterialsArgs const& a)
{
    std::vector<Material> user;
    if (!a.materials_file.empty())
    {
        // The checked reader first: syntax with line and column, nesting depth and duplicate
        // keys refused before the materials are read.
        (void)parse_json_file(a.materials_file);
        user = materials_from_json_file(a.materials_file);
    }
    std::vector<Material> chosen;
    if (a.all)
    {
        chosen = catalogue_materials();
        chosen.insert(chosen.end(), user.begin(), user.end());
    }
    for (auto const& n : a.names)
        chosen.push_back(find_material(n, user));
    if (!std::isnan(a.density_g_cm3))
    {
        // The material as a homogeneous medium of that density (what the transport uses
        // in a voxel of that density with physics/density_effect "voxel").
        for (auto& m : chosen)
            m.density_g_cm3 = a.density_g_cm3;
    }
    return chosen;
}

//! The tables the transport builds (physics_table_options of the study defaults with the
//! given cuts, up to the highest --energies value) with the dosimetry columns.
PhysicsTables transported_tables(MaterialsArgs const& a, std::vector<Material> const& materials)
{
    TransportOptions transport;
    transport.emax_MeV = max_energy_MeV;
    transport.electron.delta_cut_MeV = a.delta_ray_cut_MeV;
    transport.electron.brems_cut_MeV = a.brems_cut_MeV;
    PhysicsTableOptions options = physics_table_options(transport);
    options.dosimetry = true;
    return PhysicsTables(materials, options);
}

//! One printed table: its column names and the values of a row.
struct TableLayout
{
    std::vector<std::string> columns;
    std::function<std::vector<double>(std::uint32_t material, double energy_MeV)> row;
};

//! The columns the transport reads (the electron stopping power is restricted collision
//! plus restricted radiative, as in ElectronTables).
TableLayout transported_layout(PhysicsTables const& tables, bool photon)
{
    if (photon)
    {
        return {{"energy_MeV", "mu_rho_cm2_g", "photo_cm2_g", "incoherent_cm2_g", "coherent_cm2_g",
                 "pair_cm2_g"},
                [&tables](std::uint32_t m, double e)
                {
                    using C = PhotonColumn;
                    std::vector<double> v{e};
                    for (C c : {C::mu, C::photo, C::incoherent, C::coherent, C::pair})
                        v.push_back(tables.photon(m, c, e));
                    return v;
                }};
    }
    return {{"energy_MeV", "stopping_electron_MeV_cm2_g", "stopping_positron_MeV_cm2_g",
             "moller_cm2_g", "bhabha_cm2_g", "brems_cm2_g", "annihilation_cm2_g",
             "transport_xs_electron_cm2_g", "transport_xs_positron_cm2_g"},
            [&tables](std::uint32_t m, double e)
            {
                using C = ElectronColumn;
                auto at = [&](C c) { return tables.electron(m, c, e); };
                double const rad = at(C::restricted_rad);
                return std::vector<double>{e,
                                           at(C::restricted_col_electron) + rad,
                                           at(C::restricted_col_positron) + rad,
                                           at(C::hard_moller),
                                           at(C::hard_bhabha),
                                           at(C::hard_brems),
                                           at(C::annihilation),
                                           at(C::transport_xs_electron),
                                           at(C::transport_xs_positron)};
            }};
}

//! The fixed columns (a script interface): transported photon columns with mu_en, and
//! the unrestricted electron quantities.
TableLayout table_layout(PhysicsTables const& tables, bool photon)
{
    if (photon)
    {
        return {{"energy_MeV", "mu_rho_cm2_g", "mu_en_rho_cm2_g", "photo_cm2_g", "incoherent_cm2_g",
                 "coherent_cm2_g", "pair_cm2_g"},
                [&tables](std::uint32_t m, double e)
                {
                    using C = PhotonColumn;
                    std::vector<double> v{e};
                    for (C c : {C::mu, C::mu_en, C::photo, C::incoherent, C::coherent, C::pair})
                        v.push_back(tables.photon(m, c, e));
                    return v;
                }};
    }
    return {{"energy_MeV", "s_col_MeV_cm2_g", "s_rad_MeV_cm2_g", "s_tot_MeV_cm2_g", "csda_g_cm2",
             "radiation_yield", "density_effect"},
            [&tables](std::uint32_t m, double e)
            {
                using C = ElectronColumn;
                double const scol = tables.electron(m, C::s_col_electron, e);
                double const srad = tables.electron(m, C::s_rad, e);
                return std::vector<double>{e,
                                           scol,
                                           srad,
                                           scol + srad,
                                           tables.electron(m, C::csda_range_electron, e),
                                           tables.electron(m, C::radiation_yield, e),
                                           tables.electron(m, C::density_effect, e)};
            }};
}

//! The grids and cuts the tables were built with (so a reader can match a study).
nlohmann::json tables_json(PhysicsTableOptions const& o)
{
    auto const per_decade = [](TableGrid const& g) { return std::log(10.0) / g.delta; };
    nlohmann::json j;
    j["interpolation"] = "linear in ln E on uniform ln E grids (as the transport)";
    j["photon_points_per_decade"] = std::lround(per_decade(o.photon_grid));
    j["electron_points_per_decade"] = std::lround(per_decade(o.electron_grid));
    j["emin_MeV"] = o.photon_grid.energy_MeV(0);
    j["delta_ray_cut_MeV"] = o.delta_cut_MeV;
    j["brems_cut_MeV"] = o.brems_cut_MeV;
    return j;
}

void print_json(MaterialsArgs const& a, PhysicsTables const& tables, TableLayout const& layout,
                std::vector<double> const& energies, double build_s)
{
    nlohmann::json j;
    j["particle"] = a.particle;
    j["columns"] = layout.columns;
    j["build_time_s"] = build_s;
    j["tables"] = tables_json(tables.options());
    for (std::uint32_t mi = 0; mi < tables.num_materials(); ++mi)
    {
        auto const& m = tables.materials()[mi];
        nlohmann::json jm;
        jm["name"] = m.name;
        jm["density_g_cm3"] = m.density_g_cm3;
        jm["mean_excitation_energy_eV"] = m.mean_excitation_energy_eV;
        jm["mean_excitation_source"] =
            m.mean_excitation_source == MeanExcitationSource::given ? "given" : "bragg_additivity";
        for (auto const& c : m.components)
            jm["mass_fractions"][std::to_string(c.atomic_number)] = c.mass_fraction;
        for (double e : energies)
            jm["rows"].push_back(layout.row(mi, e));
        j["materials"].push_back(jm);
    }
    std::cout << j.dump(2) << '\n';
}

void print_csv(PhysicsTables const& tables, TableLayout const& layout,
               std::vector<double> const& energies)
{
    for (std::uint32_t mi = 0; mi < tables.num_materials(); ++mi)
    {
        if (tables.num_materials() > 1)
            std::cout << "# material: " << tables.materials()[mi].name << '\n';
        for (std::size_t c = 0; c < layout.columns.size(); ++c)
            std::cout << (c ? "," : "") << layout.columns[c];
        std::cout << '\n';
        for (double e : energies)
        {
            auto const v = layout.row(mi, e);
            std::ostringstream line;
            line << std::setprecision(6);
            for (std::size_t c = 0; c < v.size(); ++c)
                line << (c ? "," : "") << v[c];
            std::cout << line.str() << '\n';
        }
    }
}

void print_text(PhysicsTables const& tables, TableLayout const& layout,
                std::vector<double> const& energies)
{
    auto const& o = tables.options();
    std::cout << "transported tables: " << std::lround(std::log(10.0) / o.photon_grid.delta)
              << " (photon) and " << std::lround(std::log(10.0) / o.electron_grid.delta)
              << " (electron) points per decade, linear in ln E; delta-ray cut " << o.delta_cut_MeV
              << " MeV, bremsstrahlung cut " << o.brems_cut_MeV << " MeV\n\n";
    for (std::uint32_t mi = 0; mi < tables.num_materials(); ++mi)
    {
        auto const& m = tables.materials()[mi];
        std::cout << m.name << ": density " << m.density_g_cm3
                  << " g/cm^3, I = " << m.mean_excitation_energy_eV << " eV"
                  << (m.mean_excitation_source == MeanExcitationSource::given ? "" : " (Bragg)")
                  << (m.description.empty() ? "" : " -- " + m.description) << '\n';
        std::vector<int> width;
        for (auto const& c : layout.columns)
        {
            width.push_back(std::max<int>(17, c.size() + 2));
            std::cout << std::setw(width.back()) << c;
        }
        std::cout << '\n';
        for (double e : energies)
        {
            auto const v = layout.row(mi, e);
            for (std::size_t c = 0; c < v.size(); ++c)
                std::cout << std::setw(width[c]) << std::setprecision(6) << v[c];
            std::cout << '\n';
        }
        std::cout << '\n';
    }
}

void run_materials(MaterialsArgs const& a)
{
    MCDOSE_VALIDATE(a.particle == "photon" || a.particle == "electron",
                    << "--particle: '" << a.particle << "' is not known; use photon or electron");
    MCDOSE_VALIDATE(!(a.json && a.csv), << "--json and --csv exclude each other; choose one");
    MCDOSE_VALIDATE(a.all || !a.names.empty(), << "give --material NAME (repeatable) or --all");
    MCDOSE_VALIDATE(std::isnan(a.density_g_cm3) ||
                        (a.density_g_cm3 > 0 && a.density_g_cm3 <= max_density_g_cm3),
                    << "--density: " << a.density_g_cm3 << " g/cm^3 is outside (0, "
                    << max_density_g_cm3 << "]; give a mass density, e.g. 0.26 for lung");
    auto const chosen = chosen_materials(a);
    auto const energies = parse_energies(a.energies);

    auto const t0 = std::chrono::steady_clock::now();
    PhysicsTables const tables = transported_tables(a, chosen);
    double const build_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    bool const photon = a.particle == "photon";
    TableLayout const layout =
        a.transported ? transported_layout(tables, photon) : table_layout(tables, photon);
    if (a.json)
        print_json(a, tables, layout, energies, build_s);
    else if (a.csv)
        print_csv(tables, layout, energies);
    else
        print_text(tables, layout, energies);
    if (a.timing || (!a.csv && !a.json))
    {
        std::cerr << "tables for " << chosen.size() << " material(s) built in " << std::fixed
                  << std::setprecision(3) << build_s << " s\n";
    }
}

bool const registered = register_command(
    {"materials", "Print photon attenuation or electron stopping-power tables of materials",
     [](CLI::App& sub, GlobalOptions const&)
     {
         auto a = std::make_shared<MaterialsArgs>();
         sub.add_option("--material", a->names, "Material name (repeatable)");
         sub.add_flag("--all", a->all, "All catalogue (and user) materials");
         sub.add_option(
             "--energies", a->energies,
             "Comma-separated kinetic energies in MeV (default 1-2-5 series, 1 keV-50 MeV)");
         sub.add_option("--particle", a->particle, "photon or electron")->capture_default_str();
         sub.add_flag("--json", a->json, "Print JSON");
         sub.add_flag("--csv", a->csv, "Print CSV");
         sub.add_option("--materials-file", a->materials_file, "JSON file of user materials");
         sub.add_flag("--timing", a->timing, "Report the table build time on stderr");
         sub.add_flag(
             "--transported", a->transported,
             "Print the columns the transport reads (electrons: restricted stopping "
             "powers and hard cross sections with the cuts) instead of the dosimetry ones");
         sub.add_option("--delta-ray-cut-MeV", a->delta_ray_cut_MeV,
                        "Cut W_cc of the restricted tables (study 'physics/delta_ray_cut_MeV')")
             ->capture_default_str();
         sub.add_option("--brems-cut-MeV", a->brems_cut_MeV,
                        "Cut W_cr of the restricted tables (study 'physics/brems_cut_MeV')")
             ->capture_default_str();
         sub.add_option("--density", a->density_g_cm3,
                        "Mass density in g/cm^3 at which to evaluate the tables (default: each "
                        "material's own); only the collision stopping power (its density-effect "
                        "correction) and what follows from it depend on it");
         sub.callback([a] { run_materials(*a); });
     }});
} // namespace
} // namespace mcdose::app
