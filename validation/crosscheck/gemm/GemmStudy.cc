//! \file validation/crosscheck/gemm/GemmStudy.cc
#include "GemmStudy.hh"

#include <chrono>
#include <cmath>

#include "DeviceGemm.hh"
#include "HostGemm.hh"
#include "Mgemm.hh"
#include "Tf32.hh"
#include "core/Assert.hh"

namespace mcdose::crosscheck
{
char const* to_cstring(GemmMethod m)
{
    switch (m)
    {
    case GemmMethod::dgemm:
        return "dgemm";
    case GemmMethod::sgemm:
        return "sgemm";
    case GemmMethod::tf32:
        return "tf32";
    case GemmMethod::tf32x3:
        return "tf32x3";
    case GemmMethod::mgemm:
        return "mgemm";
    }
    return "?";
}

std::pair<double, double> max_abs_error(std::vector<double> const& x,
                                        std::vector<double> const& ref)
{
    MCDOSE_EXPECT(x.size() == ref.size());
    double err = 0, scale = 0;
    for (size_type k = 0; k < ref.size(); ++k)
    {
        err = std::max(err, std::abs(x[k] - ref[k]));
        scale = std::max(scale, std::abs(ref[k]));
    }
    return {err, scale};
}

namespace
{
template <class F>
double wall_seconds(F&& f)
{
    auto const t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

std::vector<GemmRecord> run_gemm_study(GemmStudyOptions const& opts)
{
    MCDOSE_VALIDATE(opts.backend == Backend::cpu || opts.backend == Backend::gpu,
                    << "the GEMM study needs backend cpu or gpu (resolve 'auto' first)");
    MCDOSE_VALIDATE(opts.n >= 1, << "'n' must be positive");
    bool const gpu = opts.backend == Backend::gpu;
    TestMatrixOptions mopts = opts.matrix;
    Matrix<double> const a = make_test_matrix(opts.n, opts.n, mopts);
    mopts.seed += 1;
    Matrix<double> const b = make_test_matrix(opts.n, opts.n, mopts);
    Matrix<float> const af = convert_matrix<float>(a), bf = convert_matrix<float>(b);

    std::vector<GemmRecord> records;
    auto record =
        [&](GemmMethod method, Matrix<double> const& c, Matrix<double> const& ref, double seconds)
    {
        GemmRecord r;
        r.method = method;
        r.backend = opts.backend;
        r.matrix = opts.matrix.kind;
        r.n = opts.n;
        std::tie(r.max_abs_error, r.max_abs_reference) = max_abs_error(c.values(), ref.values());
        r.seconds = seconds;
        records.push_back(r);
        return &records.back();
    };

    // Reference: DGEMM of the double matrices (cuBLAS on the GPU).
    Matrix<double> ref;
    DeviceGemmTiming timing;
    double dgemm_seconds = 0;
    if (gpu)
    {
        ref = device_dgemm(a, b, opts.repeats, &timing);
        dgemm_seconds = timing.seconds;
    }
    else
    {
        dgemm_seconds = wall_seconds([&] { host_gemm(a, b, ref, opts.threads); });
    }
    record(GemmMethod::dgemm, ref, ref, dgemm_seconds);

    // Baselines on the float-rounded inputs.
    if (gpu)
    {
        auto const s = device_sgemm(af, bf, false, opts.repeats, &timing);
        record(GemmMethod::sgemm, convert_matrix<double>(s), ref, timing.seconds);
        auto const t = device_sgemm(af, bf, true, opts.repeats, &timing);
        record(GemmMethod::tf32, convert_matrix<double>(t), ref, timing.seconds);
        auto const parts = device_tf32x3(split_tf32(af), split_tf32(bf), opts.repeats, &timing);
        record(GemmMethod::tf32x3, combine_tf32x3(parts.first, parts.second), ref, timing.seconds);
    }
    else
    {
        Matrix<float> s;
        double const ts = wall_seconds([&] { host_gemm(af, bf, s, opts.threads); });
        record(GemmMethod::sgemm, convert_matrix<double>(s), ref, ts);
        Matrix<double> t;
        double const tt = wall_seconds([&] { t = host_tf32_gemm(af, bf, opts.threads); });
        record(GemmMethod::tf32, t, ref, tt);
        double const t3 = wall_seconds([&] { t = host_tf32x3_gemm(af, bf, opts.threads); });
        record(GemmMethod::tf32x3, t, ref, t3);
    }

    // MGEMM over the cutoffs.
    SmallGemm small = gpu ? SmallGemm(device_sgemm_tile)
                          : SmallGemm([&](Matrix<float> const& x, Matrix<float> const& y,
                                          Matrix<float>& z) { host_gemm(x, y, z, opts.threads); });
    for (double delta : opts.deltas)
    {
        MgemmOptions mo;
        mo.delta = delta;
        mo.memory_budget_bytes = opts.memory_budget_bytes;
        mo.threads = opts.threads;
        MgemmResult const m = mgemm(a, b, mo, small);
        auto* r = record(GemmMethod::mgemm, m.c, ref, m.seconds_total);
        r->delta = delta;
        r->large_fraction = double(m.large_a + m.large_b) / double(a.size() + b.size());
        r->tiles = m.tiles;
    }
    for (auto& r : records)
        r.speedup_vs_dgemm = r.seconds > 0 ? dgemm_seconds / r.seconds : 0;
    return records;
}
} // namespace mcdose::crosscheck
