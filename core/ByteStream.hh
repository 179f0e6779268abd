//! \file core/ByteStream.hh
//! Host tables to bytes and back, for a file written and read by the same build (the table
//! cache): trivially copyable values and vectors of them in native byte order, each vector
//! preceded by its length. The reader checks every length against what is left, so a
//! truncated or corrupt buffer throws instead of reading past its end. Host only.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/Assert.hh"

namespace mcdose
{
class ByteWriter
{
  public:
    template <class T>
    void value(T const& x)
    {
        static_assert(std::is_trivially_copyable<T>::value, "raw bytes of a plain value");
        bytes_.append(reinterpret_cast<char const*>(&x), sizeof(T));
    }
    template <class T>
    void vector(std::vector<T> const& v)
    {
        static_assert(std::is_trivially_copyable<T>::value, "raw bytes of plain values");
        value(std::uint64_t(v.size()));
        bytes_.append(reinterpret_cast<char const*>(v.data()), v.size() * sizeof(T));
    }
    //! Bytes preceded by their count.
    void text(std::string_view s)
    {
        value(std::uint64_t(s.size()));
        bytes_.append(s.data(), s.size());
    }
    std::string const& bytes() const { return bytes_; }
    std::string release() { return std::move(bytes_); }

  private:
    std::string bytes_;
};

class ByteReader
{
  public:
    explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

    template <class T>
    void value(T& x)
    {
        static_assert(std::is_trivially_copyable<T>::value, "raw bytes of a plain value");
        take(&x, sizeof(T));
    }
    template <class T>
    void vector(std::vector<T>& v)
    {
        static_assert(std::is_trivially_copyable<T>::value, "raw bytes of plain values");
        std::uint64_t n = 0;
        value(n);
        MCDOSE_VALIDATE(n <= left() / sizeof(T), << "truncated data: a list of " << n
                                                 << " values of " << sizeof(T) << " bytes, but "
                                                 << left() << " bytes are left");
        v.resize(static_cast<std::size_t>(n));
        take(v.data(), v.size() * sizeof(T));
    }
    //! Bytes written by ByteWriter::text (a view into the buffer).
    std::string_view text()
    {
        std::uint64_t n = 0;
        value(n);
        MCDOSE_VALIDATE(n <= left(), << "truncated data: a text of " << n << " bytes, but "
                                     << left() << " bytes are left");
        std::string_view const s = bytes_.substr(offset_, static_cast<std::size_t>(n));
        offset_ += s.size();
        return s;
    }
    std::size_t left() const { return bytes_.size() - offset_; }

  private:
    std::string_view bytes_;
    std::size_t offset_{0};

    void take(void* out, std::size_t size)
    {
        MCDOSE_VALIDATE(size <= left(),
                        << "truncated data: " << size << " bytes needed, " << left() << " left");
        if (size > 0)
            std::memcpy(out, bytes_.data() + offset_, size);
        offset_ += size;
    }
};
} // namespace mcdose
