//! \file validation/crosscheck/SeededUniform.hh
//! Portable seeded uniform variates for the cross-check studies.
//! std::uniform_real_distribution is implementation-defined, so the studies
//! convert the (standardised) std::mt19937_64 output themselves: the same seed
//! gives the same system on every standard library.
#pragma once

#include <cstdint>
#include <random>

namespace mcdose::crosscheck
{
class SeededUniform
{
  public:
    explicit SeededUniform(std::uint64_t seed) : engine_(seed) {}
    //! Uniform in [0, 1) with 53 random bits.
    double operator()() { return double(engine_() >> 11) * 0x1.0p-53; }
    //! Uniform in [lo, hi).
    double operator()(double lo, double hi) { return lo + (hi - lo) * (*this)(); }
    //! Uniform integer in [0, n) (n > 0; the modulo bias is below 2^-40 for n < 2^24).
    std::uint64_t index(std::uint64_t n) { return engine_() % n; }

  private:
    std::mt19937_64 engine_;
};
} // namespace mcdose::crosscheck
