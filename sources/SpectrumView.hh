//! \file sources/SpectrumView.hh
//! Source energy distribution: one energy, or a spectrum of histogram bins and discrete lines
//! (either alone or both, a "mixed" line + continuum spectrum) sampled with Walker's alias
//! method (A. J. Walker, ACM TOMS 3 (1977) 253; table built with Vose's stable algorithm,
//! M. D. Vose, IEEE TSE 17 (1991) 972) over all entries, bins first, then lines: an entry is
//! chosen in O(1) from two uniform deviates. Within a bin the energy is uniform, or, when the
//! continuum is piecewise linear (`density` given at the edges, the EGSnrc mode 3), follows
//! the straight line between the two edge densities (inverted exactly from one deviate).
//! Energies in MeV.
#pragma once

#include <cmath>
#include <vector>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "rng/Distributions.hh"

namespace mcdose
{
//! The fraction t in [0, 1] of a bin at which the cumulative of the linear density
//! a (1 - t) + b t, a, b >= 0 not both 0, reaches xi of its total: the root of
//! a t + (b - a) t^2 / 2 = xi (a + b) / 2, written t = xi (a + b) / (a + sqrt(a^2 (1 - xi) +
//! b^2 xi)) so that it has no cancellation when a ~ b (then t = xi).
template <class Real>
MCDOSE_FUNCTION Real linear_density_fraction(Real a, Real b, Real xi)
{
    Real const denominator = a + std::sqrt(a * a * (1 - xi) + b * b * xi);
    return denominator > 0 ? xi * (a + b) / denominator : Real(0);
}

//! Energy sampler (trivially copyable; spans point to host or device memory).
template <class Real>
struct SpectrumView
{
    Real mono_MeV{0};           //!< used when `edges_MeV` and `lines_MeV` are empty
    Span<Real const> edges_MeV; //!< histogram bin edges, n_bins + 1, increasing (or empty)
    Span<Real const> density;   //!< piecewise-linear continuum: density at each edge (or empty)
    Span<Real const> lines_MeV; //!< discrete lines, n_lines (or empty)
    Span<Real const> keep;      //!< alias table over bins then lines: keep probability
    Span<int const> alias;      //!< alias table: the other entry of column i

    //! Kinetic energy [MeV]. A bin uses three generate_canonical: the column, the keep/alias
    //! decision and the position within the bin; a line two.
    template <class Engine>
    MCDOSE_FUNCTION Real operator()(Engine& rng) const
    {
        if (edges_MeV.empty() && lines_MeV.empty())
            return mono_MeV;
        size_type const entry = sample_alias<Real>(rng, keep, alias);
        size_type const bins = edges_MeV.empty() ? 0 : edges_MeV.size() - 1;
        if (entry >= bins)
            return lines_MeV[entry - bins];
        Real const lo = edges_MeV[entry];
        Real const hi = edges_MeV[entry + 1];
        Real const xi = generate_canonical<Real>(rng);
        Real const t =
            density.empty() ? xi : linear_density_fraction(density[entry], density[entry + 1], xi);
        Real const e = lo + (hi - lo) * t;
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
