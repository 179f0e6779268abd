//! \file test/RunCommand.hh
//! Run a shell command from a test and capture what a user would see.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace mcdose::test
{
struct CommandResult
{
    int exit_code{-1};
    std::string output; //!< stdout and stderr together
};

//! Run `command` through the shell, capturing stdout+stderr.
inline CommandResult run_command(std::string const& command)
{
    CommandResult result;
    std::string const full = command + " 2>&1";
    FILE* pipe = popen(full.c_str(), "r");
    if (!pipe)
        return result;
    std::array<char, 4096> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
        result.output.append(buf.data(), n);
    int const status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}
} // namespace mcdose::test
