//! \file rng/quality/BinaryRank.hh
//! Binary-matrix-rank test over GF(2) (G. Marsaglia and L.-H. Tsay, "Matrices
//! and the structure of random number sequences", Linear Algebra Appl. 67,
//! 147 (1985)): fill n x n bit matrices row by row from consecutive 32-bit
//! words (row i = words i n/32 .. (i+1) n/32 - 1, bit b of a row = bit b%32 of
//! word b/32), compute each rank by Gaussian elimination over GF(2), and
//! compare the counts of rank n, n-1, n-2 and <= n-3 with their exact
//! probabilities by a chi-square test with 3 degrees of freedom.
//! An F2-linear generator with k bits of state (Tausworthe, LFSR, the low bit
//! of an additive lagged-Fibonacci) gives rank <= k for every matrix with
//! n > k, which birthday- and count-based batteries can miss.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/Types.hh"

namespace mcdose
{
//! Rank over GF(2) of an n x n matrix; rows[i * (n/64) + w] holds bits
//! 64w..64w+63 of row i (bit b at position b%64). Destroys `rows`. n % 64 == 0
//! or n == 32 (one 64-bit word per row, upper half zero).
size_type gf2_rank(std::vector<std::uint64_t>& rows, size_type n);

//! Exact probability that a random n x n GF(2) matrix has rank r
//! (Marsaglia & Tsay 1985, Eq. for p_r):
//!   p_r = 2^{r(2n-r) - n^2} prod_{i<r} (1 - 2^{i-n})^2 / (1 - 2^{i-r}).
double gf2_rank_probability(size_type n, size_type r);

struct BinaryRankResult
{
    size_type n;
    size_type matrices;
    size_type observed[4]; //!< rank n, n-1, n-2, <= n-3
    double expected[4];
    double chi2;
    double p_value;
    size_type min_rank;
};

//! Run the test on `matrices` matrices of n x n bits from `next_word`.
BinaryRankResult binary_rank_test(std::function<std::uint32_t()> const& next_word, size_type n,
                                  size_type matrices);
} // namespace mcdose
