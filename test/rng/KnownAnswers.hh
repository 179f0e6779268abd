//! \file test/rng/KnownAnswers.hh
//! Known answers shared by the host and device tests.
//! - Philox: Random123 `tests/kat_vectors` (philox4x32 10), published by
//!   D. E. Shaw Research.
//! - Recorded words: for each engine, 4 threads x 8 words (out[k*4 + j] is
//!   thread j's k-th word) from the host implementation at the commit that
//!   added this file; the Hybrid Taus words are also checked against an
//!   independent re-implementation and the Philox mapping against the
//!   published vectors, so these pin the seeding and the engine wiring.
#pragma once

#include <cstdint>
#include <vector>

#include "rng/RngKind.hh"

namespace mcdose::test
{
struct PhiloxKat
{
    char const* name;
    std::uint32_t ctr[4];
    std::uint32_t key[2];
    std::uint32_t expected[4];
};

inline std::vector<PhiloxKat> const& philox_published_kats()
{
    static std::vector<PhiloxKat> const kats{
        {"zeros", {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {"ones",
         {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
         {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {"pi",
         {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
         {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}};
    return kats;
}

//! Params and one thread state that make PhiloxEngine's first block the
//! published "pi" vector: key = seed, counter = (draw/4, stream, history).
inline PhiloxRngParams philox_pi_params()
{
    auto const& kat = philox_published_kats()[2];
    return {(std::uint64_t(kat.key[1]) << 32) | kat.key[0], kat.ctr[1], 0};
}
inline std::vector<PhiloxState> philox_pi_states()
{
    auto const& kat = philox_published_kats()[2];
    return {{(std::uint64_t(kat.ctr[3]) << 32) | kat.ctr[2], std::uint64_t(kat.ctr[0]) * 4}};
}

inline constexpr size_type kat_threads = 4;
inline constexpr size_type kat_words = 8;

inline HybridTausRngParams kat_hybrid_taus_params()
{
    return {20260611u, 0u};
}
inline PhiloxRngParams kat_philox_params()
{
    return {0x0123456789abcdefull, 7u, 1000u};
}
inline LcgRngParams kat_lcg_params()
{
    return {42u, 0u};
}
inline Ran2RngParams kat_ran2_params()
{
    return {42u, 0u};
}
//! RNS = 3 so the 8 words cross three rounds (lags 1252, 2281).
inline LaggedFibonacciRngParams kat_lfg_params()
{
    LaggedFibonacciRngParams p;
    p.seed = 42u;
    p.numbers_per_round = 3;
    return p;
}

inline std::vector<std::uint32_t> kat_hybrid_taus_words()
{
    return {0xc91fd1df, 0x80925a6f, 0xc91eac9b, 0x6ee0bf02, 0xfe8036df, 0x06a85202, 0x30960abc,
            0x895c93d7, 0xdf4b5568, 0x04a342da, 0xb702420b, 0x94111f60, 0x5dbd328f, 0xdab9ffa4,
            0xf6e48576, 0xc790a926, 0x67ca3f92, 0x82b11114, 0xe26b6a27, 0x5a7634d3, 0xbe4022ef,
            0x3b02628c, 0xc768c1bf, 0xfa87d38a, 0x66e1fae6, 0xbff801df, 0x19e98a46, 0x2ccfffc6,
            0x431c4369, 0x04be50e0, 0xe9938fd6, 0xe32b5310};
}
inline std::vector<std::uint32_t> kat_philox_words()
{
    return {0x7cd3979a, 0x583c32f4, 0x11cd9939, 0x8c020f4a, 0xe248738b, 0xf0fd6269, 0x4cdd1b0e,
            0xe7ac75c7, 0x86deafac, 0x817b7b92, 0x49499065, 0x1aef0ac1, 0x5ad4d70c, 0x885bd441,
            0x4a5b54ca, 0xad5deaae, 0x3702a8d3, 0x784e95c4, 0x67db4fb0, 0xf492db60, 0xc8ae2ebd,
            0x073584c6, 0x61f02e21, 0xb31a8d11, 0xc8b4be6e, 0x827e58c7, 0x45337052, 0x7888a7fb,
            0xb76a2ec9, 0x83764006, 0x89e38025, 0xc677f936};
}
inline std::vector<std::uint32_t> kat_lcg_words()
{
    return {0xb5bd52ed, 0xec48b6e8, 0x1ebd1727, 0x796a7797, 0xff3b9768, 0x11a8ad27, 0x6611aa5a,
            0x803c300a, 0xb9f113a7, 0x3fcc485a, 0x17fe75f1, 0x6b9b5fe1, 0xa6d07cda, 0xef6c7bf1,
            0x5be1f69c, 0xf87f77cc, 0xf80e2671, 0xb8dc449c, 0x0466a14b, 0x578f50bb, 0x3980ed1c,
            0x1630974b, 0x1a3c062e, 0xab238ede, 0xae3025cb, 0x7f81842e, 0x166f97b5, 0x0bd7a8a5,
            0xf4c2c0ae, 0x392afdb5, 0xa738c590, 0x3bb141c0};
}
inline std::vector<std::uint32_t> kat_ran2_words()
{
    return {0x6d8a6d61, 0x6bbd803c, 0xe5250fcb, 0x5bbd8325, 0xb788782d, 0x41b5d430, 0x7ea118f1,
            0xd140df82, 0x747df370, 0x2d18cff0, 0xee3a1c22, 0xd6865170, 0x6f61363a, 0x0c730922,
            0x49cb58bb, 0xb507bb5b, 0xc0e1b01d, 0x75040eee, 0x23d6939a, 0xcc46e0a3, 0xf63a6fe9,
            0x780292ee, 0xca2f4667, 0x4b561d06, 0x4e007482, 0x0499e5a5, 0xbf58be9c, 0x3d16acd7,
            0x8c793bfa, 0x5c3c45d3, 0xf41136b5, 0x6ee6e9a4};
}
inline std::vector<std::uint32_t> kat_lfg_words()
{
    return {0x654dffaa, 0xa2051dc5, 0x836257f5, 0x0f31bb0f, 0x068c0c2a, 0x99cb4efc, 0x9d671da5,
            0xfa456460, 0x8dd94f4e, 0xcabadb69, 0xe2156d4a, 0xaaf30d2b, 0x97bff18b, 0x5c06d5d7,
            0xb73ca2b0, 0xd7253cc3, 0xd3606698, 0x87a07013, 0xdaf922dc, 0xef456631, 0x77f31517,
            0x7e2b9aef, 0xcc655263, 0x16f5e2f9, 0x6e292fb3, 0x1dc51221, 0xc2c1fa41, 0x16134621,
            0x6b991df5, 0xb8b85703, 0x30b5964b, 0xaf931df1};
}
} // namespace mcdose::test
