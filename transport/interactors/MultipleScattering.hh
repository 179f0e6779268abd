//! \file transport/interactors/MultipleScattering.hh
//! Angular deflection of an electron or positron over one condensed-history
//! step (all elastic collisions of the step lumped at the random hinge).
//!
//! Model. Goudsmit & Saunderson (Phys. Rev. 57, 24 (1940)) and Lewis (Phys.
//! Rev. 78, 526 (1950)): after a path s in a medium whose single-scattering
//! cross section has transport cross sections sigma_l, the angular distribution
//! has Legendre moments <P_l(cos theta)> = exp(-s N sigma_l). We sample, with
//! t = 1 - cos(theta), from the "modified Wentzel" (MW) model of
//! Fernández-Varea, Mayol, Baró & Salvat (NIM B 73, 447 (1993)), which gives
//! the exact first and second moments:
//!     <t>   = m1 = 1 - exp(-s/lambda_1),
//!     <t^2> = 2 m1 - (2/3) m2,  m2 = 1 - exp(-s/lambda_2)
//! (lambda_l = 1/(N sigma_l), from transport/physics/ElasticScattering.hh). The
//! Wentzel (screened-Rutherford) distribution p_A(t) = 2A(1+A)/(t + 2A)^2,
//! t in [0, 2], has <t>_A = 2A[(1+A) ln(1+1/A) - 1] and
//! <t^2>_A = 4A(1+A) - 8A^2(1+A) ln(1+1/A) + 4A^2. With A_1 the screening that
//! gives <t>_A1 = m1:
//! - if <t^2> >= <t^2>_A1 (few collisions, heavier tail than Wentzel(A_1)):
//!   t = 0 with probability 1 - p, else Wentzel(A), where A solves
//!   <t^2>_A / <t>_A = <t^2> / m1 and p = m1 / <t>_A;
//! - otherwise (many collisions, lighter tail): t = m1 with probability B,
//!   else Wentzel(A_1), B = (<t^2>_A1 - <t^2>) / (<t^2>_A1 - m1^2).
//! Both moments are exact, hence (Lewis) the mean depth and lateral spread to
//! second order in the step; the shape is the screened-Rutherford one in the
//! single-scattering limit. Step-size convergence of the depth dose is tested
//! (test/transport/engine/ElectronTransport.test.cc).
//!
//! Inverse CDF of the Wentzel distribution: t = 2 A xi / (1 + A - xi).
//! A_1(m1), <t^2>_A1(m1), A(r) and <t>_A(r) with r = <t^2>_A/<t>_A have no
//! closed form: they are tabulated in double on the host
//! (WentzelScreeningTable, built by ElectronTables.cc), so the device does no
//! double-precision special functions here.
#pragma once

#include <cmath>

#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "rng/Distributions.hh"
#include "transport/LogGrid.hh"

namespace mcdose
{
//! <t> = <1 - mu> of the Wentzel distribution with screening parameter A
//! (host tables; log1p keeps it accurate for large A).
inline double wentzel_mean_one_minus_mu(double A)
{
    return 2 * A * ((1 + A) * std::log1p(1 / A) - 1);
}

//! <t^2> of the Wentzel distribution (host tables; cancels for A >> 1e3).
inline double wentzel_second_moment(double A)
{
    return 4 * A * (1 + A) - 8 * A * A * (1 + A) * std::log1p(1 / A) + 4 * A * A;
}

//! The MW model's tables (see file comment), each pair on one uniform ln grid
//! (one log per lookup of both).
template <class Real>
struct WentzelScreeningTable
{
    Real m1_min{0};                         //!< below it no deflection (< 1e-10 rad^2)
    Real m1_max{0};                         //!< above it the deflection is taken as isotropic
    LogGridView<Real> m1_grid;              //!< grid of ln m1
    Span<Real const> ln_screening;          //!< ln A_1(m1)
    Span<Real const> second_moment;         //!< <t^2>_A1(m1)
    LogGridView<Real> ratio_grid;           //!< grid of ln r, r = <t^2>_A / <t>_A
    Span<Real const> ln_screening_of_ratio; //!< ln A(r)
    Span<Real const> mean_of_ratio;         //!< <t>_A(r)
};

//! Sample t = 1 - cos(theta) over a step with m1 = 1 - exp(-s/lambda_1) and
//! m2 = 1 - exp(-s/lambda_2) (MW model, file comment).
template <class Real, class Engine>
MCDOSE_FUNCTION Real sample_msc_one_minus_mu(WentzelScreeningTable<Real> const& table, Real m1,
                                             Real m2, Engine& rng)
{
    Real xi = generate_canonical<Real>(rng);
    if (m1 >= table.m1_max)
        return 2 * xi; // isotropic: mu uniform in [-1, 1)
    if (m1 <= table.m1_min)
        return 0;
    Real const t2 = 2 * m1 - Real(2) / 3 * m2; // target <t^2>
    unsigned i;
    Real f;
    table.m1_grid.find(m1, i, f);
    Real const t2_1 = lerp_table(table.second_moment.data(), i, f);
    Real ln_a = lerp_table(table.ln_screening.data(), i, f); // A_1
    if (t2 >= t2_1)
    {
        // Heavier tail: no deflection with probability 1 - p, else Wentzel(A(r)).
        // (p >= 1 only at the table's edge: keep Wentzel(A_1) there.)
        unsigned j;
        Real g;
        table.ratio_grid.find(t2 / m1, j, g);
        Real const p = m1 / lerp_table(table.mean_of_ratio.data(), j, g);
        if (p < 1)
        {
            if (xi > p)
                return 0;
            xi /= p;
            ln_a = lerp_table(table.ln_screening_of_ratio.data(), j, g);
        }
    }
    else
    {
        // Lighter tail: t = m1 with probability B, else Wentzel(A_1).
        Real const B = (t2_1 - t2) / (t2_1 - m1 * m1);
        if (xi <= B)
            return m1;
        xi = (xi - B) / (1 - B);
    }
    Real const A = fast_exp(ln_a);
    Real const t = 2 * A * xi / (1 + A - xi);
    return t > 2 ? Real(2) : t;
}
} // namespace mcdose
