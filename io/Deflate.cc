//! \file io/Deflate.cc
#include "io/Deflate.hh"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
//! Input per step; a step whose output exceeds half of it ends the deflating.
constexpr std::size_t deflate_step = std::size_t(64) << 10;

//! Raw deflate of [data, data + size), ending with `flush`.
std::vector<unsigned char> deflate_steps(void const* data, std::size_t size, int level, int flush)
{
    z_stream z{};
    int status = deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    MCDOSE_VALIDATE(status == Z_OK, << "zlib deflateInit2 failed (" << status << ")");
    // deflateBound covers stored blocks; the margin, the sync flush and the level change.
    std::vector<unsigned char> out(deflateBound(&z, uLong(size)) + 64);
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    auto const* in = static_cast<Bytef const*>(data);
    bool stored = level == Z_NO_COMPRESSION;
    bool ok = true;
    for (std::size_t at = 0; ok;)
    {
        std::size_t const step = stored ? size - at : std::min(deflate_step, size - at);
        uLong const out_before = z.total_out;
        z.next_in = const_cast<Bytef*>(in + at);
        z.avail_in = uInt(step);
        at += step;
        bool const last = at == size;
        status = deflate(&z, last ? flush : Z_NO_FLUSH);
        ok = z.avail_in == 0 &&
             (last && flush == Z_FINISH ? status == Z_STREAM_END : status == Z_OK);
        if (last || !ok)
            break;
        if (!stored && 2 * (z.total_out - out_before) > step)
        {
            // What is pending is deflated at the old level, the rest stored (where zlib
            // cannot switch now, which it reports harmlessly, it goes on deflating).
            stored = deflateParams(&z, Z_NO_COMPRESSION, Z_DEFAULT_STRATEGY) == Z_OK;
        }
    }
    out.resize(z.total_out);
    deflateEnd(&z);
    MCDOSE_VALIDATE(ok, << "zlib deflate failed (" << status << ")");
    return out;
}

/*!
 * Deflate for data made mostly of runs of one repeated element (a dose grid where most
 * voxels got nothing, a uniform phantom's density): each run starts with a copy of the
 * last run of the same element if that is within deflate's 32 KiB window (a match at its
 * distance; else the element as literals) and goes on with copies of the element before
 * (matches at the distance of one element, up to 258 bytes each), everything else
 * literals, all in one block of deflate's fixed Huffman codes (RFC 1951, 3.2.5-3.2.6). No
 * searching beyond the last run of each element (a small table by the element's value):
 * 5 to 6 times zlib's speed at level 1 on such data, whose runs zlib finds anyway;
 * literals cost 8-9 bits, so it is used only where runs cover most of the bytes. A sparse dose
 * slice's gaps then cost a match or two each, not the 8 literal bytes of a zero double as well.
 */
class RunDeflate
{
  public:
    explicit RunDeflate(std::vector<unsigned char>& out) : out_(out), at_(out.size()) {}

    //! Adler-32 (RFC 1950) of the bytes the blocks have encoded so far.
    std::uint32_t adler() const { return std::uint32_t((b_ % adler_mod) << 16 | (a_ % adler_mod)); }

    //! One block (final or not) of [data, data + size), elements of `element` bytes.
    void block(unsigned char const* data, std::size_t size, std::size_t element, bool final)
    {
        this->start_block(final);
        std::size_t const count = size / element;
        for_each_run(data, count, element,
                     [&](std::size_t i, std::size_t j)
                     { this->run(data + i * element, element, j - i); });
        this->literals(data + count * element, size - count * element);
        this->symbol(256); // end of block
    }

    //! One block (final or not) of the elements of maximal runs (ElementRun).
    void block(std::vector<ElementRun> const& runs, std::size_t element, bool final)
    {
        this->start_block(final);
        for (ElementRun const& r : runs)
            this->run(r.bytes, element, r.count);
        this->symbol(256); // end of block
    }

    //! A sync flush: an empty stored block, which ends on a byte.
    void sync_flush()
    {
        this->put(0, 3);
        this->align();
        for (unsigned char b : {0x00, 0x00, 0xff, 0xff})
            this->byte(b);
        out_.resize(at_);
    }

