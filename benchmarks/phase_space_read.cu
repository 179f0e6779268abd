//! \file benchmarks/phase_space_read.cu
//! Where a phase-space source's reading spends its time on this host, apart from
//! the transport: the source's pieces read (PhaseSpaceChunks::load, no read-ahead,
//! host memory) with 1, 2, 4, 8, ... reading threads; the same with read-ahead and
//! the pieces copied to the GPU as the run does (each load waits for the read-ahead
//! of the piece it asks for: nothing else runs, so the rate is the reading's own);
//! a piece's copy to the GPU from pageable memory, from pinned memory and staged
//! through pinned blocks (the run's), by one thread and by as many threads as read
//! it; the cost of pinning a piece's memory instead; and, for scale, the
//! host's memory bandwidth (memcpy of a piece's bytes by 1 and by all threads).
//!
//!   bench_phase_space_read FILE.mcpl [PIECE=3000000] [MAX_THREADS=16] [WHAT=all]
//! WHAT: all, or only one way of reading (host, ahead or gpu) with MAX_THREADS threads.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/DeviceMemory.hh"
#include "core/GridGeometry.hh"
#include "sources/PhaseSpaceSource.hh"

namespace
{
using namespace mcdose;

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

//! Run f(k) on `threads` threads (k = 0 .. threads - 1) and return the wall time.
template <class F>
double on_threads(int threads, F&& f)
{
    double const t = now_s();
    std::vector<std::thread> pool;
    for (int k = 1; k < threads; ++k)
        pool.emplace_back([&f, k] { f(k); });
    f(0);
    for (auto& th : pool)
        th.join();
    return now_s() - t;
}

//! Load every whole piece of the file once; particles per second.
double read_rate(PhaseSpaceInput input, GridGeometry const& grid, std::uint64_t piece, int threads,
                 bool read_ahead, bool device)
{
    input.read_threads = threads;
    input.read_ahead = read_ahead;
    PhaseSpaceChunks<float> chunks(input, grid);
    std::uint64_t const pieces = input.scan.transported / piece;
    // Not timed: the first two pieces, whose memory is new (in a run, the second is read
    // while the first batch is transported).
    chunks.load(0, piece, device);
    chunks.load(piece, 2 * piece, device);
    double const t = now_s();
    for (std::uint64_t k = 2; k < pieces; ++k)
        chunks.load(k * piece, (k + 1) * piece, device);
    return double((pieces - 2) * piece) / (now_s() - t);
}

//! The read rates of every way of reading with each number of reading threads `counts`
//! (the GPU's only with a GPU).
void read_rate_table(PhaseSpaceInput const& input, GridGeometry const& grid, std::uint64_t piece,
                     std::vector<int> const& counts, bool gpu)
{
    std::printf("reading threads | host, no read-ahead | host, read-ahead | GPU, read-ahead "
                "[10^7 particles/s]\n");
    for (int t : counts)
    {
        std::printf("%15d | %19.2f | %16.2f | ", t,
                    read_rate(input, grid, piece, t, false, false) / 1e7,
                    read_rate(input, grid, piece, t, true, false) / 1e7);
        if (gpu)
            std::printf("%.2f\n", read_rate(input, grid, piece, t, true, true) / 1e7);
        else
            std::printf("(no GPU)\n");
    }
}

//! The host's memory bandwidth: memcpy of a piece's `bytes` by 1 and by `max_threads`
//! threads (the best of 3).
void host_memcpy_rate(std::vector<char> const& from, std::vector<char>& to, int max_threads)
{
    std::size_t const bytes = from.size();
    for (int t : {1, max_threads})
    {
        double best = 1e30;
        for (int r = 0; r < 3; ++r)
        {
            best = std::min(best, on_threads(t,
                                             [&](int k)
                                             {
                                                 std::size_t const a = bytes * k / t,
                                                                   b = bytes * (k + 1) / t;
                                                 std::memcpy(to.data() + a, from.data() + a, b - a);
                                             }));
        }
        std::printf("host memcpy of a piece, %2d threads: %.1f GB/s\n", t,
                    double(bytes) / best / 1e9);
    }
}

//! How a piece goes to the GPU.
enum class How
{
    pageable,
    pinned,
    staged
};

/*!
 * A piece's copy to the GPU (`dev`) by 1 and by `max_threads` threads, the best of 3: each
 * thread copies its share of the piece on a stream of its own, straight from pageable
 * (`from`) or pinned (`pinned`) memory, or through pinned staging blocks
 * (DeviceUploadStream, blocks of 2^12 single-precision particles, as the source's reading
 * threads do).
 */
void gpu_copy_rates(How how, std::vector<char> const& from, char const* pinned, char* dev,
                    std::uint64_t piece, int max_threads)
{
    std::size_t const bytes = from.size();
    for (int t : {1, max_threads})
    {
        double best = 1e30;
        for (int r = 0; r < 3; ++r)
        {
            best = std::min(
                best, on_threads(t,
                                 [&](int k)
                                 {
                                     std::size_t const a = bytes * k / t, b = bytes * (k + 1) / t;
                                     if (how == How::staged)
                                     {
                                         DeviceUploadStream up(std::size_t(4096) *
                                                               sizeof(Particle<float>));
                                         up.copy(dev + a, from.data() + a, b - a);
                                         up.finish();
                                         return;
                                     }
                                     cudaStream_t s;
                                     cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
                                     char const* src = how == How::pinned ? pinned : from.data();
                                     cudaMemcpyAsync(dev + a, src + a, b - a,
                                                     cudaMemcpyHostToDevice, s);
                                     cudaStreamSynchronize(s);
                                     cudaStreamDestroy(s);
                                 }));
        }
        char const* name = how == How::pageable ? "from pageable memory     "
                           : how == How::pinned ? "from pinned memory       "
                                                : "staged through pinned    ";
        std::printf("copy of a piece to the GPU %s, %2d threads: %5.1f GB/s "
                    "(%6.2f x 10^7 particles/s)\n",
                    name, t, double(bytes) / best / 1e9, double(piece) / best / 1e7);
    }
}

//! The copies of a piece to the GPU (gpu_copy_rates, every way) and the cost of pinning a
//! piece's memory instead; false if the pinned memory cannot be allocated.
bool gpu_copies(std::vector<char> const& from, std::uint64_t piece, int max_threads)
{
    std::size_t const bytes = from.size();
    char* dev = static_cast<char*>(device_allocate(bytes));
    char* pinned = nullptr;
    if (cudaMallocHost(&pinned, bytes) != cudaSuccess)
        return false;
    std::memset(pinned, 1, bytes);
    for (How how : {How::pageable, How::pinned, How::staged})
        gpu_copy_rates(how, from, pinned, dev, piece, max_threads);
    double const t = now_s();
    std::vector<char> staged(bytes);
    std::memcpy(staged.data(), from.data(), bytes);
    cudaHostRegister(staged.data(), bytes, cudaHostRegisterDefault);
    std::printf("registering a piece's memory as pinned (after a memcpy into it): %.3f s\n",
                now_s() - t);
    cudaHostUnregister(staged.data());
    cudaFreeHost(pinned);
    device_free(dev);
    return true;
}
} // namespace

