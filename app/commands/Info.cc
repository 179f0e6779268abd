//! \file app/commands/Info.cc
//! `mcdose info`: build options and each GPU, or why the CPU backend will be used.
#include <iomanip>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "core/Config.hh"
#include "core/Device.hh"
#include "core/KernelImage.hh"
#include "io/McplFile.hh"

namespace mcdose::app
{
namespace
{
//! Whether this build runs on a GPU: the compatibility rule, confirmed by the CUDA
//! runtime (which decides if the two ever disagree).
KernelImageChoice runs_on(DeviceInfo const& d)
{
    auto choice = choose_kernel_image(parse_cuda_architectures(BuildInfo::cuda_architectures),
                                      d.cc_major, d.cc_minor);
    std::string const problem = device_code_problem(d.index);
    if (!problem.empty())
        return {false, problem};
    if (!choice.runs)
        choice = {true, "the CUDA runtime finds code for it"};
    return choice;
}

std::string architectures_built()
{
    auto const archs = parse_cuda_architectures(BuildInfo::cuda_architectures);
    return archs.empty() ? std::string(BuildInfo::cuda_architectures)
                         : describe_cuda_architectures(archs);
}

nlohmann::json info_json()
{
    nlohmann::json j;
    j["version"] = BuildInfo::version;
    j["git"] = BuildInfo::git_describe;
    j["build_type"] = BuildInfo::build_type;
    j["cxx_compiler"] = BuildInfo::cxx_compiler;
    j["cuda"] = bool(MCDOSE_USE_CUDA);
    j["cuda_compiler"] = BuildInfo::cuda_compiler;
    j["cuda_architectures"] = BuildInfo::cuda_architectures;
    j["cuda_code"] = MCDOSE_USE_CUDA ? architectures_built() : std::string();
    j["debug_checks"] = bool(MCDOSE_DEBUG);
    j["mpi"] = bool(MCDOSE_USE_MPI);
    j["mcpl"] = mcpl_available();
    if (mcpl_available())
        j["mcpl_version"] = mcpl_version();
    j["cpu_threads"] = std::thread::hardware_concurrency();
    j["gpus"] = nlohmann::json::array();
    for (auto const& d : device_infos())
    {
        j["gpus"].push_back(
            {{"index", d.index},
             {"name", d.name},
             {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
             {"multiprocessors", d.multiprocessors},
             {"memory_bytes", d.global_memory_bytes},
             {"l2_cache_bytes", d.l2_cache_bytes}});
        auto const choice = runs_on(d);
        j["gpus"].back()["runs_this_build"] = choice.runs;
        j["gpus"].back()["code"] = choice.how;
    }
    if (j["gpus"].empty())
        j["no_gpu_reason"] = no_device_reason();
    return j;
}

void print_info(bool as_json)
{
    auto const j = info_json();
    if (as_json)
    {
        std::cout << j.dump(2) << '\n';
        return;
    }
    std::cout << "mcdose " << BuildInfo::version << " (" << BuildInfo::git_describe << ")\n"
              << "  build type     : " << BuildInfo::build_type << '\n'
              << "  C++ compiler   : " << BuildInfo::cxx_compiler << '\n';
    if (MCDOSE_USE_CUDA)
    {
        std::cout << "  CUDA           : ON (" << BuildInfo::cuda_compiler << ")\n"
                  << "  GPU code       : " << architectures_built()
                  << " (CMAKE_CUDA_ARCHITECTURES=" << BuildInfo::cuda_architectures << ")\n";
    }
    else
    {
        std::cout << "  CUDA           : OFF (CPU-only build)\n";
    }
    std::cout << "  debug checks   : " << (MCDOSE_DEBUG ? "ON" : "OFF") << '\n'
              << "  MPI            : " << (MCDOSE_USE_MPI ? "ON" : "OFF") << '\n'
              << "  MCPL           : "
              << (mcpl_available() ? "ON (libmcpl " + mcpl_version() + ", phase-space files)"
                                   : std::string("OFF (no phase-space files; rebuild with "
                                                 "libmcpl-dev and -DMCDOSE_USE_MCPL=ON)"))
              << '\n'
              << "  CPU threads    : " << std::thread::hardware_concurrency() << '\n';
    auto const devices = device_infos();
    if (devices.empty())
    {
        std::cout << "GPUs: none (" << no_device_reason() << "); the CPU backend will be used\n";
        return;
    }
    std::cout << "GPUs: " << devices.size() << '\n';
    for (auto const& d : devices)
    {
        std::cout << "  [" << d.index << "] " << d.name << ": compute capability " << d.cc_major
                  << '.' << d.cc_minor << ", " << d.multiprocessors << " SMs, " << std::fixed
                  << std::setprecision(1) << d.global_memory_bytes / double(1 << 30)
                  << " GiB memory, " << d.l2_cache_bytes / double(1 << 20) << " MiB L2\n";
        auto const choice = runs_on(d);
        if (choice.runs)
            std::cout << "      runs this build: yes (" << choice.how << ")\n";
        else
            std::cout << "      runs this build: NO: " << choice.how << '\n';
    }
}

bool const registered = register_command(
    {"info", "Print the build options and each GPU (or that the CPU backend will be used)",
     [](CLI::App& sub, GlobalOptions const&)
     {
         auto as_json = std::make_shared<bool>(false);
         sub.add_flag("--json", *as_json, "Print as JSON");
         sub.callback([as_json] { print_info(*as_json); });
     }});
} // namespace
} // namespace mcdose::app