    //! Pad to a byte (the stream's end); the output then holds exactly what was written.
    void align()
    {
        this->flush_bytes();
        if (bits_ > 0)
            this->byte(static_cast<unsigned char>(acc_));
        acc_ = 0;
        bits_ = 0;
        out_.resize(at_);
    }

    //! Bytes covered by runs that block() would copy rather than spell out.
    static std::size_t run_bytes(unsigned char const* data, std::size_t size, std::size_t element)
    {
        std::size_t covered = 0;
        for_each_run(data, size / element, element,
                     [&](std::size_t i, std::size_t j) { covered += (j - i - 1) * element; });
        return covered;
    }

  private:
    void start_block(bool final)
    {
        this->put(final ? 1 : 0, 1);
        this->put(1, 2); // fixed Huffman codes
    }

    //! `count` copies of the `element` bytes at `first`: the start copied from the last
    //! run of that element where it is in the window, else the first copy as literals;
    //! the rest as matches one element back.
    void run(unsigned char const* first, std::size_t element, std::size_t count)
    {
        std::size_t const bytes = count * element;
        std::size_t const start = pos_;
        std::uint64_t value = 0;
        std::memcpy(&value, first, element);
        LastRun& last = last_runs_[last_run_slot(value)];
        bool const seen = last.bytes > 0 && last.element == element && last.value == value &&
                          start - last.start <= max_distance;
        // Bytes of the run written so far: a copy of the element's last run, or none yet.
        std::size_t done =
            seen ? far_copy_bytes(first, element, bytes, start - last.start, last.bytes) : 0;
        if (done > 0)
        {
            this->adler_repeats(first, element, count);
            this->match(done, start - last.start);
        }
        else
        {
            done = element;
            this->literals(first, element);
            this->adler_repeats(first, element, count - 1);
        }
        // At least one element is written: the rest copies the element before.
        std::size_t copy = bytes - done;
        while (copy >= 3)
        {
            std::size_t length = std::min<std::size_t>(258, copy);
            if (copy - length > 0 && copy - length < 3)
                length -= 3; // leave a last match of at least 3
            this->match(length, element);
            copy -= length;
        }
        // 1-2 bytes left (in the sums already): the run's bytes at their offsets.
        for (std::size_t k = bytes - copy; k < bytes; ++k)
            this->symbol(first[k % element]);
        pos_ = start + bytes;
        last = {value, element, start, bytes};
    }

    //! How many of a run's `bytes` to copy from its element's last run, `distance` bytes
    //! back and `available` bytes long: a match of 3-258 bytes; 0 where that copy would cost
    //! more than the element's literals and a match one element back over the same bytes
    //! (an element of 1 or 2 bytes from far away: 4 literal bytes take 32 bits or more, a
    //! match 31 at most).
    static std::size_t far_copy_bytes(unsigned char const* first, std::size_t element,
                                      std::size_t bytes, std::size_t distance,
                                      std::size_t available)
    {
        std::size_t done = std::min({bytes, available, std::size_t(258)});
        if (bytes - done > 0 && bytes - done < 3 && done >= 6)
            done -= 3; // leave a last match of at least 3
        if (done < 3)
            return 0;
        std::size_t const near = done - element;
        if (element <= 2 &&
            match_bits(done, distance) >
                literal_bits(first, element) + (near >= 3 ? match_bits(near, element) : near * 9))
            return 0;
        return done;
    }

    //! Bit-reversed fixed code (RFC 1951, 3.2.6) of each literal/length symbol.
    struct Code
    {
        std::uint16_t bits;
        std::uint8_t length;
    };

    static constexpr std::uint64_t adler_mod = 65521;
    //! Deflate's window: the farthest a match reaches back.
    static constexpr std::size_t max_distance = 32768;

    //! Where the last run of an element (its bytes as an integer) began, in bytes of the
    //! data encoded, and its length; bytes == 0: none.
    struct LastRun
    {
        std::uint64_t value{0};
        std::size_t element{0};
        std::size_t start{0};
        std::size_t bytes{0};
    };
    static constexpr std::size_t last_run_slots = 64;
    static std::size_t last_run_slot(std::uint64_t value)
    {
        return std::size_t((value * 0x9e3779b97f4a7c15ull) >> 58); // 6 bits: 64 slots
    }

