//! \file validation/crosscheck/gemm/DeviceGemm.hh
//! cuBLAS GEMMs for the MGEMM study (column-major, C = A B). The operands are
//! uploaded once; `seconds` is the median time of `repeats` calls measured
//! with CUDA events after one warm-up call (data resident on the GPU).
//! Default math mode: on sm_80+ cuBLAS DGEMM runs on the FP64 tensor cores
//! (DMMA); SGEMM stays in FP32 unless NVIDIA_TF32_OVERRIDE=1 is set (do not).
#pragma once

#include <utility>

#include "Matrix.hh"
#include "Tf32.hh"
#include "core/Assert.hh"
#include "core/Config.hh"

namespace mcdose::crosscheck
{
struct DeviceGemmTiming
{
    double seconds{0}; //!< median of the timed calls
    int repeats{0};
};

#if MCDOSE_USE_CUDA
//! cublasDgemm.
Matrix<double> device_dgemm(Matrix<double> const& a, Matrix<double> const& b, int repeats,
                            DeviceGemmTiming* timing);
//! cublasSgemm (tf32 = false) or cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32.
Matrix<float> device_sgemm(Matrix<float> const& a, Matrix<float> const& b, bool tf32, int repeats,
                           DeviceGemmTiming* timing);
//! 3xTF32 (Tf32.hh): returns (A_hi B_hi, A_hi B_lo' + A_lo' B_hi); the three
//! GemmEx calls are timed together.
std::pair<Matrix<float>, Matrix<float>> device_tf32x3(Tf32Split const& a, Tf32Split const& b,
                                                      int repeats, DeviceGemmTiming* timing);
//! One MGEMM tile: upload, cublasSgemm, download (SmallGemm signature).
void device_sgemm_tile(Matrix<float> const& a, Matrix<float> const& b, Matrix<float>& c);
#else
inline Matrix<double> device_dgemm(Matrix<double> const&, Matrix<double> const&, int,
                                   DeviceGemmTiming*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline Matrix<float> device_sgemm(Matrix<float> const&, Matrix<float> const&, bool, int,
                                  DeviceGemmTiming*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline std::pair<Matrix<float>, Matrix<float>> device_tf32x3(Tf32Split const&, Tf32Split const&,
                                                             int, DeviceGemmTiming*)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
inline void device_sgemm_tile(Matrix<float> const&, Matrix<float> const&, Matrix<float>&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose::crosscheck
