//! \file core/KernelImage.cc
#include "core/KernelImage.hh"

#include <sstream>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/Device.hh"
#include "core/DeviceCall.hh"
#if MCDOSE_USE_CUDA
#    include "core/ArchProbe.hh"
#endif

#ifndef MCDOSE_DEFAULT_CUDA_ARCHITECTURES
#    define MCDOSE_DEFAULT_CUDA_ARCHITECTURES "80-real,86-real,89-real,90-real,100-real,120"
#endif

namespace mcdose
{
namespace
{
std::string sm(int number)
{
    return "sm_" + std::to_string(number);
}

//! The default build's list as CMake takes it ("80-real;86-real;...").
std::string default_architectures()
{
    std::string s = MCDOSE_DEFAULT_CUDA_ARCHITECTURES;
    for (char& c : s)
        c = c == ',' ? ';' : c;
    return s;
}
} // namespace

std::vector<CudaArchitecture> parse_cuda_architectures(std::string const& list)
{
    std::vector<CudaArchitecture> result;
    std::string item;
    std::istringstream is(list);
    while (std::getline(is, item, ';'))
    {
        std::istringstream parts(item);
        std::string entry;
        while (std::getline(parts, entry, ','))
        {
            if (entry.empty())
                continue;
            if (entry == "native" || entry == "all" || entry == "all-major")
                return {};
            CudaArchitecture a;
            std::size_t used = 0;
            try
            {
                a.number = std::stoi(entry, &used);
            }
            catch (std::exception const&)
            {
                used = 0;
            }
            std::string const suffix = entry.substr(used);
            MCDOSE_VALIDATE(used > 0 && a.number >= 10 &&
                                (suffix.empty() || suffix == "-real" || suffix == "-virtual"),
                            << "CUDA architecture '" << entry << "' in '" << list
                            << "' is not of the form 86, 86-real or 86-virtual");
            a.sass = suffix != "-virtual";
            a.ptx = suffix != "-real";
            result.push_back(a);
        }
    }
    return result;
}

std::string describe_cuda_architectures(std::vector<CudaArchitecture> const& archs)
{
    std::string s;
    auto add = [&s](std::string const& x) { s += (s.empty() ? "" : ", ") + x; };
    for (auto const& a : archs)
    {
        if (a.sass)
            add(sm(a.number));
    }
    for (auto const& a : archs)
    {
        if (a.ptx)
            add("compute_" + std::to_string(a.number) + " (PTX)");
    }
    return s.empty() ? "none" : s;
}

KernelImageChoice choose_kernel_image(std::vector<CudaArchitecture> const& archs, int major,
                                      int minor)
{
    int const cc = 10 * major + minor;
    // Prefer exact SASS, then the newest compatible SASS of the same major, then PTX.
    int best_sass = -1;
    for (auto const& a : archs)
    {
        if (a.sass && a.number / 10 == major && a.number <= cc && a.number > best_sass)
            best_sass = a.number;
    }
    if (best_sass == cc)
        return {true, sm(cc) + " code"};
    if (best_sass > 0)
        return {true, sm(best_sass) + " code (binary-compatible)"};
    int best_ptx = -1;
    for (auto const& a : archs)
    {
        if (a.ptx && a.number <= cc && a.number > best_ptx)
            best_ptx = a.number;
    }
    if (best_ptx > 0)
        return {true, "compute_" + std::to_string(best_ptx) +
                          " PTX, compiled by the driver at first use (cached)"};
    return {false, "no code for " + sm(cc) + " and no PTX it can compile"};
}

std::string no_kernel_image_message(int device, std::string const& name, int major, int minor,
                                    std::string const& architectures)
{
    std::ostringstream os;
    os << "GPU " << device << " (" << name << ", compute capability " << major << '.' << minor
       << ") cannot run this build of mcdose: its GPU code was built for "
       << describe_cuda_architectures(parse_cuda_architectures(architectures))
       << " (CMAKE_CUDA_ARCHITECTURES=" << architectures << "), which holds no "
       << sm(10 * major + minor)
       << " code and no PTX that this GPU can compile. Rebuild with "
          "-DCMAKE_CUDA_ARCHITECTURES=native (the build machine's GPUs), ="
       << 10 * major + minor << " (this GPU), or the default list \"" << default_architectures()
       << "\" (Ampere to Blackwell), e.g. cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=native; "
          "or run on the CPU with --backend cpu";
    return os.str();
}

#if MCDOSE_USE_CUDA
std::string kernel_image_problem(void const* kernel, int device, std::string const& architectures)
{
    activate_device(device);
    cudaFuncAttributes attr{};
    cudaError_t const err = cudaFuncGetAttributes(&attr, kernel);
    if (err == cudaSuccess)
        return {};
    cudaGetLastError(); // not sticky; clear it so later calls are unaffected
    cudaDeviceProp prop{};
    MCDOSE_CUDA_CALL(cudaGetDeviceProperties(&prop, device));
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction ||
        err == cudaErrorUnsupportedPtxVersion || err == cudaErrorInvalidPtx)
    {
        std::string msg =
            no_kernel_image_message(device, prop.name, prop.major, prop.minor, architectures);
        if (err == cudaErrorUnsupportedPtxVersion)
            msg += " (the driver is older than the CUDA toolkit that made the PTX: update the "
                   "NVIDIA driver, or rebuild for this GPU)";
        return msg;
    }
    return std::string("GPU ") + std::to_string(device) + " (" + prop.name +
           "): the CUDA runtime cannot load mcdose's GPU code (" + cudaGetErrorString(err) +
           "); check the NVIDIA driver, or run on the CPU with --backend cpu";
}

std::string device_code_problem(int device)
{
    return kernel_image_problem(arch_probe_kernel_address(), device, BuildInfo::cuda_architectures);
}
#else
std::string kernel_image_problem(void const*, int, std::string const&)
{
    return "mcdose was built without CUDA";
}

std::string device_code_problem(int)
{
    return "mcdose was built without CUDA";
}
#endif

void require_device_code(int device)
{
    std::string const problem = device_code_problem(device);
    MCDOSE_VALIDATE(problem.empty(), << problem);
}
} // namespace mcdose
