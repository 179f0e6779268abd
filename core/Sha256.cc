//! \file core/Sha256.cc
#include "core/Sha256.hh"

#include <algorithm>
#include <cstring>

namespace mcdose
{
namespace
{
//! FIPS 180-4 Sec. 4.2.2: the first 32 bits of the fractional parts of the cube roots of the
//! first 64 primes.
constexpr std::uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}
} // namespace

//! FIPS 180-4 Sec. 5.3.3: the initial hash value.
Sha256::Sha256()
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
{
}

Sha256& Sha256::update(void const* data, std::size_t size)
{
    auto const* bytes = static_cast<std::uint8_t const*>(data);
    length_bytes_ += size;
    while (size > 0)
    {
        std::size_t const take = std::min(size, block_.size() - block_size_);
        std::memcpy(block_.data() + block_size_, bytes, take);
        block_size_ += take;
        bytes += take;
        size -= take;
        if (block_size_ == block_.size())
        {
            compress(block_.data());
            block_size_ = 0;
        }
    }
    return *this;
}

//! FIPS 180-4 Sec. 5.1.1 (padding) and 6.2.2 (the final blocks).
Sha256::Digest Sha256::finish()
{
    std::uint64_t const length_bits = length_bytes_ * 8;
    std::uint8_t const one = 0x80;
    update(&one, 1);
    std::uint8_t const zero = 0;
    while (block_size_ != 56)
        update(&zero, 1);
    std::uint8_t length[8];
    for (int i = 0; i < 8; ++i)
        length[i] = static_cast<std::uint8_t>(length_bits >> (56 - 8 * i));
    update(length, 8);
    Digest digest;
    for (int i = 0; i < 8; ++i)
    {
        for (int b = 0; b < 4; ++b)
            digest[4 * i + b] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * b));
    }
    return digest;
}

//! FIPS 180-4 Sec. 6.2.2: the message schedule and 64 rounds on one 512-bit block.
void Sha256::compress(std::uint8_t const* block)
{
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t)
    {
        w[t] = std::uint32_t(block[4 * t]) << 24 | std::uint32_t(block[4 * t + 1]) << 16 |
               std::uint32_t(block[4 * t + 2]) << 8 | std::uint32_t(block[4 * t + 3]);
    }
    for (int t = 16; t < 64; ++t)
    {
        std::uint32_t const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        std::uint32_t const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
    std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
    for (int t = 0; t < 64; ++t)
    {
        std::uint32_t const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        std::uint32_t const ch = (e & f) ^ (~e & g);
        std::uint32_t const t1 = h + s1 + ch + round_constants[t] + w[t];
        std::uint32_t const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        std::uint32_t const maj = (a & b) ^ (a & c) ^ (b & c);
        std::uint32_t const t2 = s0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state_[0] += a;
    state_[1] += b;
    state_[2] += c;
    state_[3] += d;
    state_[4] += e;
    state_[5] += f;
    state_[6] += g;
    state_[7] += h;
}

std::string to_hex(Sha256::Digest const& digest)
{
    static char const digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(2 * digest.size());
    for (std::uint8_t byte : digest)
    {
        s.push_back(digits[byte >> 4]);
        s.push_back(digits[byte & 0xf]);
    }
    return s;
}

std::string sha256_hex(std::string_view bytes)
{
    return to_hex(Sha256().update(bytes).finish());
}
} // namespace mcdose
