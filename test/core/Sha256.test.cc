//! \file test/core/Sha256.test.cc
//! Known answers of FIPS 180-4 (NIST "Examples with intermediate values", SHA-256).
#include "core/Sha256.hh"

#include <string>

#include <gtest/gtest.h>

namespace mcdose
{
namespace
{
TEST(Sha256Test, KnownAnswers)
{
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 448 bits: the padding needs a second block.
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, PiecewiseUpdateEqualsOneCall)
{
    std::string message;
    for (int i = 0; i < 300; ++i)
        message.push_back(static_cast<char>(i * 7 + 3));
    for (std::size_t cut : {0u, 1u, 55u, 63u, 64u, 65u, 128u, 299u})
    {
        Sha256 h;
        h.update(message.substr(0, cut)).update(message.substr(cut));
        EXPECT_EQ(to_hex(h.finish()), sha256_hex(message)) << "cut at " << cut;
    }
}
} // namespace
} // namespace mcdose
