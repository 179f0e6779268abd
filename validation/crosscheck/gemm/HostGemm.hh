//! \file validation/crosscheck/gemm/HostGemm.hh
//! A straightforward blocked CPU GEMM, C = A B (column-major), products and
//! sums in T. Each element's sum runs over p = 0 .. K-1 in ascending order
//! whatever the blocking or the threads, so a product computed by tiles of
//! rows and columns is bitwise identical to the whole product.
#pragma once

#include "Matrix.hh"

namespace mcdose::crosscheck
{
//! C (resized to A.rows() x B.cols()) = A B. `threads` = 0: all hardware threads.
template <class T>
void host_gemm(Matrix<T> const& a, Matrix<T> const& b, Matrix<T>& c, unsigned threads = 0);

extern template void host_gemm<float>(Matrix<float> const&, Matrix<float> const&, Matrix<float>&,
                                      unsigned);
extern template void host_gemm<double>(Matrix<double> const&, Matrix<double> const&,
                                       Matrix<double>&, unsigned);
} // namespace mcdose::crosscheck
