//! \file core/Span.hh
//! Non-owning pointer + size view usable on host and device.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Contiguous view of T (std::span is C++20; this is the trivially copyable subset we need).
template <class T>
class Span
{
  public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;

    constexpr Span() = default;
    MCDOSE_FORCEINLINE_FUNCTION constexpr Span(T* data, size_type size) : data_(data), size_(size)
    {
    }
    //! Implicit conversion from Span<U> to Span<const U>.
    template <class U, std::enable_if_t<std::is_convertible<U (*)[], T (*)[]>::value, bool> = true>
    MCDOSE_FORCEINLINE_FUNCTION constexpr Span(Span<U> other)
        : data_(other.data()), size_(other.size())
    {
    }

    MCDOSE_FORCEINLINE_FUNCTION constexpr T* data() const { return data_; }
    MCDOSE_FORCEINLINE_FUNCTION constexpr size_type size() const { return size_; }
    MCDOSE_FORCEINLINE_FUNCTION constexpr bool empty() const { return size_ == 0; }
    MCDOSE_FORCEINLINE_FUNCTION constexpr T* begin() const { return data_; }
    MCDOSE_FORCEINLINE_FUNCTION constexpr T* end() const { return data_ + size_; }
    MCDOSE_FORCEINLINE_FUNCTION T& operator[](size_type i) const
    {
        MCDOSE_EXPECT(i < size_);
        return data_[i];
    }
    MCDOSE_FORCEINLINE_FUNCTION Span subspan(size_type offset, size_type count) const
    {
        MCDOSE_EXPECT(offset + count <= size_);
        return {data_ + offset, count};
    }

  private:
    T* data_{nullptr};
    size_type size_{0};
};

//! View of a host vector.
template <class T>
Span<T> make_span(std::vector<T>& v)
{
    return {v.data(), v.size()};
}
template <class T>
Span<T const> make_span(std::vector<T> const& v)
{
    return {v.data(), v.size()};
}

} // namespace mcdose
