//! \file rng/quality/OrnsteinUhlenbeck.hh
//! Application test of a generator: N independent 1-D overdamped Langevin
//! (Ornstein–Uhlenbeck) oscillators in V = k x^2 / 2, integrated with the
//! first-order (Euler–Maruyama) scheme
//!     x <- x - (k x / xi) dt + g sqrt(2 kB T dt / xi),   xi = kB T / D,
//! g standard normal (Box–Muller pairs). Exact results of the continuous
//! process (Uhlenbeck & Ornstein, Phys. Rev. 36, 823 (1930)):
//!     <x(t)>      = x(0) exp(-t/tau)          (all start at x(0) = x0)
//!     <x(t) x(0)> = (kB T / k) exp(-t/tau)    (x(0) from equilibrium)
//! with tau = xi / k. The Euler scheme gives a^n (a = 1 - dt/tau) instead of
//! exp(-n dt/tau); the relative difference n (dt/tau)^2 / 2 is < 1e-6 here, far
//! below the standard errors, so the continuous formulas are the reference.
//! Units: nm, ns, pN, K.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/Constants.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "rng/Distributions.hh"
#include "rng/RngKind.hh"

namespace mcdose
{
//! Inputs (defaults: the system of docs/rng.md, "Ornstein–Uhlenbeck application test").
struct OuInput
{
    double spring_pN_nm{0.01};
    double temperature_K{300};
    double diffusion_nm2_ns{0.25};
    double dt_ns{1e-3};
    double x0_nm{10};
    size_type oscillators{10000};
    size_type steps{10000};
    size_type checkpoints{10}; //!< evenly spaced, the last at `steps`
};

//! Derived constants used in the step (trivially copyable, for kernels).
struct OuSetup
{
    double kT_pN_nm; //!< kB T [pN nm]
    double tau_ns;   //!< xi / k
    double dt_ns;
    double decay;    //!< 1 - dt / tau
    double noise_nm; //!< sqrt(2 kB T dt / xi) = sqrt(2 D dt)
    double x0_nm;
    double equilibrium_sd_nm; //!< sqrt(kB T / k)
    std::uint32_t steps;
    std::uint32_t checkpoints;
    std::uint32_t steps_per_checkpoint;
};

//! Validate the input and derive the step constants.
OuSetup make_ou_setup(OuInput const& in);

//! Per-oscillator state between batches (the consumer is resumable so that the
//! lagged-Fibonacci generator can refill its shared ring between batches).
struct OuStateView
{
    Span<double> xa; //!< trajectory A, started at x0
    Span<double> xb; //!< trajectory B, started at y0 from equilibrium
    Span<double> y0;
    Span<double> a; //!< checkpoint m of oscillator j at m N + j: x_A
    Span<double> c; //!< x_B * y0
};

//! Words drawn per step (one Box–Muller pair of doubles).
inline constexpr size_type ou_words_per_step = 4;

//! Advance oscillator j (of n) from step `begin` to `end` with its engine. Step 0
//! first draws the equilibrium start y0; every step draws one Box–Muller pair:
//! the first deviate drives A, the second B.
template <class Engine>
MCDOSE_FUNCTION void ou_advance(OuSetup const& s, Engine& rng, size_type j, size_type n,
                                std::uint32_t begin, std::uint32_t end, OuStateView const& v)
{
    double xa, xb, y0;
    if (begin == 0)
    {
        xa = s.x0_nm;
        y0 = s.equilibrium_sd_nm * sample_normal_pair<double>(rng).first;
        xb = y0;
        v.y0[j] = y0;
    }
    else
    {
        xa = v.xa[j];
        xb = v.xb[j];
        y0 = v.y0[j];
    }
    for (std::uint32_t step = begin; step < end; ++step)
    {
        auto const g = sample_normal_pair<double>(rng);
        xa = s.decay * xa + s.noise_nm * g.first;
        xb = s.decay * xb + s.noise_nm * g.second;
        if ((step + 1) % s.steps_per_checkpoint == 0)
        {
            size_type const m = (step + 1) / s.steps_per_checkpoint - 1;
            v.a[m * n + j] = xa;
            v.c[m * n + j] = xb * y0;
        }
    }
    v.xa[j] = xa;
    v.xb[j] = xb;
}

//! One checkpoint's comparison, in units of the standard error.
struct OuCheckpoint
{
    double t_ns;
    double mean_nm, mean_expected_nm, mean_se_nm, mean_z;
    double corr_nm2, corr_expected_nm2, corr_se_nm2, corr_z;
};

struct OuResult
{
    std::string generator;
    OuSetup setup;
    size_type oscillators;
    std::vector<OuCheckpoint> rows;
    double max_abs_z;
    double z_limit; //!< pass iff max |z| < z_limit
    bool passed;
    double seconds;
};

//! Compare the stored checkpoint values with the exact results; pass iff every
//! |z| < z_limit (4 by default: for 2 x 10 correlated checkpoints the chance
//! that a correct generator fails is below 2e-3).
OuResult evaluate_ou(OuSetup const& s, size_type n, std::vector<double> const& a,
                     std::vector<double> const& c, double z_limit = 4.0);

//! Run the study on the host (single thread) or device for one generator.
OuResult run_ou(RngKind kind, RngOptions const& options, OuInput const& input, MemSpace where);
} // namespace mcdose
