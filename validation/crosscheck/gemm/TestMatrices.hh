//! \file validation/crosscheck/gemm/TestMatrices.hh
//! Input matrices of the MGEMM study (Olivares-Amaya et al. 2010, J. Chem.
//! Theory Comput. 6:135): a uniform background in [-1, 1] salted with a
//! fraction of large elements, and matrices whose elements decay
//! exponentially away from the diagonal over many orders of magnitude (as
//! density matrices of insulators do).
#pragma once

#include <cstdint>
#include <string>

#include "Matrix.hh"

namespace mcdose::crosscheck
{
enum class MatrixKind
{
    salted,  //!< uniform [-1, 1], fraction `salt_fraction` replaced by +-[salt/2, salt]
    decaying //!< u_ij 10^(-decades |i - j| / (n - 1)), u uniform in [-1, 1]
};
MatrixKind to_matrix_kind(std::string const& name);
char const* to_cstring(MatrixKind k);

struct TestMatrixOptions
{
    MatrixKind kind{MatrixKind::salted};
    double salt_fraction{0.01}; //!< salted: fraction of large elements
    double salt_magnitude{1e4}; //!< salted: largest |element|
    double decades{12};         //!< decaying: orders of magnitude from diagonal to corner
    std::uint64_t seed{2010};
};

Matrix<double> make_test_matrix(size_type rows, size_type cols, TestMatrixOptions const& opts);
} // namespace mcdose::crosscheck
