//! \file rng/Distributions.hh
//! Distributions as free function templates on any engine with
//! `std::uint32_t operator()()`. Host and device. Number of words consumed per
//! call is part of each function's contract (reproducibility depends on it).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/Constants.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Uniform deviate in (0, 1]: never 0, so log(u) is finite.
//! - float: 1 word, 24-bit resolution: ((w >> 8) + 1) * 2^-24;
//! - double: 2 words, 53-bit resolution: ((hi << 21 ^ lo >> 11) + 1) * 2^-53.
//! Both are exact in the target type (no rounding up to 1 + eps or down to 0).
template <class Real, class Engine>
MCDOSE_FORCEINLINE_FUNCTION Real generate_canonical(Engine& engine)
{
    static_assert(std::is_same<Real, float>::value || std::is_same<Real, double>::value,
                  "generate_canonical: Real must be float or double");
    if constexpr (std::is_same<Real, float>::value)
    {
        std::uint32_t const w = engine();
        return static_cast<float>((w >> 8) + 1u) * 5.9604644775390625e-08f; // 2^-24
    }
    else
    {
        std::uint64_t const hi = engine();
        std::uint64_t const lo = engine();
        std::uint64_t const bits53 = (hi << 21) ^ (lo >> 11);
        return static_cast<double>(bits53 + 1u) * 1.1102230246251565404e-16; // 2^-53
    }
}

namespace detail
{
template <class Engine, class = void>
struct BuffersBlocks : std::false_type
{
};
template <class Engine>
struct BuffersBlocks<Engine, std::void_t<decltype(std::declval<Engine&>().skip_to_block())>>
    : std::true_type
{
};
} // namespace detail

/*!
 * Mark a point where the lanes of a warp start drawing together (the start of
 * a transport step). An engine that computes its words a block at a time
 * (Philox: 4 words per block) skips the rest of its block, so that the lanes
 * that run the same code afterwards refill on the same draw, once for all of
 * them, instead of each lane on its own draw with the others waiting. The
 * words skipped are never used; a history's words still depend only on
 * (seed, stream, history). Engines with no blocks: nothing.
 */
template <class Engine>
MCDOSE_FORCEINLINE_FUNCTION void align_draws(Engine& engine)
{
    if constexpr (detail::BuffersBlocks<Engine>::value)
        engine.skip_to_block();
}

//! Exponential deviate with the given mean (units of `mean`), by inversion:
/*!
 * An entry of a Walker alias table (A. J. Walker, ACM Trans. Math. Softw. 3 (1977) 253):
 * column i uniform (one deviate), kept with probability keep[i], else alias[i] (one
 * deviate). Two generate_canonical<Real>; the table is built on the host
 * (sources/SourceParams.cc, build_alias).
 */
template <class Real, class Engine>
MCDOSE_FORCEINLINE_FUNCTION size_type sample_alias(Engine& engine, Span<Real const> keep,
                                                   Span<int const> alias)
{
    size_type const n = keep.size();
    size_type column = static_cast<size_type>(generate_canonical<Real>(engine) * Real(n));
    column = column < n ? column : n - 1; // the deviate may be exactly 1
    return generate_canonical<Real>(engine) <= keep[column] ? column
                                                            : static_cast<size_type>(alias[column]);
}

//! x = -mean ln u, u in (0,1]. Uses one generate_canonical<Real>.
template <class Real, class Engine>
MCDOSE_FORCEINLINE_FUNCTION Real sample_exponential(Engine& engine, Real mean)
{
    return -mean * fast_log(generate_canonical<Real>(engine));
}

//! sin and cos of an azimuthal angle uniform in (0, 2 pi]: the angle is
//! 2 pi xi, and fast_sincos_turns takes xi itself. One generate_canonical<Real>.
template <class Real, class Engine>
MCDOSE_FORCEINLINE_FUNCTION SinCos<Real> sample_azimuth_sincos(Engine& engine)
{
    return fast_sincos_turns(generate_canonical<Real>(engine));
}

//! Two independent standard normal deviates.
template <class Real>
struct NormalPair
{
    Real first;
    Real second;
};

//! Box–Muller transform: r = sqrt(-2 ln u1), phi = 2 pi u2, (r cos phi, r sin phi).
//! G. E. P. Box and M. E. Muller, Ann. Math. Stat. 29, 610 (1958).
//! Consumes two generate_canonical<Real> (u1 first).
template <class Real, class Engine>
MCDOSE_FORCEINLINE_FUNCTION NormalPair<Real> sample_normal_pair(Engine& engine)
{
    Real const r = std::sqrt(Real(-2) * fast_log(generate_canonical<Real>(engine)));
    auto const phi = sample_azimuth_sincos<Real>(engine);
    return {r * phi.c, r * phi.s};
}

//! Unit vector (direction cosines u, v, w).
template <class Real>
struct Direction
{
    Real u;
    Real v;
    Real w;
};

//! Isotropic direction: w = cos(theta) = 2 xi1 - 1, phi = 2 pi xi2,
//! (sqrt(1-w^2) cos phi, sqrt(1-w^2) sin phi, w). Two generate_canonical<Real>.
template <class Real, class Engine>
MCDOSE_FORCEINLINE_FUNCTION Direction<Real> sample_isotropic(Engine& engine)
{
    Real const w = Real(2) * generate_canonical<Real>(engine) - Real(1);
    auto const phi = sample_azimuth_sincos<Real>(engine);
    Real const sin_theta = std::sqrt(std::fmax(Real(0), Real(1) - w * w));
    return {sin_theta * phi.c, sin_theta * phi.s, w};
}
} // namespace mcdose
