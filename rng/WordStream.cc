//! \file rng/WordStream.cc
#include "rng/WordStream.hh"

#include <algorithm>
#include <memory>

#include "rng/GenerateWords.hh"

namespace mcdose
{
WordStream::WordStream(RngKind kind, RngOptions const& options, size_type streams,
                       MemSpace memspace)
{
    MCDOSE_VALIDATE(streams >= 1, << "'streams' must be at least 1 (got " << streams << ")");
    visit_rng(kind,
              [&](auto tag)
              {
                  using Engine = typename decltype(tag)::type;
                  auto store = std::make_shared<RngStore<Engine>>(
                      make_rng_store<Engine>(options, streams, memspace));
                  // About 4 Mi words per chunk, in whole rounds of the lagged Fibonacci
                  // (a partly used round would skip words and change the stream).
                  size_type const target = std::max<size_type>(1, (size_type(1) << 22) / streams);
                  size_type const round = std::min(store->words_per_batch(), target);
                  size_type const per_stream = std::max<size_type>(1, target / round) * round;
                  generate_ = [store, per_stream]
                  { return generate_words<Engine>(*store, per_stream); };
              });
}

void WordStream::refill()
{
    buffer_ = generate_();
    pos_ = 0;
}

std::vector<std::uint32_t> const& WordStream::next_chunk()
{
    this->refill();
    pos_ = buffer_.size();
    return buffer_;
}
} // namespace mcdose
