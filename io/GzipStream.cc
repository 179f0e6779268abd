//! \file io/GzipStream.cc
#include "io/GzipStream.hh"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <zlib.h>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
//! Compressed bytes read from the file at a time.
constexpr std::size_t input_chunk = std::size_t(1) << 16;
//! windowBits for inflateInit2: a 32 KiB window, gzip wrapper only (RFC 1952).
constexpr int gzip_window_bits = 15 + 16;
} // namespace

bool is_gzip_file(int fd)
{
    unsigned char magic[2] = {0, 0};
    ssize_t n;
    do
    {
        n = ::pread(fd, magic, 2, 0);
    } while (n < 0 && errno == EINTR);
    return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

struct GzipStream::Impl
{
    int fd;
    z_stream z{};
    bool initialised{false};
    bool ended{false};            //!< the last member ended and no input follows
    std::uint64_t file_offset{0}; //!< next compressed byte to read
    std::vector<unsigned char> input = std::vector<unsigned char>(input_chunk);

    explicit Impl(int f) : fd(f) {}
    ~Impl()
    {
        if (initialised)
            inflateEnd(&z);
    }

    void start(std::string const& path)
    {
        if (initialised)
            inflateEnd(&z);
        z = z_stream{};
        initialised = inflateInit2(&z, gzip_window_bits) == Z_OK;
        MCDOSE_VALIDATE(initialised, << path << ": cannot start inflating (out of memory?)");
        ended = false;
        file_offset = 0;
    }

    //! Refill the input from the file; false at its end.
    bool refill(std::string const& path)
    {
        ssize_t n;
        do
        {
            n = ::pread(fd, input.data(), input.size(), off_t(file_offset));
        } while (n < 0 && errno == EINTR);
        MCDOSE_VALIDATE(n >= 0, << path << ": cannot read the compressed file ("
                                << std::strerror(errno) << ")");
        file_offset += std::uint64_t(n);
        z.next_in = input.data();
        z.avail_in = uInt(n);
        return n > 0;
    }

    //! Inflate up to `n` bytes into `to`; returns how many (fewer only at the end).
    std::size_t inflate_into(unsigned char* to, std::size_t n, std::string const& path)
    {
        z.next_out = to;
        z.avail_out = uInt(n);
        while (z.avail_out > 0 && !ended)
        {
            if (z.avail_in == 0 && !this->refill(path))
            {
                // The file ends: whole only right after a member's end.
                MCDOSE_VALIDATE(z.total_out == 0 && z.total_in == 0,
                                << path << ": the compressed file ends in the middle of its "
                                << "data (truncated?); compress or copy it again");
                ended = true;
                break;
            }
            int const rc = inflate(&z, Z_NO_FLUSH);
            MCDOSE_VALIDATE(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR,
                            << path << ": the compressed data are corrupt (zlib: "
                            << (z.msg ? z.msg : "error") << "); compress the file again");
            if (rc == Z_STREAM_END)
            {
                // Another gzip member may follow (concatenated files).
                MCDOSE_VALIDATE(inflateReset(&z) == Z_OK, << path << ": cannot inflate");
            }
        }
        return n - z.avail_out;
    }
};

GzipStream::GzipStream(int fd, std::string path, std::uint64_t limit)
    : impl_(std::make_unique<Impl>(fd)), path_(std::move(path)), limit_(limit)
{
    impl_->start(path_);
}

GzipStream::~GzipStream() = default;

std::size_t GzipStream::read(void* to, std::size_t n)
{
    MCDOSE_VALIDATE(n <= limit_ && position_ <= limit_ - n,
                    << path_ << ": reading " << n << " bytes at " << position_
                    << " would inflate the file beyond " << limit_
                    << " bytes, what its header allows; the file is corrupt");
    auto* out = static_cast<unsigned char*>(to);
    std::size_t done = 0;
    // zlib counts in 32-bit units: inflate in slices.
    while (done < n)
    {
        std::size_t const slice = std::min<std::size_t>(n - done, std::size_t(1) << 30);
        std::size_t const got = impl_->inflate_into(out + done, slice, path_);
        done += got;
        if (got < slice)
            break;
    }
    position_ += done;
    return done;
}

std::uint64_t GzipStream::skip(std::uint64_t n)
{
    std::vector<unsigned char> sink(std::min<std::uint64_t>(n, input_chunk));
    std::uint64_t done = 0;
    while (done < n)
    {
        std::size_t const want = std::size_t(std::min<std::uint64_t>(n - done, sink.size()));
        std::size_t const got = this->read(sink.data(), want);
        done += got;
        if (got < want)
            break;
    }
    return done;
}

void GzipStream::rewind()
{
    impl_->start(path_);
    position_ = 0;
}
} // namespace mcdose
