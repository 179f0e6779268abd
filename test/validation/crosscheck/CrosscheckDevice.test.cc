//! \file test/validation/crosscheck/CrosscheckDevice.test.cc
//! The cross-check studies on the GPU (label gpu; skipped without a GPU): the
//! same qualitative results as the CPU tests, and agreement with the host.
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "TestMacros.hh"
#include "validation/crosscheck/gemm/DeviceGemm.hh"
#include "validation/crosscheck/gemm/GemmStudy.hh"
#include "validation/crosscheck/gemm/HostGemm.hh"
#include "validation/crosscheck/gemm/Mgemm.hh"
#include "validation/crosscheck/md/InvSqrtScan.hh"
#include "validation/crosscheck/md/MdStudy.hh"

namespace mcdose::crosscheck::test
{
TEST(CrosscheckDevice, MdMethodsOnTheGpu)
{
    MCDOSE_SKIP_IF_NO_GPU();
    LJCloudOptions co;
    co.num_particles = 4096;
    auto const sys = make_lj_cloud(co);
    MdStudyOptions opts;
    opts.backend = Backend::gpu;
    std::map<AccumMethod, ForceMetrics> m;
    for (auto const& r : run_md_study(sys, "cloud", {ExclusionMode::none}, opts))
    {
        m[r.method] = r.metrics;
        std::cout << to_cstring(r.method) << ": force error " << r.metrics.avg_error
                  << ", accumulation error " << r.metrics.accum_error << ", offset "
                  << r.metrics.offset << ", " << r.interactions_per_s << " interactions/s\n";
    }
    double const floor = m[AccumMethod::B].avg_error;
    for (AccumMethod k : {AccumMethod::C, AccumMethod::E, AccumMethod::F, AccumMethod::H})
    {
        SCOPED_TRACE(to_cstring(k));
        EXPECT_LE(m[k].avg_error, 1.01 * floor);
        EXPECT_GE(m[AccumMethod::A].accum_error, 100 * m[k].accum_error);
    }
    EXPECT_EQ(m[AccumMethod::F].offset, 0.0);
    EXPECT_EQ(m[AccumMethod::H].offset, 0.0);

    // Device and host double-precision references agree to round-off
    // (nvcc may contract multiply-adds into FMAs).
    AccumConfig const config =
        make_accum_config(measure_force_bound_host(sys, ExclusionMode::none));
    ForceRequest const g{AccumMethod::G, ExclusionMode::none, config};
    DeviceLJSystem const dev(sys);
    EXPECT_LE(compare_forces(compute_forces_device(dev, g), compute_forces_host(sys, g)).avg_error,
              1e-12);
}

TEST(CrosscheckDevice, InvSqrtScanIncludingRsqrtf)
{
    MCDOSE_SKIP_IF_NO_GPU();
    // Two full binades (every mantissa path, both exponent parities).
    auto const r = scan_inv_sqrt_device(float_to_bits(1.0f), float_to_bits(4.0f) - 1, 1);
    std::cout << "device: table " << r.max_table << ", 1/sqrtf " << r.max_division << ", rsqrtf "
              << r.max_rsqrtf << '\n';
    EXPECT_LE(r.max_table, inv_sqrt_table_claimed_rel_error);
    EXPECT_LE(r.max_division, 2 * 0x1.0p-24 + 0x1.0p-48);
    // CUDA C Programming Guide: rsqrtf has at most 2 ulp error (ulp <= 2^-23 relative).
    EXPECT_LE(r.max_rsqrtf, 2 * 0x1.0p-23);
    // The host scan of the same inputs gives the same table maxima.
    auto const h = scan_inv_sqrt_host(float_to_bits(1.0f), float_to_bits(4.0f) - 1, 1);
    EXPECT_NEAR(r.max_table, h.max_table, 2 * 0x1.0p-24);
}

TEST(CrosscheckDevice, GemmStudyOnTheGpu)
{
    MCDOSE_SKIP_IF_NO_GPU();
    GemmStudyOptions o;
    o.backend = Backend::gpu;
    o.n = 512;
    o.deltas = {2e4, 1e2, 0.5, 1e-2, 0};
    auto const rs = run_gemm_study(o);
    std::map<GemmMethod, double> err;
    double previous = std::numeric_limits<double>::infinity();
    for (auto const& r : rs)
    {
        std::cout << to_cstring(r.method) << " delta " << r.delta << ": " << r.max_abs_error
                  << " in " << r.seconds << " s\n";
        if (r.method != GemmMethod::mgemm)
        {
            err[r.method] = r.max_abs_error;
            continue;
        }
        EXPECT_TRUE(r.max_abs_error < previous || r.max_abs_error <= 1e-13 * r.max_abs_reference);
        previous = r.max_abs_error;
    }
    EXPECT_GE(err[GemmMethod::tf32], 30 * err[GemmMethod::sgemm]);
    EXPECT_LE(err[GemmMethod::tf32x3], 4 * err[GemmMethod::sgemm]);

    // cuBLAS DGEMM against the host DGEMM.
    TestMatrixOptions mo;
    auto const a = make_test_matrix(256, 256, mo);
    mo.seed += 1;
    auto const b = make_test_matrix(256, 256, mo);
    Matrix<double> host;
    host_gemm(a, b, host);
    auto const [e, scale] = max_abs_error(device_dgemm(a, b, 1, nullptr).values(), host.values());
    EXPECT_LE(e, 1e-13 * scale);

    // Cleaved cuBLAS tiles against one cuBLAS call: same to float round-off.
    MgemmOptions whole;
    whole.delta = 1;
    MgemmOptions cleaved = whole;
    cleaved.memory_budget_bytes = 256 * 1024;
    auto const w = mgemm(a, b, whole, device_sgemm_tile);
    auto const c = mgemm(a, b, cleaved, device_sgemm_tile);
    EXPECT_GT(c.tiles, 4u);
    auto const [ec, sc] = max_abs_error(c.c.values(), w.c.values());
    // Both differ from the exact product by at most gamma_K(float) sum|a||b|
    // over the small parts (|x| <= 1): 2 gamma_256 * 256.
    double const gamma = 256 * 0x1.0p-24 / (1 - 256 * 0x1.0p-24);
    EXPECT_LE(ec, 2 * gamma * 256);
}
} // namespace mcdose::crosscheck::test