    std::vector<unsigned char>& out_;
    std::size_t at_{0}; //!< bytes of out_ written (out_ grows ahead in steps)
    std::uint64_t acc_{0};
    int bits_{0};
    std::uint64_t a_{1}, b_{0}; //!< Adler-32 sums, reduced at each run
    std::size_t unreduced_{0};  //!< literals since the sums were reduced
    std::size_t pos_{0};        //!< bytes of data encoded (the window's positions)
    std::array<LastRun, last_run_slots> last_runs_{};

    //! The Adler-32 sums after `repeats` more copies of the `element` bytes at `e`, in
    //! closed form: over one copy A grows by S = sum e_k and B by E A + W, W = sum (E - k)
    //! e_k, so over r copies A + r S and B + r E A + r W + S E r (r - 1) / 2.
    void adler_repeats(unsigned char const* e, std::size_t element, std::size_t repeats)
    {
        a_ %= adler_mod;
        b_ %= adler_mod;
        unreduced_ = 0;
        if (repeats == 0)
            return;
        std::uint64_t sum = 0, weighted = 0;
        for (std::size_t k = 0; k < element; ++k)
        {
            sum += e[k];
            weighted += (element - k) * e[k];
        }
        std::uint64_t const r = repeats % adler_mod;
        std::uint64_t const pairs = (std::uint64_t(repeats) * (repeats - 1) / 2) % adler_mod;
        b_ =
            (b_ + r * element % adler_mod * a_ + r * weighted + sum * element % adler_mod * pairs) %
            adler_mod;
        a_ = (a_ + r * sum) % adler_mod;
    }

    //! f(i, j) for each run [i, j) of equal elements among the `count` at `data`.
    template <class F>
    static void for_each_run(unsigned char const* data, std::size_t count, std::size_t element,
                             F&& f)
    {
        switch (element)
        {
        case 1:
            return runs_of<1>(data, count, f);
        case 2:
            return runs_of<2>(data, count, f);
        case 4:
            return runs_of<4>(data, count, f);
        case 8:
            return runs_of<8>(data, count, f);
        default:
            MCDOSE_ASSERT_UNREACHABLE();
        }
    }

    template <std::size_t E, class F>
    static void runs_of(unsigned char const* data, std::size_t count, F& f)
    {
        auto const load = [data](std::size_t i)
        {
            std::uint64_t v = 0;
            std::memcpy(&v, data + i * E, E);
            return v;
        };
        for (std::size_t i = 0; i < count;)
        {
            std::uint64_t const value = load(i);
            std::size_t j = i + 1;
            while (j < count && load(j) == value)
                ++j;
            f(i, j);
            i = j;
        }
    }

    static std::array<Code, 288> const& fixed_codes()
    {
        static std::array<Code, 288> const codes = []
        {
            std::array<Code, 288> c{};
            for (unsigned sym = 0; sym < 288; ++sym)
            {
                unsigned value = 0, length = 0;
                if (sym < 144)
                    value = 0x30 + sym, length = 8;
                else if (sym < 256)
                    value = 0x190 + sym - 144, length = 9;
                else if (sym < 280)
                    value = sym - 256, length = 7;
                else
                    value = 0xc0 + sym - 280, length = 8;
                unsigned reversed = 0;
                for (unsigned b = 0; b < length; ++b)
                    reversed |= ((value >> b) & 1u) << (length - 1 - b);
                c[sym] = {static_cast<std::uint16_t>(reversed), static_cast<std::uint8_t>(length)};
            }
            return c;
        }();
        return codes;
    }

    //! Room for `bytes` more output bytes.
    void reserve(std::size_t bytes)
    {
        if (out_.size() < at_ + bytes)
            out_.resize(std::max<std::size_t>(2 * out_.size(), at_ + bytes + 4096));
    }

    void byte(unsigned char c)
    {
        this->reserve(1);
        out_[at_++] = c;
    }

    //! Moves the whole bytes of the bit buffer `acc` (`bits` bits) to out[at...].
    static void drain(std::uint64_t& acc, int& bits, unsigned char* out, std::size_t& at)
    {
        for (; bits >= 8; bits -= 8, acc >>= 8)
            out[at++] = static_cast<unsigned char>(acc);
    }

