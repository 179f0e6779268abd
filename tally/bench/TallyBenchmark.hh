//! \file tally/bench/TallyBenchmark.hh
//! Drivers of the tally-only benchmark (`mcdose tally-bench`) and of the
//! tally tests: run one method on the host (std::threads) or the device (one
//! kernel launch), and the exact integer reference.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/Types.hh"
#include "tally/TallyMethod.hh"
#include "tally/bench/BenchDeposits.hh"

namespace mcdose
{
//! A kernel launch shape; blocks == 0 means "full occupancy": as many
//! resident blocks of threads_per_block as the device holds for the kernel.
struct LaunchShape
{
    unsigned blocks{1024};
    unsigned threads_per_block{64};
};
//! The launch of Liu et al. 2018 (ARCHER, 1024 x 64; named "seed" on the
//! command line, for the paper, not an RNG seed) and a full-occupancy grid of
//! 256-thread blocks.
inline LaunchShape archer_launch()
{
    return {1024, 64};
}
inline LaunchShape full_occupancy_launch()
{
    return {0, 256};
}

//! How the CPU backend splits the work: threads grab chunks of particles
//! from a shared atomic counter (so the order of the adds varies run to run).
struct HostShape
{
    unsigned threads{1};
    std::uint64_t chunk{4096};
};

//! One method run on one problem.
struct BenchRun
{
    double time_s{0};                 //!< kernel (GPU) or threaded loop (CPU) wall time
    unsigned blocks{0};               //!< GPU blocks actually launched (0 on CPU)
    unsigned threads_per_block{0};    //!< GPU threads per block, or CPU threads
    std::vector<std::uint64_t> words; //!< raw batch grid (bitwise comparisons)
    std::vector<double> energy_MeV;   //!< per bin
};

//! Seeded Philox parameters used by all benchmark drivers.
struct BenchSeed
{
    std::uint64_t seed{20181108};
};

//! Exact per-bin sums in units of 2^-22 MeV (serial host loop; small problems).
std::vector<std::uint64_t> bench_reference_bins(BenchProblem const& problem, BenchSeed seed);
//! Exact total in units of 2^-22 MeV, by an integer path on the host threads.
std::uint64_t bench_reference_total_host(BenchProblem const& problem, BenchSeed seed,
                                         unsigned threads);

BenchRun run_bench_host(TallyMethod method, BenchProblem const& problem, BenchSeed seed,
                        HostShape shape);

#if MCDOSE_USE_CUDA
BenchRun run_bench_device(TallyMethod method, BenchProblem const& problem, BenchSeed seed,
                          LaunchShape shape);
std::uint64_t bench_reference_total_device(BenchProblem const& problem, BenchSeed seed,
                                           LaunchShape shape);
//! Exact per-bin sums on the device (integer atomics; for tests: the device's
//! logf may round a few deposits differently from the host's).
std::vector<std::uint64_t> bench_reference_bins_device(BenchProblem const& problem, BenchSeed seed,
                                                       LaunchShape shape);
#else
inline BenchRun run_bench_device(TallyMethod, BenchProblem const&, BenchSeed, LaunchShape)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline std::uint64_t bench_reference_total_device(BenchProblem const&, BenchSeed, LaunchShape)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline std::vector<std::uint64_t> bench_reference_bins_device(BenchProblem const&, BenchSeed,
                                                              LaunchShape)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif

//---------------------------------------------------------------------------//
// The `tally-bench` sweep
//---------------------------------------------------------------------------//
struct TallyBenchInput
{
    Backend backend{Backend::cpu}; //!< cpu or gpu
    std::vector<std::uint64_t> particles{10000000};
    std::vector<size_type> bins{8};
    std::vector<TallyMethod> methods;
    unsigned cpu_threads{1};
    //! GPU: "seed" (archer_launch) and/or "full"
    std::vector<std::string> launches{"seed", "full"};
    BenchSeed seed;
};

//! One row of the table / one JSON record.
struct TallyBenchRecord
{
    std::string method;
    std::string backend;
    std::string launch; //!< "seed", "full" (GPU) or "threads" (CPU)
    unsigned blocks{0};
    unsigned threads{0};
    std::uint64_t particles{0};
    size_type bins{0};
    std::uint64_t deposits{0};
    double time_s{0};
    double deposits_per_s{0};
    double total_MeV{0};
    double reference_MeV{0};
    double rel_error{0};      //!< (total - reference) / reference
    std::string words_digest; //!< FNV-1a of the raw grid: equal digests = bitwise equal
};

//! Run every (particles, bins, launch, method) combination.
//! Run every (particles, bins, launch, method) combination; `on_record` (if
//! set) sees each record as soon as it is measured (progress on long runs).
std::vector<TallyBenchRecord>
run_tally_benchmark(TallyBenchInput const& input,
                    std::function<void(TallyBenchRecord const&)> const& on_record = {});

//! 64-bit FNV-1a digest of a word array, as 16 hex digits.
std::string digest_words(std::vector<std::uint64_t> const& words);
} // namespace mcdose
