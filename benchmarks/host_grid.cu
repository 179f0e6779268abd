//! \file benchmarks/host_grid.cu
//! What it costs the host to receive a grid of N doubles from the GPU: a new
//! std::vector zero-filled on one thread (its pages first touched), a pageable
//! copy from the device into it, the copy again (pages mapped), and a pinned
//! staging buffer with an insert into a reserved vector or a parallel memcpy.
//! The reason for core/HostMemory.hh (docs/history/benchmarks-2026.md). First, what CUDA's
//! start costs a process (device count, properties, the context, free memory),
//! and after the copies the pieces of resize_on_all_cores (pages mapped on all
//! cores, then the vector's fill on one thread; again with transparent huge pages
//! asked for), a grid pinned where it is (cudaHostRegister: the pinning, copies from
//! the GPU straight into it, the unpinning; with either page size) and freeing the
//! device grid. Then what a GPU run's set-up and end cost on the device side: batch
//! grids of N floats each, as one allocation of 1, 16 and up to 100 of them (allocated,
//! zeroed, freed); a phantom of N voxels (2-byte materials, 4-byte densities, in 2 MiB
//! pages) sent to the GPU as VoxelGridParams sends it (core/DeviceMemory.hh's
//! device_copy_to_device_parallel) and, pinned in place, by one copy each; and the release of the
//! device (cudaDeviceReset).
//!
//!   bench_host_grid [N=134217728 (512^3)]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "core/DeviceMemory.hh"
#include "core/HostMemory.hh"

