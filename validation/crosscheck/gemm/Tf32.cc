//! \file validation/crosscheck/gemm/Tf32.cc
#include "Tf32.hh"

#include <cstdint>
#include <cstring>

#include "HostGemm.hh"
#include "core/Assert.hh"
#include "tally/accum/TwoSum.hh"

namespace mcdose::crosscheck
{
float round_to_tf32(float x)
{
    std::uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    // Drop the low 13 of the 23 fraction bits, rounding to nearest even; a
    // carry into the exponent is the correct rounding up to the next binade.
    std::uint32_t const lsb = (b >> 13) & 1u;
    b += 0x0fffu + lsb;
    b &= ~std::uint32_t(0x1fff);
    float r;
    std::memcpy(&r, &b, sizeof r);
    return r;
}

Tf32Split split_tf32(Matrix<float> const& m)
{
    Tf32Split s{Matrix<float>(m.rows(), m.cols()), Matrix<float>(m.rows(), m.cols())};
    for (size_type k = 0; k < m.size(); ++k)
    {
        float const x = m.data()[k];
        float const hi = round_to_tf32(x);
        // x - hi is exact (hi is x rounded to fewer bits): two_sum proves it.
        auto const d = accum::two_sum(x, -hi);
        MCDOSE_ASSERT(d.error == 0.0f);
        s.hi.data()[k] = hi;
        s.lo_scaled.data()[k] = round_to_tf32(d.sum * tf32_lo_scale);
    }
    return s;
}

Matrix<double> combine_tf32x3(Matrix<float> const& hi_hi, Matrix<float> const& cross)
{
    MCDOSE_EXPECT(hi_hi.size() == cross.size());
    Matrix<double> c(hi_hi.rows(), hi_hi.cols());
    for (size_type k = 0; k < c.size(); ++k)
    {
        // The correction scaled back by 2^-11 (exact), then an error-free sum.
        auto const s = accum::two_sum(hi_hi.data()[k], cross.data()[k] / tf32_lo_scale);
        c.data()[k] = double(s.sum) + double(s.error);
    }
    return c;
}

namespace
{
Matrix<float> rounded_tf32(Matrix<float> const& m)
{
    Matrix<float> r(m.rows(), m.cols());
    for (size_type k = 0; k < m.size(); ++k)
        r.data()[k] = round_to_tf32(m.data()[k]);
    return r;
}
} // namespace

Matrix<double> host_tf32_gemm(Matrix<float> const& a, Matrix<float> const& b, unsigned threads)
{
    Matrix<float> c;
    host_gemm(rounded_tf32(a), rounded_tf32(b), c, threads);
    return convert_matrix<double>(c);
}

Matrix<double> host_tf32x3_gemm(Matrix<float> const& a, Matrix<float> const& b, unsigned threads)
{
    Tf32Split const sa = split_tf32(a), sb = split_tf32(b);
    Matrix<float> hh, hl, lh;
    host_gemm(sa.hi, sb.hi, hh, threads);
    host_gemm(sa.hi, sb.lo_scaled, hl, threads);
    host_gemm(sa.lo_scaled, sb.hi, lh, threads);
    // Accumulate the two cross products in FP32, as the beta = 1 GEMM on the GPU does.
    for (size_type k = 0; k < hl.size(); ++k)
        hl.data()[k] += lh.data()[k];
    return combine_tf32x3(hh, hl);
}
} // namespace mcdose::crosscheck
