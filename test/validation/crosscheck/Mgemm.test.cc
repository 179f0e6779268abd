//! \file test/validation/crosscheck/Mgemm.test.cc
//! CPU versions of the mixed-precision GEMM study (small sizes).
#include <cmath>

#include <gtest/gtest.h>

#include "validation/crosscheck/gemm/GemmStudy.hh"
#include "validation/crosscheck/gemm/HostGemm.hh"
#include "validation/crosscheck/gemm/Mgemm.hh"
#include "validation/crosscheck/gemm/Tf32.hh"

namespace mcdose::crosscheck::test
{
namespace
{
SmallGemm host_small()
{
    return [](Matrix<float> const& a, Matrix<float> const& b, Matrix<float>& c)
    { host_gemm(a, b, c); };
}

GemmRecord const& find(std::vector<GemmRecord> const& rs, GemmMethod m, double delta = -1)
{
    for (auto const& r : rs)
        if (r.method == m && r.delta == delta)
            return r;
    ADD_FAILURE() << "no record for " << to_cstring(m) << " delta " << delta;
    return rs.front();
}
} // namespace

TEST(Tf32, RoundingAndErrorFreeSplit)
{
    EXPECT_EQ(round_to_tf32(1.0f + 0x1.0p-11f), 1.0f);                 // tie to even
    EXPECT_EQ(round_to_tf32(1.0f + 3 * 0x1.0p-11f), 1.0f + 0x1.0p-9f); // tie to even (up)
    EXPECT_EQ(round_to_tf32(1.0f + 0x1.8p-11f), 1.0f + 0x1.0p-10f);    // above half: up
    EXPECT_EQ(round_to_tf32(-(2.0f - 0x1.0p-23f)), -2.0f);             // carry into exponent
    Matrix<float> m(1, 3);
    m(0, 0) = 0.1f;
    m(0, 1) = -3.14159265f;
    m(0, 2) = 1e-30f;
    auto const s = split_tf32(m);
    for (size_type k = 0; k < 3; ++k)
    {
        double const x = m(0, k);
        double const back = double(s.hi(0, k)) + double(s.lo_scaled(0, k)) / 2048;
        // lo keeps 11 of the at most 13 remaining bits: |x - back| <= 2^-22 |x|.
        EXPECT_LE(std::abs(back - x), std::ldexp(std::abs(x), -22)) << k;
    }
}

TEST(Mgemm, ErrorFallsAsDeltaFalls)
{
    struct Case
    {
        MatrixKind kind;
        std::vector<double> deltas; // first: above every element; last: 0
    };
    // Salted: 1% of elements at 5e3..1e4 on a [-1, 1] background. Decaying:
    // 12 decades from the diagonal to the corner.
    for (Case const& cs : {Case{MatrixKind::salted, {2e4, 1e2, 0.5, 1e-2, 0}},
                           Case{MatrixKind::decaying, {2, 1e-2, 1e-5, 1e-8, 0}}})
    {
        SCOPED_TRACE(to_cstring(cs.kind));
        GemmStudyOptions o;
        o.n = 160;
        o.matrix.kind = cs.kind;
        o.deltas = cs.deltas;
        auto const rs = run_gemm_study(o);
        GemmRecord const* previous = nullptr;
        for (double delta : o.deltas)
        {
            auto const& r = find(rs, GemmMethod::mgemm, delta);
            std::cout << to_cstring(cs.kind) << " delta " << delta << ": max abs error "
                      << r.max_abs_error << ", large fraction " << r.large_fraction << '\n';
            if (previous)
            {
                // Only products of small elements (|x| <= delta) carry float
                // rounding, so the error scales like the square of the largest
                // small element: every cutoff here moves elements to the large
                // part and must lower the error (or reach the double floor).
                EXPECT_GT(r.large_fraction, previous->large_fraction);
                double const floor = 1e-13 * r.max_abs_reference;
                EXPECT_TRUE(r.max_abs_error < previous->max_abs_error || r.max_abs_error <= floor)
                    << "delta " << delta << ": " << r.max_abs_error << " vs "
                    << previous->max_abs_error;
            }
            previous = &r;
        }
        // delta above every element: MGEMM is the SGEMM, bit for bit.
        EXPECT_EQ(find(rs, GemmMethod::mgemm, o.deltas.front()).max_abs_error,
                  find(rs, GemmMethod::sgemm).max_abs_error);
        // delta = 0: everything non-zero is "large", computed in double.
        EXPECT_LE(find(rs, GemmMethod::mgemm, 0).max_abs_error,
                  1e-13 * find(rs, GemmMethod::mgemm, 0).max_abs_reference);
    }
}

TEST(Mgemm, CleavingGivesTheUnsplitResult)
{
    TestMatrixOptions mo;
    Matrix<double> const a = make_test_matrix(150, 70, mo);
    mo.seed = 99;
    Matrix<double> const b = make_test_matrix(70, 130, mo);
    MgemmOptions whole;
    whole.delta = 1;
    MgemmResult const w = mgemm(a, b, whole, host_small());
    EXPECT_EQ(w.tiles, 1u);
    MgemmOptions cleaved = whole;
    cleaved.memory_budget_bytes = 16 * 1024; // forces tiles of a few rows and columns
    MgemmResult const c = mgemm(a, b, cleaved, host_small());
    EXPECT_GT(c.tiles, 10u);
    EXPECT_LT(c.tile_rows, 150u);
    double const floats =
        double(c.tile_rows) * 70 + 70.0 * c.tile_cols + double(c.tile_rows) * c.tile_cols;
    EXPECT_LE(floats * 4, cleaved.memory_budget_bytes);
    // The host GEMM sums every element in the same order in any tile.
    EXPECT_EQ(c.c.values(), w.c.values());

    cleaved.memory_budget_bytes = 100; // not even one row and column of K = 70
    EXPECT_THROW(mgemm(a, b, cleaved, host_small()), RuntimeError);
}

TEST(Mgemm, Tf32BaselinesOrdering)
{
    GemmStudyOptions o;
    o.n = 160;
    o.deltas = {};
    auto const rs = run_gemm_study(o);
    double const s = find(rs, GemmMethod::sgemm).max_abs_error;
    double const t = find(rs, GemmMethod::tf32).max_abs_error;
    double const t3 = find(rs, GemmMethod::tf32x3).max_abs_error;
    std::cout << "sgemm " << s << ", tf32 " << t << ", 3xtf32 " << t3 << '\n';
    EXPECT_EQ(find(rs, GemmMethod::dgemm).max_abs_error, 0.0);
    // TF32 rounds inputs to 2^-11 (float: 2^-24): much worse than SGEMM ...
    EXPECT_GE(t, 30 * s);
    // ... and the compensated 3xTF32 recovers FP32-level accuracy.
    EXPECT_LE(t3, 4 * s);
}
} // namespace mcdose::crosscheck::test
