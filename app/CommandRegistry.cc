//! \file app/CommandRegistry.cc
#include "app/CommandRegistry.hh"

#include <algorithm>

namespace mcdose::app
{
namespace
{
std::vector<CommandSpec>& storage()
{
    static std::vector<CommandSpec> commands;
    return commands;
}
} // namespace

bool register_command(CommandSpec spec)
{
    auto& cmds = storage();
    cmds.push_back(std::move(spec));
    std::sort(cmds.begin(), cmds.end(),
              [](CommandSpec const& a, CommandSpec const& b) { return a.name < b.name; });
    return true;
}

std::vector<CommandSpec> const& registered_commands()
{
    return storage();
}

int& command_exit_status()
{
    static int status = 0;
    return status;
}
} // namespace mcdose::app
