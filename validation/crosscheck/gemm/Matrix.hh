//! \file validation/crosscheck/gemm/Matrix.hh
//! Dense column-major matrix (the BLAS/cuBLAS layout: element (r, c) at
//! c * rows + r) for the mixed-precision GEMM study.
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Types.hh"

namespace mcdose::crosscheck
{
template <class T>
class Matrix
{
  public:
    Matrix() = default;
    Matrix(size_type rows, size_type cols, T fill = T(0))
        : rows_(rows), cols_(cols), data_(rows * cols, fill)
    {
    }
    size_type rows() const { return rows_; }
    size_type cols() const { return cols_; }
    size_type size() const { return data_.size(); }
    T& operator()(size_type r, size_type c)
    {
        MCDOSE_EXPECT(r < rows_ && c < cols_);
        return data_[c * rows_ + r];
    }
    T operator()(size_type r, size_type c) const
    {
        MCDOSE_EXPECT(r < rows_ && c < cols_);
        return data_[c * rows_ + r];
    }
    T* data() { return data_.data(); }
    T const* data() const { return data_.data(); }
    std::vector<T> const& values() const { return data_; }
    std::vector<T>& values() { return data_; }

  private:
    size_type rows_{0};
    size_type cols_{0};
    std::vector<T> data_;
};

//! Element-wise conversion (rounding to nearest when narrowing).
template <class To, class From>
Matrix<To> convert_matrix(Matrix<From> const& m)
{
    Matrix<To> out(m.rows(), m.cols());
    for (size_type k = 0; k < m.size(); ++k)
        out.data()[k] = To(m.data()[k]);
    return out;
}
} // namespace mcdose::crosscheck
