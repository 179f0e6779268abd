//! \file core/Sha256.hh
//! SHA-256 (NIST FIPS 180-4): the digest that names and checks cached tables, where a 64-bit
//! hash (core/Hash.hh) could collide across the many inputs a cache sees. Host only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mcdose
{
class Sha256
{
  public:
    using Digest = std::array<std::uint8_t, 32>;

    Sha256();
    //! Append bytes to the message.
    Sha256& update(void const* data, std::size_t size);
    Sha256& update(std::string_view bytes) { return update(bytes.data(), bytes.size()); }
    //! The digest of everything appended (the object is then spent: construct a new one).
    Digest finish();

  private:
    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> block_{};
    std::size_t block_size_{0};
    std::uint64_t length_bytes_{0};

    void compress(std::uint8_t const* block);
};

//! SHA-256 of `bytes` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);
//! A digest as lower-case hex digits.
std::string to_hex(Sha256::Digest const& digest);
} // namespace mcdose
