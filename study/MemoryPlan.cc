//! \file study/MemoryPlan.cc
#include "study/MemoryPlan.hh"
#include "study/StudyChecks.hh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "core/Assert.hh"
#include "core/Device.hh"
#include "core/Particle.hh"
#include "sources/PhaseSpaceSource.hh"
#include "study/PhaseSpaceOutput.hh"

namespace mcdose
{
namespace
{
// Bytes per voxel of what the run keeps (the sources: phantoms/VoxelGrid.hh,
// tally/DoseTally.hh, transport/engine/TransportDriver.cc, study/RunFinish.cc, dose/).
constexpr double phantom_bytes = 2 + 4; // material index (uint16) + density (float)
constexpr double totals_bytes = 3 * 8;  // double-double total + sum of squares
constexpr double result_bytes = 2 * 8;  // energy and sigma grids (double)
// From the GPU: the mask of the voxels with energy and a count per mask word (8 bytes per
// 64 voxels each) beside their values (at most the two grids).
constexpr double result_mask_bytes = 2 * 8.0 / 64;
constexpr double history_bytes = 2 * 8; // history squares of the batch and the run (uint64)
// The table of the voxels with energy (dose/DoseData.hh EnergyVoxelTable), made where at most
// 1/16 of the voxels have energy: 16 bytes each and 4 per mask word.
constexpr double energy_table_bytes = 16.0 / 16 + 4.0 / 64;
// NRRD and NIfTI (ITK): one float image buffer (reused) and the image read back to check
// it. A MetaImage is filled and written piece by piece: nothing per voxel.
constexpr double itk_image_bytes = 4 + 4;
constexpr double host_fixed_bytes = 256e6; // tables, program, small buffers
constexpr double device_fixed_bytes = 1e9; // tables, RNG states, secondary stacks

double word_bytes(TallyMethod m)
{
    return m == TallyMethod::fa ? 4 : 8;
}

double sum_bytes(std::vector<MemoryItem> const& items)
{
    double sum = 0;
    for (auto const& i : items)
        sum += i.bytes;
    return sum;
}

//! Free host memory: $MCDOSE_HOST_MEMORY_LIMIT, else MemAvailable of /proc/meminfo.
std::optional<double> host_free_bytes()
{
    if (char const* env = std::getenv("MCDOSE_HOST_MEMORY_LIMIT"))
        return double(parse_memory_size(env, "MCDOSE_HOST_MEMORY_LIMIT"));
    std::ifstream in("/proc/meminfo");
    std::string key;
    double value_kb = 0;
    std::string unit;
    while (in >> key >> value_kb >> unit)
    {
        if (key == "MemAvailable:")
            return value_kb * 1024;
    }
    return std::nullopt;
}

std::optional<double> gpu_free_bytes(int gpu)
{
    if (char const* env = std::getenv("MCDOSE_DEVICE_MEMORY_LIMIT"))
        return double(parse_memory_size(env, "MCDOSE_DEVICE_MEMORY_LIMIT"));
    return double(device_free_bytes(gpu));
}

std::string describe(std::vector<MemoryItem> const& items)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < items.size(); ++i)
        os << (i ? ", " : "") << items[i].what << " " << format_bytes(items[i].bytes);
    return os.str();
}

//! What to change, for a grid of `voxels` that needs `need` of `free` bytes.
std::string coarser_grid(size_type voxels, double need, double free)
{
    std::ostringstream os;
    double const factor = std::cbrt(std::max(1.0, need / std::max(free, 1.0)));
    os << "use a coarser grid (voxels about " << std::fixed << std::setprecision(2) << factor
       << " times larger along each axis: under "
       << size_type(double(voxels) / (factor * factor * factor)) << " voxels)";
    return os.str();
}
} // namespace

double MemoryPlan::host_bytes() const
{
    return sum_bytes(host);
}

double MemoryPlan::device_bytes() const
{
    return sum_bytes(device);
}

std::optional<size_type> study_grid_voxels(StudyInput const& study)
{
    if (study.phantom.kind != PhantomKind::shapes)
        return std::nullopt;
    auto const& d = study.phantom.shapes.dims;
    return size_type(std::max(d[0], 0)) * size_type(std::max(d[1], 0)) *
           size_type(std::max(d[2], 0));
}

