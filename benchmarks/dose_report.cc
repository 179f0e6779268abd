//! \file benchmarks/dose_report.cc
//! Time of the dose report's steps (the region summary and the body's DVH
//! figures with their uncertainties) on a synthetic dose grid shaped like a
//! short pencil-beam run: a core along the beam with smooth dose, sparse
//! scattered deposits (one each, sigma = dose) on a fraction of the other
//! voxels, zero dose elsewhere; the body is the whole grid (a shape phantom's).
//!
//!   bench_dose_report [N=256] [threads=0 (all)] [scattered fraction=0.02] [repeats=2] [DIR]
//!
//! Prints one line per step and repeat: seconds of wall time, and the figures,
//! so that two builds can be compared on the same machine. With DIR, each repeat
//! also writes the dose and uncertainty images (MetaImage) and the HDF5 dose file
//! there, timed. With MCDOSE_BENCH_NO_TABLE set in the environment the report and the files
//! read the grids without the table of the voxels with energy (dose/DoseData.hh), to compare.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dose/DoseData.hh"
#include "dose/DoseHdf5.hh"
#include "dose/DoseImages.hh"
#include "dose/Dvh.hh"
#include "phantoms/StructureMask.hh"

namespace
{
using namespace mcdose;

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

int main(int argc, char** argv)
{
    int const n = argc > 1 ? std::atoi(argv[1]) : 256;
    int const threads = argc > 2 ? std::atoi(argv[2]) : 0;
    double const scattered = argc > 3 ? std::atof(argv[3]) : 0.02;
    int const repeats = argc > 4 ? std::atoi(argv[4]) : 2;
    std::string const dir = argc > 5 ? argv[5] : "";
    if (n < 8 || threads < 0 || !(scattered >= 0 && scattered <= 1) || repeats < 1)
    {
        std::fprintf(stderr, "usage: bench_dose_report [N>=8] [threads>=0] [fraction in [0,1]] "
                             "[repeats>=1] [DIR]\n");
        return 2;
    }
    GridGeometry g;
    g.dims = {n, n, n};
    g.spacing_cm = {40.0 / n, 40.0 / n, 40.0 / n};
    g.origin_cm = {-20.0, -20.0, 0.0};
    size_type const voxels = g.num_voxels();
    std::vector<double> edep(voxels, 0.0), sigma(voxels, 0.0);
    std::vector<float> rho(voxels, 1.0f);
    std::vector<MaterialIndex> mat(voxels, 0);
    auto const t_fill = std::chrono::steady_clock::now();
    std::mt19937_64 engine(12345);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double const core_cm = 1.0, range_cm = 10.0;
    for (int k = 0; k < n; ++k)
    {
        double const z = (k + 0.5) * g.spacing_cm[2];
        for (int j = 0; j < n; ++j)
        {
            double const y = g.origin_cm[1] + (j + 0.5) * g.spacing_cm[1];
            for (int i = 0; i < n; ++i)
            {
                double const x = g.origin_cm[0] + (i + 0.5) * g.spacing_cm[0];
                size_type const v = i + size_type(n) * (j + size_type(n) * k);
                double const r2 = x * x + y * y;
                if (r2 < 9 * core_cm * core_cm && z < range_cm)
                {
                    edep[v] = std::exp(-r2 / (2 * core_cm * core_cm)) * (1 - z / range_cm) + 1e-3;
                    sigma[v] = edep[v] * (0.01 + 0.2 * (1 - std::exp(-r2)));
                }
                else if (u(engine) < scattered)
                {
                    edep[v] = 1e-3 * u(engine);
                    sigma[v] = edep[v];
                }
            }
        }
    }
    std::printf("grid %d^3 (%zu voxels), scattered fraction %g, threads %d, filled in %.2f s\n", n,
                std::size_t(voxels), scattered, threads, seconds_since(t_fill));
    DoseGridData data =
        dose_grid_view(g, make_span(std::as_const(edep)), make_span(std::as_const(sigma)),
                       make_span(std::as_const(rho)), make_span(std::as_const(mat)));
    // As a run's dose report: with the mask of the voxels with energy.
    auto const t_mask = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> const mask = energy_mask(data.edep_MeV);
    data.has_energy = make_span(mask);
    std::printf("energy mask in %.3f s\n", seconds_since(t_mask));
    // and the table of its voxels' doses, unless MCDOSE_BENCH_NO_TABLE is set (to compare)
    auto const t_table = std::chrono::steady_clock::now();
    EnergyVoxelTable table;
    if (!std::getenv("MCDOSE_BENCH_NO_TABLE"))
        table = energy_voxel_table(data, threads);
    data.energy_table = table.if_made();
    std::printf("voxel table (%zu voxels) in %.3f s\n", table.dose.size(), seconds_since(t_table));
    StructureMask const body = whole_grid(g);
    for (int r = 0; r < repeats; ++r)
    {
        auto t0 = std::chrono::steady_clock::now();
        RegionSummary const s = summarize_region(data, body, 0.05, 0.5, threads);
        double const t_summary = seconds_since(t0);
        t0 = std::chrono::steady_clock::now();
        DvhFigures const f = structure_dvh(body, data, 1.0, {1e-12, 1e-10}, threads);
        double const t_dvh = seconds_since(t0);
        std::printf("repeat %d: summary %.3f s, body DVH %.3f s; D0.03cc %.6g, mean rel %.6g, "
                    "D98 %.6g +- %.3g, D50 %.6g +- %.3g, D2 %.6g +- %.3g, Dmean %.6g +- %.3g\n",
                    r, t_summary, t_dvh, s.near_max, s.mean_relative, f.d98.value, f.d98.sigma,
                    f.d50.value, f.d50.sigma, f.d2.value, f.d2.sigma, f.d_mean.value,
                    f.d_mean.sigma);
        if (!dir.empty())
        {
            t0 = std::chrono::steady_clock::now();
            write_dose_images(dir + "/bench", "mha", data, std::nullopt);
            std::printf("repeat %d: images %.3f s\n", r, seconds_since(t0));
            t0 = std::chrono::steady_clock::now();
            RunMetadata meta;
            meta.version = "bench_dose_report";
            write_dose_hdf5(dir + "/bench.h5", data, meta);
            std::printf("repeat %d: HDF5 %.3f s\n", r, seconds_since(t0));
        }
    }
    return 0;
}
