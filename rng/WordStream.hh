//! \file rng/WordStream.hh
//! An endless stream of raw words from S interleaved streams of one generator
//! (thread j's k-th word at position k S + j, the order in which a warp
//! consumes them), for external batteries (`mcdose rng dump`) and the GF(2)
//! rank test.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "rng/RngKind.hh"

namespace mcdose
{
class WordStream
{
  public:
    WordStream(RngKind kind, RngOptions const& options, size_type streams, MemSpace memspace);

    //! Next word.
    std::uint32_t operator()()
    {
        if (pos_ == buffer_.size())
            this->refill();
        return buffer_[pos_++];
    }
    //! Next chunk of whole rounds (S x chunk words); words not yet taken by
    //! operator() are skipped.
    std::vector<std::uint32_t> const& next_chunk();

  private:
    std::function<std::vector<std::uint32_t>()> generate_;
    std::vector<std::uint32_t> buffer_;
    size_type pos_{0};
    void refill();
};
} // namespace mcdose
