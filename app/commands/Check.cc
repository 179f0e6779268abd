//! \file app/commands/Check.cc
//! `mcdose check study.json`: validate a study without running it: JSON
//! syntax, every field's name, type and range, user materials, the phantom
//! (images are read and converted) and the checks later parts register
//! (study/StudyChecks.hh). Exit 0 and one line when valid; on the
//! first problem, one line naming the file, the field and the fix, exit 1.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "app/CommandRegistry.hh"
#include "study/StudyChecks.hh"

namespace mcdose::app
{
namespace
{
void run_check(std::string const& path, GlobalOptions const& global)
{
    StudyInput const study = load_study(path);
    std::vector<std::string> warnings;
    Phantom const phantom = check_study(study, &warnings);
    for (auto const& w : warnings)
        std::cerr << "mcdose: warning: " << w << '\n';
    if (global.quiet)
        return;
    GridGeometry const& g = phantom.grid.geometry();
    std::cout << path << ": OK (" << to_cstring(study.phantom.kind) << " phantom " << g.dims[0]
              << "x" << g.dims[1] << "x" << g.dims[2] << ", " << phantom.material_names.size()
              << " material" << (phantom.material_names.size() == 1 ? "" : "s") << ", "
              << study.sources.size() << " source" << (study.sources.size() == 1 ? "" : "s")
              << ", ";
    if (study.run.histories)
        std::cout << *study.run.histories << " histories";
    else if (study.run.target_uncertainty)
        std::cout << "target uncertainty " << 100 * *study.run.target_uncertainty << " %";
    else
        std::cout << "histories from the phase space";
    std::cout << ")\n";
}

bool const registered = register_command(
    {"check", "Validate a study JSON (fields, ranges, materials, phantom images) without running",
     [](CLI::App& sub, GlobalOptions const& global)
     {
         auto path = std::make_shared<std::string>();
         sub.add_option("study", *path, "Study JSON file")->required();
         sub.callback([path, &global] { run_check(*path, global); });
     }});
} // namespace
} // namespace mcdose::app
