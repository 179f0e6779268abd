//! \file rng/bench/RngBenchmark.hh
//! Throughput of every generator inside a consuming kernel (each thread draws
//! `words_per_thread` words, converts them to float in (0,1] and sums them, so
//! nothing is optimised away), for a range of thread counts; on the GPU also
//! cuRAND's XORWOW and Philox4_32_10 device API in the same run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/Types.hh"

namespace mcdose
{
struct RngBenchInput
{
    std::vector<size_type> thread_counts;
    size_type words_per_thread{4096};
    int repeats{3}; //!< best of `repeats` timings
    std::uint64_t seed{12345};
};

struct RngBenchRow
{
    std::string generator;
    std::string backend; //!< "gpu" or "cpu"
    size_type threads{0};
    size_type words_per_thread{0};
    bool ran{false};
    std::string note;  //!< why it did not run, or what the timing includes
    double seconds{0}; //!< best time for threads x words_per_thread numbers
    double numbers_per_second{0};
    double state_bytes_per_thread{0}; //!< per-thread state (+ shared ring / N for LFG)
    //! Model (not a measurement) of global-memory bytes moved per number:
    //! per-thread engines load + store their state once per kernel; the lagged
    //! Fibonacci moves 16 B per number (refill reads 8 B, writes 4 B; consumer reads 4 B).
    double model_bytes_per_number{0};
    double checksum{0}; //!< sum of all drawn floats (sanity: about threads*words/2)
};

//! Host version (one CPU thread runs the threads one after another).
std::vector<RngBenchRow> run_rng_benchmark_host(RngBenchInput const& input);

#if MCDOSE_USE_CUDA
//! Device version (current device), including cuRAND XORWOW and Philox.
std::vector<RngBenchRow> run_rng_benchmark_device(RngBenchInput const& input);
#else
inline std::vector<RngBenchRow> run_rng_benchmark_device(RngBenchInput const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif

namespace detail
{
//! Fill the size/model columns for one of our engines.
RngBenchRow make_bench_row(char const* generator, char const* backend, size_type threads,
                           size_type words, double state_bytes_per_thread, bool shared_lfg);
} // namespace detail
} // namespace mcdose
