//! \file validation/crosscheck/gemm/HostGemm.cc
#include "HostGemm.hh"

#include "validation/crosscheck/HostThreads.hh"

#include <algorithm>
#include <thread>
#include <vector>

namespace mcdose::crosscheck
{
template <class T>
void host_gemm(Matrix<T> const& a, Matrix<T> const& b, Matrix<T>& c, unsigned threads)
{
    MCDOSE_VALIDATE(a.cols() == b.rows(), << "GEMM shapes do not match: A is " << a.rows() << "x"
                                          << a.cols() << ", B is " << b.rows() << "x" << b.cols());
    size_type const m = a.rows(), k = a.cols(), n = b.cols();
    c = Matrix<T>(m, n);
    threads = unsigned(std::max<size_type>(1, std::min<size_type>(resolve_threads(threads), n)));
    // Row blocks keep a slab of A's columns in cache while the columns of C
    // are swept; the p loop is never split, so the summation order of every
    // element is p = 0, 1, ..., K-1.
    size_type const row_block = 512;
    auto worker = [&](unsigned t)
    {
        for (size_type i0 = 0; i0 < m; i0 += row_block)
        {
            size_type const i1 = std::min(m, i0 + row_block);
            for (size_type j = t; j < n; j += threads)
            {
                T* cj = c.data() + j * m;
                for (size_type p = 0; p < k; ++p)
                {
                    T const bpj = b(p, j);
                    T const* ap = a.data() + p * m;
                    for (size_type i = i0; i < i1; ++i)
                        cj[i] += ap[i] * bpj;
                }
            }
        }
    };
    run_on_threads(threads, worker);
}

template void host_gemm<float>(Matrix<float> const&, Matrix<float> const&, Matrix<float>&,
                               unsigned);
template void host_gemm<double>(Matrix<double> const&, Matrix<double> const&, Matrix<double>&,
                                unsigned);
} // namespace mcdose::crosscheck
