//! \file study/MemoryPlan.hh
//! The host and device memory a study's run will need, estimated from its
//! grid and settings before anything is allocated, and the refusal of a study
//! that does not fit (docs/study-reference.md, "Memory").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/Types.hh"
#include "study/StudyInput.hh"

namespace mcdose
{
//! One item of a memory estimate.
struct MemoryItem
{
    std::string what;
    double bytes{0};
};

//! What a run holds at its peak: on the host, and on each GPU it uses.
struct MemoryPlan
{
    std::vector<MemoryItem> host;
    std::vector<MemoryItem> device; //!< per GPU (empty on the CPU backend)
    double host_bytes() const;
    double device_bytes() const;
};

//! How the study will run (resolved backend, GPUs of this process, CPU groups).
struct MemoryPlanInput
{
    size_type voxels{0};
    Backend backend{Backend::cpu};
    size_type gpus{1};
    int cpu_groups{1};
    int ranks{1};
    //! GPU: source particles sampled at once (TransportRunOptions::source_particles_ahead)
    std::uint64_t source_particles_ahead{0};
    //! Particles of one batch piece of a phase-space source (0: none)
    std::uint64_t phase_space_piece{0};
};

MemoryPlan plan_study_memory(StudyInput const& study, MemoryPlanInput const& how);

/*!
 * Batch grids one GPU launch may fill (TransportRunOptions::max_batches_per_launch):
 * on the GPU backend with one GPU on one rank, one grid plus as many more as
 * half the GPU memory the plan leaves free holds, at most the study's batches;
 * 1 otherwise. With Philox a run's results do not depend on it.
 */
std::uint64_t batch_grids_that_fit(StudyInput const& study, MemoryPlanInput const& how,
                                   std::vector<int> const& gpus);

//! Voxels of the study's grid if the study file alone says (shape phantoms).
std::optional<size_type> study_grid_voxels(StudyInput const& study);

//! "12 GB", "0.3 GB", "512 MB": bytes for a message.
std::string format_bytes(double bytes);

//! Bytes from "2G", "512M", "1.5GiB", "4096" (powers of 1024); throws naming `what`.
std::uint64_t parse_memory_size(std::string const& text, std::string const& what);

/*!
 * Refuse (RuntimeError) a study whose plan exceeds the free memory: the host's
 * available memory (MemAvailable) or $MCDOSE_HOST_MEMORY_LIMIT. The message names
 * what is needed, what is free, and what to change.
 */
void check_host_memory(StudyInput const& study, MemoryPlanInput const& how);
//! The same for each of `gpus` (none on the CPU backend): its free memory or
//! $MCDOSE_DEVICE_MEMORY_LIMIT.
void check_gpu_memory(StudyInput const& study, MemoryPlanInput const& how,
                      std::vector<int> const& gpus);
} // namespace mcdose
