//! \file validation/crosscheck/gemm/Mgemm.hh
//! Mixed-precision GEMM (MGEMM; Olivares-Amaya, Watson, Edgar, Vogt, Shao &
//! Aspuru-Guzik 2010, J. Chem. Theory Comput. 6:135, eq. 3): split A and B
//! element-wise at a cutoff delta, A = A_s + A_L and B = B_s + B_L with
//! |x| > delta in the large (sparse) parts, and form
//!   A B = A_s B_s  +  A B_L  +  A_L B_s,
//! the first product in single precision (SGEMM: cuBLAS on the GPU, the
//! blocked host GEMM on the CPU), the other two as dense x sparse products in
//! double on the host. "Cleaving": the SGEMM is done in tiles of rows of A and
//! columns of B whose single-precision operands and result fit a memory
//! budget, and the tiles are assembled on the host.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "Matrix.hh"

namespace mcdose::crosscheck
{
//! Compressed sparse columns, values in double.
struct SparseColumns
{
    size_type rows{0}, cols{0};
    std::vector<size_type> col_start; //!< size cols + 1
    std::vector<std::uint32_t> row;
    std::vector<double> value;
    size_type nnz() const { return value.size(); }
};

//! m = small + large: |x| > delta goes to `large` (exact, double); the rest
//! to `small`, rounded to float.
struct SplitMatrix
{
    Matrix<float> small;
    SparseColumns large;
};
SplitMatrix split_at(Matrix<double> const& m, double delta);

//! c = a b in single precision (c resized by the callee).
using SmallGemm =
    std::function<void(Matrix<float> const& a, Matrix<float> const& b, Matrix<float>& c)>;

struct MgemmOptions
{
    double delta{1};                               //!< split cutoff
    double memory_budget_bytes{256.0 * (1 << 20)}; //!< per SGEMM tile: A, B and C tiles in float
    unsigned threads{0};                           //!< host threads for the sparse parts
};

struct MgemmResult
{
    Matrix<double> c;
    size_type tiles{0};
    size_type tile_rows{0}, tile_cols{0};
    size_type large_a{0}, large_b{0}; //!< elements above delta
    double seconds_split{0}, seconds_small{0}, seconds_sparse{0}, seconds_total{0};
};

//! Tile shape for an M x K by K x N single-precision product within the
//! budget: starts from the whole product and halves the longer side of the
//! tile until mt K + K nt + mt nt floats fit. Throws if even a 1 x 1 tile
//! (2K + 1 floats) does not.
std::pair<size_type, size_type> cleave_tile_shape(size_type m, size_type k, size_type n,
                                                  double budget_bytes);

MgemmResult mgemm(Matrix<double> const& a, Matrix<double> const& b, MgemmOptions const& opts,
                  SmallGemm const& small_gemm);
} // namespace mcdose::crosscheck