    void flush_bytes()
    {
        this->reserve(8);
        drain(acc_, bits_, out_.data(), at_);
    }

    //! `count` bits of `value`, least significant first.
    void put(std::uint32_t value, int count)
    {
        acc_ |= std::uint64_t(value) << bits_;
        bits_ += count;
        if (bits_ >= 32)
            this->flush_bytes();
    }

    void symbol(unsigned sym)
    {
        Code const c = fixed_codes()[sym];
        this->put(c.bits, c.length);
    }

    //! `n` literal bytes, added to the Adler-32 sums (reduced every 2^16 bytes at most). The
    //! bit buffer and the sums are kept in locals meanwhile: the output's bytes could alias
    //! the members, which the compiler would otherwise store at every byte.
    void literals(unsigned char const* p, std::size_t n)
    {
        this->reserve(2 * n + 8); // at most 9 bits a literal, and a flush's bytes
        auto const& codes = fixed_codes();
        unsigned char* out = out_.data();
        std::size_t at = at_, unreduced = unreduced_;
        std::uint64_t acc = acc_, a = a_, b = b_;
        int bits = bits_;
        for (std::size_t k = 0; k < n; ++k)
        {
            unsigned char const c = p[k];
            acc |= std::uint64_t(codes[c].bits) << bits;
            bits += codes[c].length;
            if (bits >= 32) // as put()
                drain(acc, bits, out, at);
            a += c;
            b += a;
            if (++unreduced == (std::size_t(1) << 16))
            {
                a %= adler_mod;
                b %= adler_mod;
                unreduced = 0;
            }
        }
        at_ = at;
        pos_ += n;
        unreduced_ = unreduced;
        acc_ = acc;
        a_ = a;
        b_ = b;
        bits_ = bits;
    }

