//! \file app/commands/Materials.cc
//! `mcdose materials`: print the photon or electron tables of catalogue/user materials.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "core/Assert.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "phantoms/materials/MaterialJson.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose::app
{
namespace
{
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
};

std::vector<double> parse_energies(std::string const& text)
{
    std::vector<double> result;
    if (text.empty())
    {
        for (double decade = 1e-3; decade < 50; decade *= 10)
            for (double m : {1.0, 2.0, 5.0})
                if (m * decade <= 50)
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
        MCDOSE_VALIDATE(e >= 1e-3 && e <= 50, << "--energies: " << e
                                              << " MeV is outside the tables; use 0.001 to 50 MeV");
        result.push_back(e);
    }
    return result;
}

void run_materials(MaterialsArgs const& a)
{
    MCDOSE_VALIDATE(a.particle == "photon" || a.particle == "electron",
                    << "--particle: '" << a.particle << "' is not known; use photon or electron");
    MCDOSE_VALIDATE(!(a.json && a.csv), << "--json and --csv exclude each other; choose one");
    MCDOSE_VALIDATE(a.all || !a.names.empty(), << "give --material NAME (repeatable) or --all");
    std::vector<Material> user;
    if (!a.materials_file.empty())
        user = materials_from_json_file(a.materials_file);
    std::vector<Material> chosen;
    if (a.all)
    {
        chosen = catalogue_materials();
        chosen.insert(chosen.end(), user.begin(), user.end());
    }
    for (auto const& n : a.names)
        chosen.push_back(find_material(n, user));
    auto const energies = parse_energies(a.energies);

    auto const t0 = std::chrono::steady_clock::now();
    PhysicsTables tables(chosen);
    double const build_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    bool const photon = a.particle == "photon";
    std::vector<std::string> const columns =
        photon ? std::vector<std::string>{"energy_MeV",  "mu_rho_cm2_g",     "mu_en_rho_cm2_g",
                                          "photo_cm2_g", "incoherent_cm2_g", "coherent_cm2_g",
                                          "pair_cm2_g"}
               : std::vector<std::string>{"energy_MeV",      "s_col_MeV_cm2_g", "s_rad_MeV_cm2_g",
                                          "s_tot_MeV_cm2_g", "csda_g_cm2",      "radiation_yield",
                                          "density_effect"};
    auto row = [&](std::uint32_t mi, double e)
    {
        std::vector<double> v{e};
        if (photon)
        {
            using Q = PhotonQuantity;
            v.push_back(tables.photon(mi, Q::mu, e));
            v.push_back(tables.photon(mi, Q::mu_en, e));
            v.push_back(tables.photon(mi, Q::photo, e));
            v.push_back(tables.photon(mi, Q::incoherent, e));
            v.push_back(tables.photon(mi, Q::coherent, e));
            v.push_back(tables.photon(mi, Q::pair_nuclear, e) +
                        tables.photon(mi, Q::pair_electron, e));
        }
        else
        {
            using Q = ElectronQuantity;
            double const scol = tables.electron(mi, Q::s_col_electron, e);
            double const srad = tables.electron(mi, Q::s_rad, e);
            v.insert(v.end(),
                     {scol, srad, scol + srad, tables.electron(mi, Q::csda_range_electron, e),
                      tables.electron(mi, Q::radiation_yield, e),
                      tables.electron(mi, Q::density_effect, e)});
        }
        return v;
    };

    if (a.json)
    {
        nlohmann::json j;
        j["particle"] = a.particle;
        j["columns"] = columns;
        j["build_time_s"] = build_s;
        for (std::uint32_t mi = 0; mi < chosen.size(); ++mi)
        {
            auto const& m = chosen[mi];
            nlohmann::json jm;
            jm["name"] = m.name;
            jm["density_g_cm3"] = m.density_g_cm3;
            jm["mean_excitation_energy_eV"] = m.mean_excitation_energy_eV;
            jm["mean_excitation_source"] = m.mean_excitation_source == MeanExcitationSource::given
                                               ? "given"
                                               : "bragg_additivity";
            for (auto const& c : m.components)
                jm["mass_fractions"][std::to_string(c.atomic_number)] = c.mass_fraction;
            for (double e : energies)
                jm["rows"].push_back(row(mi, e));
            j["materials"].push_back(jm);
        }
        std::cout << j.dump(2) << '\n';
        return;
    }
    for (std::uint32_t mi = 0; mi < chosen.size(); ++mi)
    {
        auto const& m = chosen[mi];
        if (a.csv)
        {
            if (chosen.size() > 1)
                std::cout << "# material: " << m.name << '\n';
            for (std::size_t c = 0; c < columns.size(); ++c)
                std::cout << (c ? "," : "") << columns[c];
            std::cout << '\n';
            for (double e : energies)
            {
                auto const v = row(mi, e);
                std::ostringstream line;
                line << std::setprecision(6);
                for (std::size_t c = 0; c < v.size(); ++c)
                    line << (c ? "," : "") << v[c];
                std::cout << line.str() << '\n';
            }
            continue;
        }
        std::cout << m.name << ": density " << m.density_g_cm3
                  << " g/cm^3, I = " << m.mean_excitation_energy_eV << " eV"
                  << (m.mean_excitation_source == MeanExcitationSource::given ? "" : " (Bragg)")
                  << (m.description.empty() ? "" : " -- " + m.description) << '\n';
        for (auto const& c : columns)
            std::cout << std::setw(17) << c;
        std::cout << '\n';
        for (double e : energies)
        {
            for (double x : row(mi, e))
                std::cout << std::setw(17) << std::setprecision(6) << x;
            std::cout << '\n';
        }
        std::cout << '\n';
    }
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
         sub.callback([a] { run_materials(*a); });
     }});
} // namespace
} // namespace mcdose::app
