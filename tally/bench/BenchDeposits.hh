//! \file tally/bench/BenchDeposits.hh
//! The synthetic deposits of the tally-only benchmark (test 1 of the ARCHER
//! tally tests of Liu et al. 2018): each particle has 10 collisions; each
//! deposits an exponentially distributed energy (mean 0.1 MeV) into one of
//! `bins` bins chosen uniformly.
//!
//! Random numbers: rng/ Philox keyed by the particle index (counter-based),
//! so a particle's deposits do not depend on the thread, launch configuration
//! or backend that runs it; only the order of the additions does.
//!
//! Energies are rounded to multiples of 2^-22 MeV (0.24 eV): every deposit is
//! then exact in float and double and the exact reference is an integer sum.
//! The rounding is far below any physical significance and does not favour
//! any method (FA still rounds each add at the voxel's magnitude).
#pragma once

#include <cstdint>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Types.hh"
#include "rng/Distributions.hh"

namespace mcdose
{
//! Problem definition shared by host and device (trivially copyable).
struct BenchProblem
{
    std::uint64_t particles{0};
    size_type bins{8};
    //! Random collision count (1..10) and 1 in 4 deposits skipped: makes warps
    //! diverge inside the deposit loop (used by the device tests).
    bool divergent{false};

    static constexpr int collisions_per_particle = 10;
    static constexpr float mean_deposit_MeV = 0.1f;
    static constexpr int energy_exp2 = -22; //!< deposits are multiples of 2^-22 MeV
    //! Upper bound of one deposit: u >= 2^-24 gives E <= 0.1 * 24 ln 2 < 1.67 MeV.
    static constexpr double max_deposit_MeV = 2.0;

    //! Bound on the whole run's deposited energy (sets the FX quantum).
    double max_total_energy_MeV() const
    {
        return double(particles) * collisions_per_particle * max_deposit_MeV;
    }
};

//! One deposit: bin and energy in units of 2^energy_exp2 MeV.
struct BenchDeposit
{
    size_type bin;
    std::uint32_t energy_units;
};

//! Energy of `units` in MeV (exact).
MCDOSE_FORCEINLINE_FUNCTION double bench_energy_MeV(std::uint32_t units)
{
    return double(units) * 2.384185791015625e-07; // 2^-22
}

/*!
 * Call deposit(bin, units) for each deposit of one particle. The engine must
 * already be positioned on the particle's stream (begin_history(particle)).
 * Words drawn per collision: one for the bin (Lemire's multiply-shift,
 * bias < bins/2^32), one for the energy (generate_canonical<float>).
 */
template <class Engine, class F>
MCDOSE_FORCEINLINE_FUNCTION void sample_bench_particle(Engine& engine, BenchProblem const& problem,
                                                       F&& deposit)
{
    int collisions = BenchProblem::collisions_per_particle;
    if (problem.divergent)
        collisions = 1 + static_cast<int>(engine() % 10u);
    for (int c = 0; c < collisions; ++c)
    {
        auto const bin = static_cast<size_type>(
            (static_cast<std::uint64_t>(engine()) * static_cast<std::uint64_t>(problem.bins)) >>
            32);
        float const e_MeV = sample_exponential<float>(engine, BenchProblem::mean_deposit_MeV);
        // e * 2^22 < 2^23, so + 0.5 is exact and the cast rounds half up.
        auto const units = static_cast<std::uint32_t>(e_MeV * 4194304.0f + 0.5f);
        MCDOSE_ASSERT(units < (1u << 23));
        if (problem.divergent && (units & 3u) == 0)
            continue;
        deposit(bin, units);
    }
}
} // namespace mcdose
