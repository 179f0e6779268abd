//! \file rng/quality/BinaryRank.cc
#include "rng/quality/BinaryRank.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
size_type words64_per_row(size_type n)
{
    return n == 32 ? 1 : n / 64;
}

//! Upper tail of chi-square with 3 degrees of freedom:
//! Q(3/2, x/2) = erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2).
double chi2_3dof_upper_tail(double x)
{
    double const pi = 3.14159265358979323846;
    return std::erfc(std::sqrt(x / 2)) + std::sqrt(2 * x / pi) * std::exp(-x / 2);
}
} // namespace

size_type gf2_rank(std::vector<std::uint64_t>& rows, size_type n)
{
    size_type const w = words64_per_row(n);
    MCDOSE_EXPECT(rows.size() == n * w);
    size_type rank = 0;
    for (size_type col = 0; col < n && rank < n; ++col)
    {
        size_type const cw = col / 64;
        std::uint64_t const bit = std::uint64_t(1) << (col % 64);
        // Find a pivot row at or below `rank` with this column set.
        size_type pivot = rank;
        while (pivot < n && !(rows[pivot * w + cw] & bit))
            ++pivot;
        if (pivot == n)
            continue;
        if (pivot != rank)
            std::swap_ranges(rows.begin() + pivot * w, rows.begin() + (pivot + 1) * w,
                             rows.begin() + rank * w);
        std::uint64_t const* prow = rows.data() + rank * w;
        for (size_type r = rank + 1; r < n; ++r)
        {
            std::uint64_t* row = rows.data() + r * w;
            if (row[cw] & bit)
            {
                for (size_type k = cw; k < w; ++k)
                    row[k] ^= prow[k];
            }
        }
        ++rank;
    }
    return rank;
}

double gf2_rank_probability(size_type n, size_type r)
{
    MCDOSE_EXPECT(r <= n);
    // Work in log2 to stay finite for n = 1024.
    double log2p = double(r) * double(2 * n - r) - double(n) * double(n);
    for (size_type i = 0; i < r; ++i)
    {
        log2p += 2 * std::log2(1 - std::exp2(double(i) - double(n)));
        log2p -= std::log2(1 - std::exp2(double(i) - double(r)));
    }
    return std::exp2(log2p);
}

BinaryRankResult binary_rank_test(std::function<std::uint32_t()> const& next_word, size_type n,
                                  size_type matrices)
{
    MCDOSE_VALIDATE(n == 32 || (n >= 64 && n % 64 == 0),
                    << "binary rank test: matrix size " << n << " must be 32 or a multiple of 64");
    MCDOSE_VALIDATE(matrices >= 1, << "binary rank test: need at least one matrix");
    BinaryRankResult res{};
    res.n = n;
    res.matrices = matrices;
    res.min_rank = n;
    size_type const w = words64_per_row(n);
    std::vector<std::uint64_t> rows(n * w);
    for (size_type m = 0; m < matrices; ++m)
    {
        for (auto& x : rows)
        {
            // Low 32 bits first: bit b of the row is bit b%32 of word b/32.
            std::uint64_t const lo = next_word();
            x = n == 32 ? lo : (lo | (std::uint64_t(next_word()) << 32));
        }
        size_type const rank = gf2_rank(rows, n);
        res.min_rank = std::min(res.min_rank, rank);
        res.observed[std::min<size_type>(n - rank, 3)] += 1;
    }
    double tail = 1;
    for (int c = 0; c < 3; ++c)
    {
        double const p = gf2_rank_probability(n, n - c);
        res.expected[c] = p * matrices;
        tail -= p;
    }
    res.expected[3] = std::max(tail, 0.0) * matrices;
    res.chi2 = 0;
    for (int c = 0; c < 4; ++c)
    {
        double const d = res.observed[c] - res.expected[c];
        res.chi2 += d * d / res.expected[c];
    }
    res.p_value = chi2_3dof_upper_tail(res.chi2);
    return res;
}
} // namespace mcdose
