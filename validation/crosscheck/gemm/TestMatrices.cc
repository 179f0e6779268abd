//! \file validation/crosscheck/gemm/TestMatrices.cc
#include "TestMatrices.hh"

#include <algorithm>
#include <cmath>

#include "validation/crosscheck/SeededUniform.hh"

namespace mcdose::crosscheck
{
MatrixKind to_matrix_kind(std::string const& name)
{
    if (name == "salted")
        return MatrixKind::salted;
    if (name == "decaying")
        return MatrixKind::decaying;
    MCDOSE_VALIDATE(false, << "unknown matrix kind '" << name << "'; use 'salted' or 'decaying'");
    return MatrixKind::salted;
}

char const* to_cstring(MatrixKind k)
{
    return k == MatrixKind::salted ? "salted" : "decaying";
}

Matrix<double> make_test_matrix(size_type rows, size_type cols, TestMatrixOptions const& opts)
{
    MCDOSE_VALIDATE(rows > 0 && cols > 0,
                    << "matrix size must be positive (got " << rows << "x" << cols << ")");
    MCDOSE_VALIDATE(opts.salt_fraction >= 0 && opts.salt_fraction <= 1,
                    << "'large_fraction' must be in [0, 1] (got " << opts.salt_fraction << ")");
    MCDOSE_VALIDATE(opts.salt_magnitude > 1,
                    << "'salt' magnitude must exceed 1 (got " << opts.salt_magnitude << ")");
    MCDOSE_VALIDATE(opts.decades >= 0 && opts.decades <= 300,
                    << "'decades' must be in [0, 300] (got " << opts.decades << ")");
    SeededUniform rng(opts.seed);
    Matrix<double> m(rows, cols);
    double const span = double(std::max(rows, cols) - 1);
    for (size_type c = 0; c < cols; ++c)
    {
        for (size_type r = 0; r < rows; ++r)
        {
            double v = rng(-1, 1);
            if (opts.kind == MatrixKind::salted)
            {
                if (rng() < opts.salt_fraction)
                {
                    double const mag = rng(0.5, 1.0) * opts.salt_magnitude;
                    v = v < 0 ? -mag : mag;
                }
            }
            else
            {
                double const dist = span > 0 ? std::abs(double(r) - double(c)) / span : 0;
                v *= std::pow(10.0, -opts.decades * dist);
            }
            m(r, c) = v;
        }
    }
    return m;
}
} // namespace mcdose::crosscheck
