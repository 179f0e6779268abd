//! \file core/Hash.hh
//! FNV-1a 64-bit hash (Fowler, Noll and Vo; the offset basis and prime of the
//! published 64-bit variant): input fingerprints and file checksums. Not a
//! cryptographic hash.
#pragma once

#include <cstdint>
#include <string_view>

namespace mcdose
{
inline std::uint64_t fnv1a64(std::string_view bytes)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : bytes)
    {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}
} // namespace mcdose