MemoryPlan plan_study_memory(StudyInput const& study, MemoryPlanInput const& how)
{
    double const n = double(how.voxels);
    double const w = word_bytes(study.tally.method);
    bool const gpu = how.backend == Backend::gpu;
    size_type const groups =
        gpu ? std::max<size_type>(1, how.gpus) : size_type(std::max(1, how.cpu_groups));
    bool const in_place = groups == 1 && how.ranks == 1; // the fold stays where the grid is
    MemoryPlan plan;
    plan.host.push_back({"phantom", phantom_bytes * n * (gpu ? double(groups) : 1.0)});
    if (!gpu)
        plan.host.push_back({"batch grids", w * n * double(groups)});
    if (in_place && !gpu)
        plan.host.push_back({"running totals", totals_bytes * n});
    if (!gpu && uses_history_uncertainty(study, how.backend))
    {
        // Each group's tally; else also the groups' copies, their sum and the host tally's.
        double const per_voxel =
            in_place ? history_bytes : (history_bytes + 8) * (double(groups) + 1);
        plan.host.push_back({"history-by-history squares", per_voxel * n});
    }
    if (!in_place)
        plan.host.push_back({"batch copies, reduction and running totals",
                             (8 * double(groups) + 8 + totals_bytes) * n});
    plan.host.push_back({"energy and uncertainty grids", result_bytes * n});
    plan.host.push_back({"table of the voxels with energy", energy_table_bytes * n});
    if (study.outputs.image_format != ImageFormat::none &&
        study.outputs.image_format != ImageFormat::mha)
        plan.host.push_back({"image buffer and read-back check", itk_image_bytes * n});
    plan.host.push_back({"tables and buffers", host_fixed_bytes});
    PhaseSpaceMemory phase_space;
    if (SourceInput const* ps = phase_space_source(study); ps && how.phase_space_piece > 0)
    {
        phase_space = phase_space_memory(*ps->phase_space, how.phase_space_piece,
                                         study.physics.precision, gpu);
        plan.host.push_back({"phase-space particles", phase_space.host_bytes * double(groups)});
    }
    if (gpu)
    {
        plan.device.push_back({"phantom", phantom_bytes * n});
        plan.device.push_back({"batch grid", w * n});
        if (in_place)
            plan.device.push_back({"running totals and final grids",
                                   (totals_bytes + result_bytes + result_mask_bytes) * n});
        plan.device.push_back({"tables, RNG states and stacks", device_fixed_bytes});
        if (phase_space.device_bytes > 0)
            plan.device.push_back({"phase-space particles", phase_space.device_bytes});
        if (how.source_particles_ahead)
        {
            double const particle = study.physics.precision == Precision::single_
                                        ? sizeof(Particle<float>)
                                        : sizeof(Particle<double>);
            plan.device.push_back(
                {"source particles sampled ahead",
                 double(how.source_particles_ahead) * (particle + sizeof(std::uint32_t))});
        }
    }
    return plan;
}

std::string format_bytes(double bytes)
{
    std::ostringstream os;
    os << std::setprecision(3);
    if (bytes >= 1e9)
        os << bytes / 1e9 << " GB";
    else
        os << bytes / 1e6 << " MB";
    return os.str();
}

std::uint64_t parse_memory_size(std::string const& text, std::string const& what)
{
    std::size_t used = 0;
    double value = -1;
    try
    {
        value = std::stod(text, &used);
    }
    catch (std::exception const&)
    {
        used = 0;
    }
    std::string unit = text.substr(used);
    double scale = 0;
    if (unit.empty() || unit == "B")
        scale = 1;
    else if (unit == "K" || unit == "KB" || unit == "KiB")
        scale = 1024.0;
    else if (unit == "M" || unit == "MB" || unit == "MiB")
        scale = 1024.0 * 1024;
    else if (unit == "G" || unit == "GB" || unit == "GiB")
        scale = 1024.0 * 1024 * 1024;
    else if (unit == "T" || unit == "TB" || unit == "TiB")
        scale = 1024.0 * 1024 * 1024 * 1024;
    MCDOSE_VALIDATE(used > 0 && value >= 0 && scale > 0,
                    << what << "='" << text
                    << "' is not a memory size; use bytes or a number with K, M, G or T "
                       "(e.g. 512M, 2G)");
    return static_cast<std::uint64_t>(value * scale);
}

std::uint64_t batch_grids_that_fit(StudyInput const& study, MemoryPlanInput const& how,
                                   std::vector<int> const& gpus)
{
    if (how.backend != Backend::gpu || gpus.size() != 1 || how.ranks != 1 || how.voxels == 0)
        return 1;
    auto const free = gpu_free_bytes(gpus.front());
    if (!free)
        return 1;
    double const spare = *free - plan_study_memory(study, how).device_bytes();
    double const grid = word_bytes(study.tally.method) * double(how.voxels);
    double const more = std::floor(0.5 * std::max(0.0, spare) / grid);
    int const batches = study.tally.run_batches(false); // a GPU: the batch method
    return std::uint64_t(std::min(double(batches), 1 + more));
}

void check_host_memory(StudyInput const& study, MemoryPlanInput const& how)
{
    auto const free = host_free_bytes();
    if (!free)
        return;
    MemoryPlan const plan = plan_study_memory(study, how);
    MCDOSE_VALIDATE(plan.host_bytes() <= *free,
                    << "the study needs about " << format_bytes(plan.host_bytes())
                    << " of host memory for " << how.voxels << " voxels (" << describe(plan.host)
                    << ") but " << format_bytes(*free) << " is free; "
                    << coarser_grid(how.voxels, plan.host_bytes(), *free)
                    << (study.outputs.image_format == ImageFormat::nrrd ||
                                study.outputs.image_format == ImageFormat::nii
                            ? ", or write the images as MetaImage (\"image_format\": "
                              "\"mha\": no whole-grid buffer)"
                            : "")
                    << (how.backend == Backend::cpu && uses_history_uncertainty(study, how.backend)
                            ? ", or take the batch uncertainty (\"tally\": {\"uncertainty\": "
                              "\"batch\"}: no history-by-history squares)"
                            : ""));
}

void check_gpu_memory(StudyInput const& study, MemoryPlanInput const& how,
                      std::vector<int> const& gpus)
{
    if (gpus.empty())
        return;
    MemoryPlan const plan = plan_study_memory(study, how);
    for (int g : gpus)
    {
        auto const free = gpu_free_bytes(g);
        MCDOSE_VALIDATE(!free || plan.device_bytes() <= *free,
                        << "the study needs about " << format_bytes(plan.device_bytes())
                        << " of memory on GPU " << g << " for " << how.voxels << " voxels ("
                        << describe(plan.device) << ") but " << format_bytes(*free) << " is free; "
                        << coarser_grid(how.voxels, plan.device_bytes(), *free)
                        << ", or free the GPU of other work");
    }
}
} // namespace mcdose