    //! Length code k (symbol 257 + k) of a match of `length` (3-258) bytes, its extra bits.
    struct LengthCode
    {
        unsigned k;
        std::uint32_t extra_value;
        int extra_bits;
    };
    static LengthCode length_code(std::size_t length)
    {
        static constexpr std::array<std::uint16_t, 29> base = {
            3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
            31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
        static constexpr std::array<std::uint8_t, 29> extra = {
            0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
        // The code of each length 3-258, found once.
        static std::array<std::uint8_t, 259> const code_of = []
        {
            std::array<std::uint8_t, 259> c{};
            for (std::size_t n = 3; n <= 258; ++n)
            {
                std::size_t k = n == 258 ? 28 : 0;
                while (k < 27 && base[k + 1] <= n)
                    ++k;
                c[n] = static_cast<std::uint8_t>(k);
            }
            return c;
        }();
        unsigned const k = code_of[length];
        return {k, std::uint32_t(length - base[k]), extra[k]};
    }

    //! Distance code c (0-29) of a match from `distance` (1-32768) bytes back and its extra
    //! bits: codes 0-3 are distances 1-4; from code 4 on, two codes per power of two, with
    //! c / 2 - 1 extra bits (RFC 1951, 3.2.5).
    struct DistanceCode
    {
        unsigned c;
        std::uint32_t extra_value;
        int extra_bits;
    };
    static DistanceCode distance_code(std::size_t distance)
    {
        if (distance <= 4)
            return {unsigned(distance - 1), 0, 0};
        auto const top = unsigned(63 - __builtin_clzll(std::uint64_t(distance - 1)));
        int const extra_bits = int(top) - 1;
        unsigned const half = unsigned((distance - 1) >> extra_bits) & 1u;
        std::uint32_t const base = (std::uint32_t(2 + half) << extra_bits) + 1;
        return {2 * top + half, std::uint32_t(distance) - base, extra_bits};
    }

    //! Bits of a match and of literals in the fixed codes.
    static std::size_t match_bits(std::size_t length, std::size_t distance)
    {
        LengthCode const l = length_code(length);
        return std::size_t(fixed_codes()[257 + l.k].length) + std::size_t(l.extra_bits) + 5 +
               std::size_t(distance_code(distance).extra_bits);
    }
    static std::size_t literal_bits(unsigned char const* p, std::size_t n)
    {
        std::size_t bits = 0;
        for (std::size_t k = 0; k < n; ++k)
            bits += fixed_codes()[p[k]].length;
        return bits;
    }

    //! A copy of `length` (3-258) bytes from `distance` (1-32768) bytes back.
    void match(std::size_t length, std::size_t distance)
    {
        MCDOSE_EXPECT(length >= 3 && length <= 258 && distance >= 1 && distance <= max_distance);
        LengthCode const l = length_code(length);
        this->symbol(257 + l.k);
        this->put(l.extra_value, l.extra_bits);
        DistanceCode const d = distance_code(distance);
        unsigned reversed = 0; // the 5-bit code, reversed like a Huffman code
        for (unsigned b = 0; b < 5; ++b)
            reversed |= ((d.c >> b) & 1u) << (4 - b);
        this->put(reversed, 5);
        this->put(d.extra_value, d.extra_bits);
    }
};

//! Whether an element size is one RunDeflate encodes.
bool run_element(std::size_t element)
{
    return element == 1 || element == 2 || element == 4 || element == 8;
}

//! Whether runs of one element cover at least 3/4 of the `size` bytes (`run_bytes` of them
//! after the first element of each run): RunDeflate's case.
bool mostly_runs(std::size_t run_bytes, std::size_t size)
{
    return size >= 64 && 4 * run_bytes >= 3 * size;
}

bool mostly_runs(void const* data, std::size_t size, std::size_t element)
{
    return run_element(element) &&
           mostly_runs(
               RunDeflate::run_bytes(static_cast<unsigned char const*>(data), size, element), size);
}

//! The zlib stream of one final piece: the header, the piece, its Adler-32.
std::vector<unsigned char> zlib_stream(DeflatedPiece const& piece)
{
    // The header: deflate, 32 KiB window, fastest.
    std::vector<unsigned char> out = {0x78, 0x01};
    out.reserve(piece.bytes.size() + 6);
    out.insert(out.end(), piece.bytes.begin(), piece.bytes.end());
    for (int shift = 24; shift >= 0; shift -= 8)
        out.push_back(static_cast<unsigned char>(piece.adler >> shift));
    return out;
}
} // namespace

DeflatedPiece deflate_raw_piece(void const* data, std::size_t size, int level, bool last,
                                std::size_t element)
{
    DeflatedPiece piece;
    if (!mostly_runs(data, size, element))
    {
        piece.bytes = deflate_steps(data, size, level, last ? Z_FINISH : Z_SYNC_FLUSH);
        piece.adler =
            std::uint32_t(adler32_z(adler32(0L, Z_NULL, 0), static_cast<Bytef const*>(data), size));
        return piece;
    }
    piece.bytes.reserve(size / 16 + 64);
    RunDeflate runs(piece.bytes);
    runs.block(static_cast<unsigned char const*>(data), size, element, last);
    if (last)
        runs.align();
    else
        runs.sync_flush();
    piece.adler = runs.adler();
    return piece;
}

std::vector<unsigned char> deflate_zlib(void const* data, std::size_t size, int level,
                                        std::size_t element)
{
    return zlib_stream(deflate_raw_piece(data, size, level, true, element));
}

std::optional<std::vector<unsigned char>> deflate_zlib_runs(std::vector<ElementRun> const& runs,
                                                            std::size_t element)
{
    if (!run_element(element))
        return std::nullopt;
    // Neighbouring runs of the same element joined: the maximal runs RunDeflate finds.
    std::vector<ElementRun> joined;
    joined.reserve(runs.size());
    std::size_t count = 0, run_bytes = 0;
    for (ElementRun const& r : runs)
    {
        if (r.count == 0)
            continue;
        count += r.count;
        if (!joined.empty() && std::memcmp(joined.back().bytes, r.bytes, element) == 0)
            joined.back().count += r.count;
        else
            joined.push_back(r);
    }
    for (ElementRun const& r : joined)
        run_bytes += (r.count - 1) * element;
    if (!mostly_runs(run_bytes, count * element))
        return std::nullopt;
    DeflatedPiece piece;
    piece.bytes.reserve(count * element / 16 + 64);
    RunDeflate encoder(piece.bytes);
    encoder.block(joined, element, true);
    encoder.align();
    piece.adler = encoder.adler();
    return zlib_stream(piece);
}
} // namespace mcdose