int main(int argc, char** argv)
{
    if (argc < 2)
    {
        std::fprintf(stderr, "usage: %s FILE.mcpl [PIECE] [MAX_THREADS] [all|host|ahead|gpu]\n",
                     argv[0]);
        return 2;
    }
    std::uint64_t const piece = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 3000000;
    int const max_threads = argc > 3 ? std::atoi(argv[3]) : 16;
    std::string const what = argc > 4 ? argv[4] : "all";
    PhaseSpaceInput input;
    input.file = argv[1];
    input.scan = scan_phase_space(input.file, 1e3);
    GridGeometry grid;
    grid.dims = {{20, 20, 20}};
    grid.spacing_cm = {{1, 1, 1}};
    std::printf("%s: %llu particles transported, pieces of %llu (%.1f MB in single precision)\n",
                argv[1], static_cast<unsigned long long>(input.scan.transported),
                static_cast<unsigned long long>(piece),
                double(piece * sizeof(Particle<float>)) / 1e6);
    if (input.scan.transported < 4 * piece)
    {
        std::fprintf(stderr, "the file holds fewer than four pieces\n");
        return 2;
    }
    std::vector<int> counts;
    for (int t = 1; t < max_threads; t *= 2)
        counts.push_back(t);
    counts.push_back(max_threads);

    int gpus = 0;
    bool const gpu = cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0;
    if (what != "all")
    {
        bool const ahead = what != "host", device = what == "gpu";
        std::printf("%s, %d reading threads: %.2f x 10^7 particles/s\n", what.c_str(), max_threads,
                    read_rate(input, grid, piece, max_threads, ahead, device) / 1e7);
        return 0;
    }
    read_rate_table(input, grid, piece, counts, gpu);
    std::size_t const bytes = piece * sizeof(Particle<float>);
    std::vector<char> from(bytes, 1), to(bytes, 0);
    host_memcpy_rate(from, to, max_threads);
    if (!gpu)
        return 0;
    return gpu_copies(from, piece, max_threads) ? 0 : 1;
}
