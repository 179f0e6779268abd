//! \file validation/crosscheck/gemm/Tf32.hh
//! TF32 tensor-core GEMM and its compensated "3xTF32" variant.
//!
//! TF32 keeps float's 8 exponent bits and 10 fraction bits; tensor cores
//! multiply TF32 operands exactly and accumulate in FP32. The compensated
//! variant (Markidis et al. 2018, IPDPSW, "NVIDIA Tensor Core
//! programmability, performance & precision", for FP16; Ootomo & Yokota 2022,
//! Int. J. High Perform. Comput. Appl. 36:475, for TF32) splits each float
//!   x = hi + lo,   hi = tf32(x),   lo = x - hi (an error-free transformation:
//!   tally/accum's two_sum returns it with a zero error term),
//! scales lo by 2^11 so that its own TF32 rounding does not underflow, and forms
//!   A B ~ A_hi B_hi + (A_hi B_lo' + A_lo' B_hi) 2^-11     (lo' = tf32(2^11 lo)),
//! dropping A_lo B_lo (relative size 2^-22). Three TF32 products give about
//! FP32 accuracy. The final combination is kept as an unevaluated float pair
//! from two_sum, i.e. exactly.
#pragma once

#include "Matrix.hh"

namespace mcdose::crosscheck
{
//! Round a finite float to TF32 (10 fraction bits), ties to even.
float round_to_tf32(float x);

//! Scale of the low part: 2^11.
inline constexpr float tf32_lo_scale = 2048.0f;

struct Tf32Split
{
    Matrix<float> hi;        //!< tf32(x)
    Matrix<float> lo_scaled; //!< tf32(2^11 (x - hi))
};
Tf32Split split_tf32(Matrix<float> const& m);

//! hi_hi + cross 2^-11, each element combined by two_sum (exact in double).
Matrix<double> combine_tf32x3(Matrix<float> const& hi_hi, Matrix<float> const& cross);

//! Host emulations (the CPU backend of the study): TF32 products exact, FP32 sums.
Matrix<double> host_tf32_gemm(Matrix<float> const& a, Matrix<float> const& b, unsigned threads = 0);
Matrix<double> host_tf32x3_gemm(Matrix<float> const& a, Matrix<float> const& b,
                                unsigned threads = 0);
} // namespace mcdose::crosscheck
