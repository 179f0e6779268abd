//! \file app/CommandRegistry.hh
//! Each `mcdose` subcommand lives in its own app/commands/*.cc and registers
//! itself here at static-initialisation time, so adding a command touches no
//! shared file.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI
{
class App;
}

namespace mcdose::app
{
//! Global options shared by all subcommands.
struct GlobalOptions
{
    bool quiet{false};   //!< only errors and the paths written
    bool verbose{false}; //!< also the step timings and other detail
};

//! A subcommand: `setup` adds its options to `sub` and installs its callback.
struct CommandSpec
{
    std::string name;
    std::string description;
    std::function<void(CLI::App& sub, GlobalOptions const& global)> setup;
    //! Commands that test or benchmark the engine itself, listed apart in `--help`.
    bool developer{false};
};

//! Register a command (call from a namespace-scope initialiser).
bool register_command(CommandSpec spec);

//! All registered commands, sorted by name.
std::vector<CommandSpec> const& registered_commands();

//! Exit status a command may set without throwing (e.g. `check` finding problems).
int& command_exit_status();
} // namespace mcdose::app
