//! \file io/GzipStream.hh
//! A gzip file (RFC 1952; one member or several, as `cat a.gz b.gz` makes) read as a stream
//! of its inflated bytes through zlib's inflate, 64 KiB of compressed input at a time: never
//! inflated whole into memory, and never beyond a stated limit of inflated bytes (a file
//! that would inflate further is refused, naming the limit). Going back means inflating
//! again from the start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace mcdose
{
//! Whether the file open as `fd` starts with gzip's magic bytes (0x1f 0x8b).
bool is_gzip_file(int fd);

//! deflate's largest compression ratio (zlib's technical details: 1032:1), which bounds
//! what a compressed file of a given length can inflate to.
inline constexpr std::uint64_t max_deflate_ratio = 1032;

class GzipStream
{
  public:
    //! Inflate the file open as `fd` (not owned; read with pread, so its offset is left
    //! alone); `path` names it in errors; at most `limit` inflated bytes are read.
    GzipStream(int fd, std::string path, std::uint64_t limit);
    ~GzipStream();
    GzipStream(GzipStream const&) = delete;
    GzipStream& operator=(GzipStream const&) = delete;

    //! The next `n` inflated bytes into `to`; fewer only where the stream ends. Throws
    //! RuntimeError naming the file for corrupt data or a read past the limit.
    std::size_t read(void* to, std::size_t n);
    //! Read and discard `n` bytes; returns how many there were.
    std::uint64_t skip(std::uint64_t n);
    //! Start again at inflated byte 0.
    void rewind();
    //! Inflated bytes read so far.
    std::uint64_t position() const { return position_; }
    //! Change the limit (e.g. to what a header claims once it is read).
    void set_limit(std::uint64_t limit) { limit_ = limit; }
    std::uint64_t limit() const { return limit_; }

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string path_;
    std::uint64_t limit_;
    std::uint64_t position_{0};
};
} // namespace mcdose
