//! \file validation/crosscheck/gemm/GemmStudy.hh
//! The MGEMM study: for one matrix size and kind, every method's maximum
//! absolute error against a double-precision reference and its time, with
//! MGEMM swept over the cutoff delta.
#pragma once

#include <string>
#include <vector>

#include "TestMatrices.hh"
#include "core/Types.hh"

namespace mcdose::crosscheck
{
enum class GemmMethod
{
    dgemm,  //!< double (the reference)
    sgemm,  //!< single
    tf32,   //!< TF32 tensor cores, FP32 accumulation
    tf32x3, //!< compensated 3xTF32 (Tf32.hh)
    mgemm   //!< Olivares-Amaya et al. split at delta (Mgemm.hh)
};
char const* to_cstring(GemmMethod m);

struct GemmStudyOptions
{
    Backend backend{Backend::cpu}; //!< cpu or gpu
    size_type n{256};              //!< square matrices n x n
    TestMatrixOptions matrix;
    std::vector<double> deltas{1e3, 1e2, 10, 1}; //!< MGEMM cutoffs
    double memory_budget_bytes{256.0 * (1 << 20)};
    unsigned threads{0}; //!< host threads
    int repeats{3};      //!< GPU timed calls per baseline
};

struct GemmRecord
{
    GemmMethod method{GemmMethod::dgemm};
    Backend backend{Backend::cpu};
    MatrixKind matrix{MatrixKind::salted};
    size_type n{0};
    double delta{-1};            //!< MGEMM only (-1 otherwise)
    double large_fraction{0};    //!< MGEMM: fraction of elements of A and B above delta
    size_type tiles{0};          //!< MGEMM: SGEMM tiles
    double max_abs_error{0};     //!< max |C - C_ref|
    double max_abs_reference{0}; //!< max |C_ref| (for scale)
    double seconds{0};           //!< GPU baselines: median kernel time; MGEMM and CPU: wall time
    double speedup_vs_dgemm{0};  //!< dgemm seconds / seconds
};

std::vector<GemmRecord> run_gemm_study(GemmStudyOptions const& opts);

//! max |x - ref| and max |ref| over all elements.
std::pair<double, double> max_abs_error(std::vector<double> const& x,
                                        std::vector<double> const& ref);
} // namespace mcdose::crosscheck
