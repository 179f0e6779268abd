//! \file test/transport/interactors/TransportTestHelpers.hh
//! Helpers shared by the transport tests (geometry, sources, interactors):
//! a small reproducible engine with the rng/ engine interface, and
//! goodness-of-fit statistics with acceptance limits derived from their
//! sampling distributions (never tuned to pass).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "rng/Distributions.hh"
#include "rng/SplitMix64.hh"
#include "transport/interactors/Interaction.hh"

namespace mcdose::test
{
//! Fixture for tests typed on the transport precision (float and double).
template <class Real>
class RealTypedTest : public ::testing::Test
{
};
using RealTypes = ::testing::Types<float, double>;

//! Engine with the rng/ interface (`std::uint32_t operator()()`), built on
//! rng/SplitMix64.hh so that tests need no per-thread state store.
class TestEngine
{
  public:
    using result_type = std::uint32_t;
    explicit TestEngine(std::uint64_t seed, std::uint64_t stream = 0) : gen_(seed, stream) {}
    std::uint32_t operator()() { return gen_.next_u32(); }

  private:
    SplitMix64 gen_;
};

//! Pearson chi-square of observed counts against expected probabilities
//! (which must sum to 1 over the bins; every expected count should be >= 5).
//! A bin of probability 0 adds nothing if empty and makes the result
//! infinite otherwise (such bins carry no degree of freedom).
inline double chi_square(std::vector<double> const& observed, std::vector<double> const& prob)
{
    double n = 0;
    for (double o : observed)
        n += o;
    double chi2 = 0;
    for (std::size_t i = 0; i < observed.size(); ++i)
    {
        double const e = n * prob[i];
        if (e == 0)
        {
            if (observed[i] > 0)
                return std::numeric_limits<double>::infinity();
            continue;
        }
        chi2 += (observed[i] - e) * (observed[i] - e) / e;
    }
    return chi2;
}

//! Acceptance limit for a chi-square with `dof` degrees of freedom: the mean
//! plus 4 standard deviations, dof + 4 sqrt(2 dof) (a false alarm rate below
//! about 1e-3 for the dof used here).
inline double chi_square_limit(int dof)
{
    return dof + 4.0 * std::sqrt(2.0 * dof);
}

//! Kolmogorov-Smirnov distance sqrt(n) D_n of samples against a CDF.
inline double ks_statistic(std::vector<double> samples, std::function<double(double)> const& cdf)
{
    std::sort(samples.begin(), samples.end());
    double const n = double(samples.size());
    double d = 0;
    for (std::size_t i = 0; i < samples.size(); ++i)
    {
        double const f = cdf(samples[i]);
        d = std::max(d, std::max(double(i + 1) / n - f, f - double(i) / n));
    }
    return std::sqrt(n) * d;
}

//! Limit for sqrt(n) D_n: P(sqrt(n) D > x) ~ 2 exp(-2 x^2) = 6.3e-5 (the
//! two-sided 4-sigma normal tail) gives x = sqrt(ln(2 / 6.3e-5) / 2) = 2.28.
inline constexpr double ks_limit = 2.28;

//! Histogram of values into `nbins` equal bins on [lo, hi] (out-of-range values are
//! counted in the edge bins only if they equal the edge; otherwise dropped).
inline std::vector<double> histogram(std::vector<double> const& values, double lo, double hi,
                                     int nbins)
{
    std::vector<double> h(nbins, 0.0);
    for (double v : values)
    {
        if (v < lo || v > hi)
            continue;
        int b = int((v - lo) / (hi - lo) * nbins);
        h[std::min(std::max(b, 0), nbins - 1)] += 1;
    }
    return h;
}

//! Bin probabilities of a density on [lo, hi] by composite Simpson integration
//! (each bin split in 64 panels), normalised to 1.
inline std::vector<double> bin_probabilities(std::function<double(double)> const& pdf, double lo,
                                             double hi, int nbins)
{
    std::vector<double> p(nbins);
    double total = 0;
    int const panels = 64;
    for (int b = 0; b < nbins; ++b)
    {
        double const a = lo + (hi - lo) * b / nbins;
        double const h = (hi - lo) / nbins / panels;
        double s = pdf(a) + pdf(a + panels * h);
        for (int k = 1; k < panels; ++k)
            s += (k % 2 ? 4 : 2) * pdf(a + k * h);
        p[b] = s * h / 3;
        total += p[b];
    }
    for (double& x : p)
        x /= total;
    return p;
}

//! Energy balance of one interaction, summed in the documented order
//! (outgoing photon, secondaries, local deposit, created rest energy); the
//! interactors make it exact in floating point.
template <class Real>
Real energy_out(Interaction<Real> const& r)
{
    Real sum = r.absorbed ? Real(0) : r.energy_MeV;
    for (int i = 0; i < r.num_secondaries; ++i)
        sum += r.secondaries[i].energy_MeV;
    sum += r.energy_deposit_MeV;
    sum += r.rest_energy_created_MeV;
    return sum;
}

//! Cumulative distribution of an unnormalised density on [lo, hi], tabulated
//! by the trapezoidal rule on `points` nodes (fine enough that its error is
//! far below the statistical resolution of the tests), evaluated by linear
//! interpolation.
class TabulatedCdf
{
  public:
    TabulatedCdf(std::function<double(double)> const& pdf, double lo, double hi,
                 int points = 200001)
        : lo_(lo), hi_(hi), cdf_(points, 0.0)
    {
        double const h = (hi - lo) / (points - 1);
        double prev = pdf(lo);
        for (int i = 1; i < points; ++i)
        {
            double const cur = pdf(lo + i * h);
            cdf_[i] = cdf_[i - 1] + 0.5 * h * (prev + cur);
            prev = cur;
        }
        for (double& c : cdf_)
            c /= cdf_.back();
    }
    double operator()(double x) const
    {
        if (x <= lo_)
            return 0;
        if (x >= hi_)
            return 1;
        double const u = (x - lo_) / (hi_ - lo_) * (cdf_.size() - 1);
        std::size_t const i = std::min(std::size_t(u), cdf_.size() - 2);
        return cdf_[i] + (u - i) * (cdf_[i + 1] - cdf_[i]);
    }

  private:
    double lo_, hi_;
    std::vector<double> cdf_;
};

//! Chi-square of samples in `nbins` bins of equal probability under `cdf`
//! (the samples are mapped through the CDF and binned uniformly), so that
//! peaked densities still give well-filled bins. Compare with
//! chi_square_limit(nbins - 1).
inline double equiprobable_chi_square(std::vector<double> const& samples,
                                      std::function<double(double)> const& cdf, int nbins = 20)
{
    std::vector<double> u(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i)
        u[i] = cdf(samples[i]);
    return chi_square(histogram(u, 0.0, 1.0, nbins), std::vector<double>(nbins, 1.0 / nbins));
}
} // namespace mcdose::test
