//! \file app/main.cc
//! The `mcdose` command-line interface: parses the subcommand and reports errors.
//! Commands only; no physics here.
#include <iostream>
#include <new>
#include <system_error>

#include <CLI/CLI.hpp>

#include "app/CommandRegistry.hh"
#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/StopRequest.hh"

namespace
{
//! `mcdose -V`: version, the commit it was built from and the backends it can run.
std::string version_text()
{
    using mcdose::BuildInfo;
    std::string text = std::string("mcdose ") + BuildInfo::version + " (" +
                       BuildInfo::git_describe + ", " + BuildInfo::build_type + " build)\n";
    if (MCDOSE_USE_CUDA)
        text += std::string("backends: CPU and CUDA GPU (") + BuildInfo::cuda_compiler +
                ", architectures " + BuildInfo::cuda_architectures + ")";
    else
        text += "backends: CPU only (built without CUDA)";
    text += std::string("\ncompiler: ") + BuildInfo::cxx_compiler;
    return text;
}
} // namespace

int main(int argc, char** argv)
{
    using namespace mcdose;
    CLI::App cli{"mcdose: GPU Monte Carlo radiation-dose engine (coupled photon-electron-positron "
                 "transport in voxel phantoms)",
                 "mcdose"};
    cli.set_version_flag("-V,--version", version_text());
    app::GlobalOptions global;
    cli.add_flag("-q,--quiet", global.quiet,
                 "Print only errors and the paths of the files written");
    cli.add_flag("-v,--verbose", global.verbose, "Print more: the time each step of a run took");
    cli.require_subcommand(1);
    // Global options are accepted after the subcommand too (`mcdose run x.json -q`): an
    // option a subcommand does not know falls through to here.
    cli.fallthrough();
    cli.footer("Run 'mcdose <command> --help' for the options of a command. A study file's "
               "fields (phantom, structures, materials, sources, physics, rng, tally, run, "
               "backend, cpu_threads, outputs), with units and defaults, are in "
               "docs/study-reference.md and docs/study.schema.json. Bash completion: "
               "source <(mcdose completion bash).");

    for (auto const& cmd : app::registered_commands())
    {
        CLI::App* sub = cli.add_subcommand(cmd.name, cmd.description);
        sub->group(cmd.developer ? "Developer commands (benchmarks and cross-checks of the engine)"
                                 : "Commands");
        cmd.setup(*sub, global);
    }

    // An unknown command gets a clearer message than CLI11's generic one.
    if (argc > 1 && argv[1][0] != '-')
    {
        std::string const name = argv[1];
        std::string known;
        bool found = false;
        for (auto const& cmd : app::registered_commands())
        {
            found = found || cmd.name == name;
            known += (known.empty() ? "" : ", ") + cmd.name;
        }
        if (!found)
        {
            std::cerr << "mcdose: error: unknown command '" << name << "' (commands: " << known
                      << ")\nRun 'mcdose --help' for usage.\n";
            return 2;
        }
    }

    try
    {
        cli.parse(argc, argv);
    }
    catch (CLI::CallForHelp const& e)
    {
        return cli.exit(e);
    }
    catch (CLI::CallForAllHelp const& e)
    {
        return cli.exit(e);
    }
    catch (CLI::CallForVersion const& e)
    {
        return cli.exit(e);
    }
    catch (CLI::ParseError const& e)
    {
        std::cerr << "mcdose: error: " << e.what() << "\n"
                  << "Run 'mcdose --help' for usage.\n";
        return 2;
    }
    catch (StopRequested const& e)
    {
        std::cerr << "mcdose: " << e.what() << '\n';
        return 130; // as for a run stopped by SIGINT
    }
    catch (RuntimeError const& e)
    {
        std::cerr << "mcdose: error: " << e.what() << '\n';
        return 1;
    }
    catch (DebugError const& e)
    {
        std::cerr << "mcdose: " << e.what() << "\nPlease report this bug.\n";
        return 3;
    }
    catch (std::bad_alloc const&)
    {
        std::cerr << "mcdose: error: out of memory: an allocation failed (the grid, the tables or "
                     "the threads' buffers need more memory than this machine or job allows); "
                     "use a coarser grid or fewer threads, or raise the job's memory limit "
                     "(ulimit -v)\n";
        return 1;
    }
    catch (std::system_error const& e)
    {
        std::cerr << "mcdose: error: the system refused a request (" << e.what() << ", "
                  << e.code().message()
                  << "); check the job's limits (ulimit -u for threads, ulimit -v for memory)\n";
        return 1;
    }
    catch (std::exception const& e)
    {
        std::cerr << "mcdose: error: " << e.what() << '\n';
        return 1;
    }
    return app::command_exit_status();
}
