//! \file validation/crosscheck/gemm/Mgemm.cc
#include "Mgemm.hh"

#include "validation/crosscheck/HostThreads.hh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace mcdose::crosscheck
{
namespace
{
double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

//! Runs f(j) for j in [0, n) on `threads` threads (interleaved columns).
template <class F>
void parallel_columns(size_type n, unsigned threads, F&& f)
{
    threads = unsigned(std::max<size_type>(1, std::min<size_type>(resolve_threads(threads), n)));
    auto worker = [&](unsigned t)
    {
        for (size_type j = t; j < n; j += threads)
            f(j);
    };
    run_on_threads(threads, worker);
}
} // namespace

SplitMatrix split_at(Matrix<double> const& m, double delta)
{
    MCDOSE_VALIDATE(delta >= 0 && std::isfinite(delta),
                    << "MGEMM cutoff 'delta' must be finite and >= 0 (got " << delta << ")");
    SplitMatrix s;
    s.small = Matrix<float>(m.rows(), m.cols());
    s.large.rows = m.rows();
    s.large.cols = m.cols();
    s.large.col_start.assign(1, 0);
    for (size_type c = 0; c < m.cols(); ++c)
    {
        for (size_type r = 0; r < m.rows(); ++r)
        {
            double const v = m(r, c);
            if (std::abs(v) > delta)
            {
                s.large.row.push_back(std::uint32_t(r));
                s.large.value.push_back(v);
            }
            else
            {
                s.small(r, c) = float(v);
            }
        }
        s.large.col_start.push_back(s.large.nnz());
    }
    return s;
}

std::pair<size_type, size_type> cleave_tile_shape(size_type m, size_type k, size_type n,
                                                  double budget_bytes)
{
    auto fits = [&](size_type mt, size_type nt)
    {
        double const floats = double(mt) * k + double(k) * nt + double(mt) * nt;
        return floats * sizeof(float) <= budget_bytes;
    };
    MCDOSE_VALIDATE(fits(1, 1), << "memory budget " << budget_bytes
                                << " B cannot hold one row and one column of length " << k
                                << " in single precision; raise the budget (--memory-budget-mib)");
    size_type mt = m, nt = n;
    while (!fits(mt, nt))
    {
        if (mt >= nt)
            mt = (mt + 1) / 2;
        else
            nt = (nt + 1) / 2;
    }
    return {mt, nt};
}

MgemmResult mgemm(Matrix<double> const& a, Matrix<double> const& b, MgemmOptions const& opts,
                  SmallGemm const& small_gemm)
{
    MCDOSE_VALIDATE(a.cols() == b.rows(), << "MGEMM shapes do not match: A is " << a.rows() << "x"
                                          << a.cols() << ", B is " << b.rows() << "x" << b.cols());
    auto const t_start = std::chrono::steady_clock::now();
    size_type const m = a.rows(), k = a.cols(), n = b.cols();
    MgemmResult r;

    auto t0 = std::chrono::steady_clock::now();
    SplitMatrix const sa = split_at(a, opts.delta);
    SplitMatrix const sb = split_at(b, opts.delta);
    r.large_a = sa.large.nnz();
    r.large_b = sb.large.nnz();
    r.seconds_split = seconds_since(t0);

    // A_s B_s in single precision, tile by tile.
    t0 = std::chrono::steady_clock::now();
    r.c = Matrix<double>(m, n);
    std::tie(r.tile_rows, r.tile_cols) = cleave_tile_shape(m, k, n, opts.memory_budget_bytes);
    bool const whole = r.tile_rows == m && r.tile_cols == n;
    for (size_type i0 = 0; i0 < m; i0 += r.tile_rows)
    {
        size_type const mt = std::min(r.tile_rows, m - i0);
        Matrix<float> a_tile;
        if (!whole)
        {
            a_tile = Matrix<float>(mt, k);
            for (size_type p = 0; p < k; ++p)
                std::copy_n(sa.small.data() + p * m + i0, mt, a_tile.data() + p * mt);
        }
        for (size_type j0 = 0; j0 < n; j0 += r.tile_cols)
        {
            size_type const nt = std::min(r.tile_cols, n - j0);
            Matrix<float> c_tile;
            if (whole)
            {
                small_gemm(sa.small, sb.small, c_tile);
            }
            else
            {
                Matrix<float> b_tile(k, nt); // columns are contiguous
                std::copy_n(sb.small.data() + j0 * k, k * nt, b_tile.data());
                small_gemm(a_tile, b_tile, c_tile);
            }
            MCDOSE_ASSERT(c_tile.rows() == mt && c_tile.cols() == nt);
            for (size_type j = 0; j < nt; ++j)
                for (size_type i = 0; i < mt; ++i)
                    r.c(i0 + i, j0 + j) = double(c_tile(i, j));
            ++r.tiles;
        }
    }
    r.seconds_small = seconds_since(t0);

    // A B_L + A_L B_s in double on the host, column by column of C.
    t0 = std::chrono::steady_clock::now();
    parallel_columns(
        n, opts.threads,
        [&](size_type j)
        {
            double* cj = r.c.data() + j * m;
            for (size_type q = sb.large.col_start[j]; q < sb.large.col_start[j + 1]; ++q)
            {
                double const v = sb.large.value[q];
                double const* ap = a.data() + sb.large.row[q] * m;
                for (size_type i = 0; i < m; ++i)
                    cj[i] += ap[i] * v;
            }
            for (size_type p = 0; p < k; ++p)
            {
                double const bpj = double(sb.small(p, j));
                if (bpj == 0)
                    continue;
                for (size_type q = sa.large.col_start[p]; q < sa.large.col_start[p + 1]; ++q)
                    cj[sa.large.row[q]] += sa.large.value[q] * bpj;
            }
        });
    r.seconds_sparse = seconds_since(t0);
    r.seconds_total = seconds_since(t_start);
    return r;
}
} // namespace mcdose::crosscheck
