//! \file io/Deflate.cc
#include "io/Deflate.hh"

#include <zlib.h>

#include <algorithm>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
//! Input per step; a step whose output exceeds half of it ends the deflating.
constexpr std::size_t deflate_step = std::size_t(64) << 10;

//! Deflate [data, data + size) into a stream `window_bits` made (15: zlib, -15: raw),
//! ending with `flush`.
std::vector<unsigned char> deflate_steps(void const* data, std::size_t size, int level,
                                         int window_bits, int flush)
{
    z_stream z{};
    int status = deflateInit2(&z, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
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
} // namespace

std::vector<unsigned char> deflate_zlib(void const* data, std::size_t size, int level)
{
    return deflate_steps(data, size, level, 15, Z_FINISH);
}

std::vector<unsigned char> deflate_raw_piece(void const* data, std::size_t size, int level,
                                             bool last)
{
    return deflate_steps(data, size, level, -15, last ? Z_FINISH : Z_SYNC_FLUSH);
}
} // namespace mcdose
