//! \file sources/SpectrumView.hh
//! Source energy distribution: one energy, discrete lines, or a histogram sampled with
//! Walker's alias method (A. J. Walker, ACM TOMS 3 (1977) 253; table built
//! with Vose's stable algorithm, M. D. Vose, IEEE TSE 17 (1991) 972): a bin
//! is chosen in O(1) from one uniform deviate and the energy is uniform
//! within the bin. Energies in MeV.
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "rng/Distributions.hh"

namespace mcdose
{
//! Energy sampler (trivially copyable; spans point to host or device memory).
template <class Real>
struct SpectrumView
{
    Real mono_MeV{0};           //!< used when `edges_MeV` and `lines_MeV` are empty
    Span<Real const> edges_MeV; //!< histogram bin edges, n + 1, increasing
    Span<Real const> lines_MeV; //!< discrete lines, n (instead of edges)
    Span<Real const> keep;      //!< alias table: probability to keep bin i, n
    Span<int const> alias;      //!< alias table: the other bin of column i, n

    //! Kinetic energy [MeV]. A histogram uses three generate_canonical: the
    //! column, the keep/alias decision and the position within the bin; lines two.
    template <class Engine>
    MCDOSE_FUNCTION Real operator()(Engine& rng) const
    {
        if (edges_MeV.empty() && lines_MeV.empty())
            return mono_MeV;
        size_type const n = keep.size();
        size_type column = static_cast<size_type>(generate_canonical<Real>(rng) * Real(n));
        column = column < n ? column : n - 1; // the deviate may be exactly 1
        size_type const bin = generate_canonical<Real>(rng) <= keep[column]
                                  ? column
                                  : static_cast<size_type>(alias[column]);
        if (!lines_MeV.empty())
            return lines_MeV[bin];
        Real const lo = edges_MeV[bin];
        Real const hi = edges_MeV[bin + 1];
        Real const e = lo + (hi - lo) * generate_canonical<Real>(rng);
        return e < hi ? e : hi;
    }
};

//! Alias table of a discrete distribution (weights >= 0, not all zero).
struct AliasTable
{
    std::vector<double> keep;
    std::vector<int> alias;
};

//! Vose's construction: columns of average weight 1, each split between its
//! own bin (probability keep[i]) and one alias bin.
inline AliasTable make_alias_table(std::vector<double> const& weights)
{
    size_type const n = weights.size();
    double total = 0;
    for (double w : weights)
        total += w;
    MCDOSE_VALIDATE(n > 0 && total > 0, << "spectrum weights must not all be zero");
    std::vector<double> scaled(n);
    std::vector<size_type> small, large;
    for (size_type i = 0; i < n; ++i)
    {
        scaled[i] = weights[i] * double(n) / total;
        (scaled[i] < 1 ? small : large).push_back(i);
    }
    AliasTable t{std::vector<double>(n, 1.0), std::vector<int>(n)};
    for (size_type i = 0; i < n; ++i)
        t.alias[i] = int(i);
    while (!small.empty() && !large.empty())
    {
        size_type const s = small.back();
        small.pop_back();
        size_type const l = large.back();
        t.keep[s] = scaled[s];
        t.alias[s] = int(l);
        scaled[l] -= 1 - scaled[s];
        if (scaled[l] < 1)
        {
            large.pop_back();
            small.push_back(l);
        }
    }
    // Leftovers are 1 up to rounding: they keep their own bin.
    return t;
}
} // namespace mcdose
