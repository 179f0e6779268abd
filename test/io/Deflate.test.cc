//! \file test/io/Deflate.test.cc
//! io/Deflate.hh: streams any inflate reads; data that hardly deflate stored, runs of one
//! element run-encoded.
#include "io/Deflate.hh"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace mcdose
{
namespace
{
//! n bytes of a linear congruential sequence: noise that deflate hardly shrinks.
std::vector<unsigned char> noise(std::size_t n, std::uint32_t seed)
{
    std::vector<unsigned char> v(n);
    for (auto& b : v)
    {
        seed = seed * 1664525u + 1013904223u;
        b = static_cast<unsigned char>(seed >> 24);
    }
    return v;
}

//! A zlib stream of raw deflate pieces: header, the pieces, their combined Adler-32.
std::vector<unsigned char> zlib_stream(std::vector<DeflatedPiece> const& pieces,
                                       std::vector<std::size_t> const& sizes)
{
    std::vector<unsigned char> stream = {0x78, 0x01};
    uLong adler = adler32(0L, Z_NULL, 0);
    for (std::size_t k = 0; k < pieces.size(); ++k)
    {
        stream.insert(stream.end(), pieces[k].bytes.begin(), pieces[k].bytes.end());
        adler = adler32_combine(adler, pieces[k].adler, z_off_t(sizes[k]));
    }
    for (int shift = 24; shift >= 0; shift -= 8)
        stream.push_back(static_cast<unsigned char>(adler >> shift));
    return stream;
}

std::vector<unsigned char> inflated(std::vector<unsigned char> const& stream, std::size_t n)
{
    std::vector<unsigned char> out(n + 1);
    uLongf size = uLongf(out.size());
    EXPECT_EQ(Z_OK, uncompress(out.data(), &size, stream.data(), uLong(stream.size())));
    out.resize(size);
    return out;
}
} // namespace

TEST(DeflateTest, NoiseIsStoredAndZerosDeflated)
{
    std::size_t const n = std::size_t(1) << 20;
    std::vector<unsigned char> const zeros(n, 0);
    auto const z = deflate_zlib(zeros.data(), n, 1);
    EXPECT_LT(z.size(), n / 100);
    EXPECT_EQ(zeros, inflated(z, n));
    // Noise: stored after the first step, so the stream is the data plus block headers
    // (5 bytes per stored block of at most 64 KiB) and no smaller.
    auto const data = noise(n, 17);
    auto const s = deflate_zlib(data.data(), n, 1);
    EXPECT_GT(s.size(), n);
    EXPECT_LE(s.size(), n + n / 1000 + 64);
    EXPECT_EQ(data, inflated(s, n));
}

TEST(DeflateTest, ZerosThenNoiseKeepTheDeflatedStart)
{
    std::vector<unsigned char> data(std::size_t(512) << 10, 0);
    auto const tail = noise(std::size_t(512) << 10, 5);
    data.insert(data.end(), tail.begin(), tail.end());
    auto const s = deflate_zlib(data.data(), data.size(), 1);
    EXPECT_LT(s.size(), tail.size() + tail.size() / 10); // the zeros shrank, the noise stored
    EXPECT_GE(s.size(), tail.size());
    EXPECT_EQ(data, inflated(s, data.size()));
}

TEST(DeflateTest, RawPiecesJoinIntoOneZlibStream)
{
    // Two pieces (runs of zeros, then noise) deflated apart, joined after a zlib header,
    // with the combined Adler-32 after them: one stream.
    std::vector<unsigned char> const a(300000, 0);
    auto const b = noise(200000, 3);
    auto const pa = deflate_raw_piece(a.data(), a.size(), 1, false);
    auto const pb = deflate_raw_piece(b.data(), b.size(), 1, true);
    EXPECT_EQ(adler32(adler32(0L, Z_NULL, 0), a.data(), uInt(a.size())), pa.adler);
    EXPECT_EQ(adler32(adler32(0L, Z_NULL, 0), b.data(), uInt(b.size())), pb.adler);
    std::vector<unsigned char> whole = a;
    whole.insert(whole.end(), b.begin(), b.end());
    EXPECT_EQ(whole, inflated(zlib_stream({pa, pb}, {a.size(), b.size()}), whole.size()));
}

TEST(DeflateTest, RunsOfEveryLengthAndElementSizeInflateBack)
{
    // Runs of 1 to 600 repeated elements (every match length and the short tails), of
    // 1-, 2-, 4- and 8-byte elements, and a tail shorter than an element: the run
    // encoder's stream (as a zlib stream and as a final raw piece) inflates to the data.
    for (std::size_t element : {1, 2, 4, 8})
    {
        SCOPED_TRACE("element of " + std::to_string(element) + " bytes");
        std::vector<unsigned char> data;
        for (std::size_t run = 1; run <= 600; ++run)
        {
            for (std::size_t r = 0; r < run; ++r)
            {
                for (std::size_t b = 0; b < element; ++b)
                    data.push_back(static_cast<unsigned char>(run * 7 + b * 131));
            }
        }
        data.push_back(0xab); // not a whole element
        auto const z = deflate_zlib(data.data(), data.size(), 1, element);
        EXPECT_LT(z.size(), data.size() / 20);
        EXPECT_EQ(data, inflated(z, data.size()));
        auto const piece = deflate_raw_piece(data.data(), data.size(), 1, true, element);
        EXPECT_EQ(adler32(adler32(0L, Z_NULL, 0), data.data(), uInt(data.size())), piece.adler);
        EXPECT_EQ(data, inflated(zlib_stream({piece}, {data.size()}), data.size()));
    }
}

TEST(DeflateTest, SparseDosesRunEncodedAndJoinedWithDeflatedNoise)
{
    // Doubles with 2 % non-zero (a short run's dose): run-encoded, far smaller than the
    // data; a piece of it (sync flush) joined to a deflated piece of noise: one stream.
    std::size_t const n = 100000;
    std::vector<double> dose(n, 0.0);
    std::uint32_t x = 12345u;
    for (std::size_t i = 0; i < n; ++i)
    {
        x = x * 1664525u + 1013904223u;
        if (x % 50 == 0)
            dose[i] = 1e-3 * double(x) / 4294967296.0;
    }
    std::size_t const bytes = n * sizeof(double);
    auto const z = deflate_zlib(dose.data(), bytes, 1, sizeof(double));
    EXPECT_LT(z.size(), bytes / 10);
    // Each value's 8 literal bytes (8.5 on average) and its gap: a copy of an earlier run
    // of zeros (about 4 bytes), not 8 more literal bytes of a zero as well (about 20 in all).
    auto const values =
        std::size_t(std::count_if(dose.begin(), dose.end(), [](double d) { return d != 0; }));
    EXPECT_LT(z.size(), 15 * values);
    std::vector<unsigned char> const raw(reinterpret_cast<unsigned char const*>(dose.data()),
                                         reinterpret_cast<unsigned char const*>(dose.data()) +
                                             bytes);
    EXPECT_EQ(raw, inflated(z, bytes));
    auto const b = noise(100000, 9);
    auto const pa = deflate_raw_piece(raw.data(), bytes, 1, false, sizeof(double));
    auto const pb = deflate_raw_piece(b.data(), b.size(), 1, true);
    EXPECT_EQ(adler32(adler32(0L, Z_NULL, 0), raw.data(), uInt(bytes)), pa.adler);
    std::vector<unsigned char> whole = raw;
    whole.insert(whole.end(), b.begin(), b.end());
    EXPECT_EQ(whole, inflated(zlib_stream({pa, pb}, {bytes, b.size()}), whole.size()));
}
TEST(DeflateTest, RunsCopyTheLastRunOfTheirElementWithinTheWindow)
{
    // W x 64, Z x 16, A x m, Z x 4: the second run of Z starts d bytes after the first, d
    // each distance code's least and largest distance from 17 bytes on (the nearest a run
    // of the same element can be: 16 of them and one other before) and the window's edge,
    // 32768 and 32769 (for elements of 2, 4 and 8 bytes, those that are whole elements):
    // the stream inflates to the data, and the second run copies the first where it is
    // within deflate's 32 KiB: no longer than with an element never seen (Z2) there, shorter
    // for elements of 4 bytes or more (literal bytes against a match: at least 20 bits), the
    // same length beyond the window.
    std::vector<std::size_t> distances = {32768, 32769, 40000};
    for (int code = 8; code < 30; ++code)
    {
        std::size_t const extra = std::size_t(code / 2 - 1);
        std::size_t const least = ((std::size_t(2) + std::size_t(code % 2)) << extra) + 1;
        distances.push_back(least);
        distances.push_back(least + (std::size_t(1) << extra) - 1);
    }
    for (std::size_t element : {1, 2, 4, 8})
    {
        for (std::size_t d : distances)
        {
            if (d % element != 0 || d < 17 * element)
                continue;
            std::size_t const m = d / element - 16; // elements of A
            SCOPED_TRACE("element of " + std::to_string(element) + " bytes, distance " +
                         std::to_string(d));
            auto const data = [&](unsigned char second)
            {
                std::vector<unsigned char> v;
                for (auto [byte, count] : {std::pair<unsigned char, std::size_t>{0x33, 64},
                                           {0x11, 16},
                                           {0x44, m},
                                           {second, 4}})
                    v.insert(v.end(), count * element, byte);
                return v;
            };
            auto const same = data(0x11), unseen = data(0x22);
            auto const z_same = deflate_zlib(same.data(), same.size(), 1, element);
            auto const z_unseen = deflate_zlib(unseen.data(), unseen.size(), 1, element);
            EXPECT_EQ(same, inflated(z_same, same.size()));
            EXPECT_EQ(unseen, inflated(z_unseen, unseen.size()));
            if (d > 32768)
                EXPECT_EQ(z_unseen.size(), z_same.size());
            else if (element >= 4)
                EXPECT_LT(z_same.size(), z_unseen.size());
            else
                EXPECT_LE(z_same.size(), z_unseen.size());
        }
    }
}

TEST(DeflateTest, RunsGivenAsRunsMakeTheStreamOfTheirElements)
{
    // A sequence given by its runs (gaps of one element and single others, some equal to
    // their neighbours or to the gaps' element, runs of 0 and neighbouring runs of the same
    // element) gives deflate_zlib's stream of the elements themselves, byte for byte, for
    // each element size; where the runs cover less than 3/4 of the bytes, none.
    for (std::size_t element : {1, 2, 4, 8})
    {
        SCOPED_TRACE("element of " + std::to_string(element) + " bytes");
        std::vector<unsigned char> values; // the single elements, `element` bytes each
        std::vector<std::size_t> gaps;     // the gap before each
        std::uint32_t x = 777u;
        for (int k = 0; k < 3000; ++k)
        {
            x = x * 1664525u + 1013904223u;
            gaps.push_back(k % 97 == 5 ? 0 : x % 61);
            for (std::size_t b = 0; b < element; ++b)
            {
                // every 9th equal to the gaps' element (zeros), every 7th to the one before
                unsigned char const c = k % 9 == 4   ? 0
                                        : k % 7 == 3 ? values[values.size() - element]
                                                     : static_cast<unsigned char>(x >> (8 + b));
                values.push_back(c);
            }
        }
        std::vector<unsigned char> const zero(element, 0);
        std::vector<ElementRun> runs;
        std::vector<unsigned char> elements;
        for (std::size_t k = 0; k < gaps.size(); ++k)
        {
            runs.push_back({zero.data(), gaps[k]});
            if (k % 11 == 0 && gaps[k] > 1) // a gap split in two runs
            {
                runs.back().count = 1;
                runs.push_back({zero.data(), gaps[k] - 1});
            }
            elements.insert(elements.end(), gaps[k] * element, 0);
            runs.push_back({values.data() + k * element, 1});
            elements.insert(elements.end(), values.begin() + long(k * element),
                            values.begin() + long((k + 1) * element));
        }
        runs.push_back({zero.data(), 5});
        elements.insert(elements.end(), 5 * element, 0);
        auto const from_runs = deflate_zlib_runs(runs, element);
        ASSERT_TRUE(from_runs.has_value());
        EXPECT_EQ(deflate_zlib(elements.data(), elements.size(), 1, element), *from_runs);
        EXPECT_EQ(elements, inflated(*from_runs, elements.size()));
        // Gaps of at most 1: the runs cover less than 3/4 of the bytes.
        std::vector<ElementRun> dense;
        for (std::size_t k = 0; k < gaps.size(); ++k)
        {
            dense.push_back({zero.data(), std::min<std::size_t>(gaps[k], 1)});
            dense.push_back({values.data() + k * element, 1});
        }
        EXPECT_FALSE(deflate_zlib_runs(dense, element).has_value());
    }
}
} // namespace mcdose
