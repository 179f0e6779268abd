//! \file rng/SplitMix64.hh
//! SplitMix64: the seeding generator that turns (master seed, stream id) into
//! independent-looking per-thread seeds for the per-thread engines.
//! Reference: G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom
//! number generators", OOPSLA 2014 (finaliser constants from Stafford's Mix13).
#pragma once

#include <cstdint>

#include "core/Macros.hh"

namespace mcdose
{
//! SplitMix64 stream: state advances by the golden-ratio increment, output is
//! the Mix13 finaliser of the state. Host and device.
class SplitMix64
{
  public:
    //! Seed from a master seed and a stream id: distinct (seed, stream) pairs
    //! give distinct, decorrelated starting states.
    MCDOSE_FUNCTION SplitMix64(std::uint64_t seed, std::uint64_t stream)
        : state_(mix(seed ^ mix(stream + golden_gamma)))
    {
    }

    //! Next 64-bit word.
    MCDOSE_FUNCTION std::uint64_t operator()()
    {
        state_ += golden_gamma;
        return mix(state_);
    }

    //! Next 32-bit word (upper half of a 64-bit output).
    MCDOSE_FUNCTION std::uint32_t next_u32() { return static_cast<std::uint32_t>((*this)() >> 32); }

    //! Stafford Mix13 finaliser (a bijection of 64-bit words).
    MCDOSE_FUNCTION static std::uint64_t mix(std::uint64_t z)
    {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

  private:
    static constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ull;
    std::uint64_t state_;
};
} // namespace mcdose