namespace
{
double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

bool ok(cudaError_t e)
{
    if (e != cudaSuccess)
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess;
}
//! Batch grids of n floats: one allocation of `slots` of them, zeroed, freed (the
//! largest count is what half the free memory holds, at most 100).
void batch_grids(std::size_t n)
{
    std::size_t free_b = 0, total_b = 0;
    if (!ok(cudaMemGetInfo(&free_b, &total_b)))
        return;
    std::size_t const most = std::min<std::size_t>(100, free_b / 2 / (n * 4));
    for (std::size_t slots : {std::size_t(1), std::size_t(16), most})
    {
        if (slots == 0 || slots > most)
            continue;
        std::size_t const bytes = slots * n * 4;
        void* p = nullptr;
        double t = now_s();
        if (!ok(cudaMalloc(&p, bytes)))
            return;
        std::printf("%zu batch grids (%.1f GB): allocated %.3f s", slots, bytes * 1e-9,
                    now_s() - t);
        t = now_s();
        ok(cudaMemset(p, 0, bytes));
        ok(cudaDeviceSynchronize());
        std::printf(", zeroed %.3f s", now_s() - t);
        t = now_s();
        ok(cudaFree(p));
        std::printf(", freed %.3f s\n", now_s() - t);
    }
}

//! A phantom's two grids of n voxels to the GPU as VoxelGridParams::device_view sends them
//! (device_copy_to_device_parallel, the allocations included), then the pieces of a copy
//! pinned in place: the pinning, the copy, the unpinning.
void phantom_upload(std::size_t n)
{
    std::vector<std::uint16_t> material;
    std::vector<float> density;
    mcdose::resize_on_all_cores(material, n, std::uint16_t(1), 0, true);
    mcdose::resize_on_all_cores(density, n, 1.0f, 0, true);
    std::size_t const bytes[2] = {n * 2, n * 4};
    void const* host[2] = {material.data(), density.data()};
    for (int round = 0; round < 2; ++round)
    {
        void* dev[2] = {nullptr, nullptr};
        double const t = now_s();
        for (int g = 0; g < 2; ++g)
        {
            if (!ok(cudaMalloc(&dev[g], bytes[g])))
                return;
            mcdose::device_copy_to_device_parallel(dev[g], host[g], bytes[g]);
        }
        std::printf("phantom (%.2f GB) to the GPU (device_copy_to_device_parallel): %.3f s\n",
                    (bytes[0] + bytes[1]) * 1e-9, now_s() - t);
        for (void* p : dev)
            cudaFree(p);
    }
    void* dev[2] = {nullptr, nullptr};
    double t = now_s();
    for (int g = 0; g < 2; ++g)
    {
        if (!ok(cudaMalloc(&dev[g], bytes[g])) ||
            !ok(cudaHostRegister(const_cast<void*>(host[g]), bytes[g], cudaHostRegisterDefault)))
            return;
    }
    std::printf("the same allocated and pinned in place: %.3f s", now_s() - t);
    t = now_s();
    for (int g = 0; g < 2; ++g)
        ok(cudaMemcpy(dev[g], host[g], bytes[g], cudaMemcpyHostToDevice));
    std::printf(", copied %.3f s", now_s() - t);
    t = now_s();
    for (int g = 0; g < 2; ++g)
        ok(cudaHostUnregister(const_cast<void*>(host[g])));
    std::printf(", unpinned %.3f s\n", now_s() - t);
    for (void* p : dev)
        cudaFree(p);
}

//! What CUDA's start costs a process: the device count, its properties, the context and
//! the free memory; false without a GPU.
bool cuda_start()
{
    double t = now_s();
    int count = 0;
    if (!ok(cudaGetDeviceCount(&count)) || count < 1)
        return false;
    std::printf("CUDA start: device count %.3f s", now_s() - t);
    t = now_s();
    cudaDeviceProp prop;
    ok(cudaGetDeviceProperties(&prop, 0));
    std::printf(", properties %.3f s", now_s() - t);
    t = now_s();
    ok(cudaFree(nullptr));
    std::printf(", context %.3f s", now_s() - t);
    t = now_s();
    std::size_t free_b = 0, total_b = 0;
    ok(cudaMemGetInfo(&free_b, &total_b));
    std::printf(", free memory %.3f s (%s)\n", now_s() - t, prop.name);
    return true;
}

//! The device grid `d` of n doubles into a new zero-filled vector by a pageable copy, twice.
void pageable_copies(double const* d, std::size_t n)
{
    double t = now_s();
    std::vector<double> v(n);
    std::printf("vector(n), zero-filled on one thread: %.3f s\n", now_s() - t);
    for (char const* what : {"pageable copy from the GPU into it", "the same copy again"})
    {
        t = now_s();
        ok(cudaMemcpy(v.data(), d, n * 8, cudaMemcpyDeviceToHost));
        std::printf("%s: %.3f s\n", what, now_s() - t);
    }
}

//! The device grid through a pinned staging buffer of `chunk` doubles: inserted into a
//! reserved vector on one thread, then copied by memcpy on all threads into a zero-filled
//! vector; false if the buffer cannot be allocated.
bool pinned_staging(double const* d, std::size_t n, std::size_t chunk)
{
    double* pinned = nullptr;
    if (!ok(cudaMallocHost(&pinned, chunk * 8)))
        return false;
    {
        double const t = now_s();
        std::vector<double> v;
        v.reserve(n);
        for (std::size_t at = 0; at < n; at += chunk)
        {
            std::size_t const m = std::min(chunk, n - at);
            ok(cudaMemcpy(pinned, d + at, m * 8, cudaMemcpyDeviceToHost));
            v.insert(v.end(), pinned, pinned + m);
        }
        std::printf("pinned staging, insert into a reserved vector (one thread): %.3f s\n",
                    now_s() - t);
    }
    {
        std::vector<double> v(n);
        unsigned const threads = std::max(1u, std::thread::hardware_concurrency());
        double const t = now_s();
        for (std::size_t at = 0; at < n; at += chunk)
        {
            std::size_t const m = std::min(chunk, n - at);
            ok(cudaMemcpy(pinned, d + at, m * 8, cudaMemcpyDeviceToHost));
            std::vector<std::thread> team;
            for (unsigned i = 0; i < threads; ++i)
            {
                team.emplace_back(
                    [&, i]
                    {
                        std::size_t const b = m * i / threads, e = m * (i + 1) / threads;
                        std::memcpy(v.data() + at + b, pinned + b, (e - b) * 8);
                    });
            }
            for (auto& th : team)
                th.join();
        }
        std::printf("pinned staging, memcpy on %u threads into a zero-filled vector: %.3f s\n",
                    threads, now_s() - t);
    }
    cudaFreeHost(pinned);
    return true;
}

//! The pieces of resize_on_all_cores: pages mapped on all cores, the fill on one thread, a
//! pageable copy into the vector and its release; then the first two with transparent huge
//! pages asked for (2 MiB pages: 512 faults per GB), twice.
void resize_on_all_cores_pieces(double const* d, std::size_t n)
{
    {
        std::vector<double> v;
        double t = now_s();
        v.reserve(n);
        mcdose::prefault_pages(v.data(), n * 8);
        std::printf("resize_on_all_cores: pages mapped on all cores %.3f s", now_s() - t);
        t = now_s();
        v.assign(n, 0.0);
        std::printf(", then filled on one thread %.3f s", now_s() - t);
        t = now_s();
        ok(cudaMemcpy(v.data(), d, n * 8, cudaMemcpyDeviceToHost));
        std::printf(", pageable copy into it %.3f s", now_s() - t);
        t = now_s();
        std::vector<double>().swap(v);
        std::printf(", freed %.3f s\n", now_s() - t);
    }
    for (int r = 0; r < 2; ++r)
    {
        std::vector<double> v;
        double t = now_s();
        v.reserve(n);
        mcdose::advise_huge_pages(v.data(), n * 8);
        mcdose::prefault_pages(v.data(), n * 8);
        std::printf("with MADV_HUGEPAGE: pages mapped on all cores %.3f s", now_s() - t);
        t = now_s();
        v.assign(n, 0.0);
        std::printf(", then filled on one thread %.3f s\n", now_s() - t);
    }
}

//! A grid made as resize_on_all_cores makes it, then pinned where it is (4 KiB, then huge
//! pages): the GPU copies into it directly, without staging.
void pinned_in_place(double const* d, std::size_t n)
{
    for (bool huge : {false, true})
    {
        std::vector<double> v;
        mcdose::resize_on_all_cores(v, n, 0.0, 0, huge);
        double t = now_s();
        if (!ok(cudaHostRegister(v.data(), n * 8, cudaHostRegisterDefault)))
            continue;
        std::printf("%s pages pinned in place (cudaHostRegister): %.3f s", huge ? "huge" : "4 KiB",
                    now_s() - t);
        for (char const* what : {", copy from the GPU into it", ", again"})
        {
            t = now_s();
            ok(cudaMemcpy(v.data(), d, n * 8, cudaMemcpyDeviceToHost));
            std::printf("%s %.3f s", what, now_s() - t);
        }
        t = now_s();
        ok(cudaHostUnregister(v.data()));
        std::printf(", unpinned %.3f s\n", now_s() - t);
    }
}
} // namespace

int main(int argc, char** argv)
{
    std::size_t const n = std::size_t(argc > 1 ? std::atof(argv[1]) : 134217728.0);
    std::size_t const chunk = std::size_t(32) << 20; // doubles per staging copy: 256 MB
    if (!cuda_start())
        return 1;
    double* d = nullptr;
    if (!ok(cudaMalloc(&d, n * 8)) || !ok(cudaMemset(d, 1, n * 8)) || !ok(cudaDeviceSynchronize()))
        return 1;
    std::printf("%zu doubles (%.2f GB)\n", n, n * 8e-9);
    pageable_copies(d, n);
    if (!pinned_staging(d, n, chunk))
        return 1;
    resize_on_all_cores_pieces(d, n);
    pinned_in_place(d, n);
    double t = now_s();
    cudaFree(d);
    std::printf("device grid freed: %.3f s\n", now_s() - t);
    batch_grids(n);
    phantom_upload(n);
    t = now_s();
    ok(cudaDeviceReset());
    std::printf("device released (cudaDeviceReset): %.3f s\n", now_s() - t);
    return 0;
}
