//! \file rng/GenerateWords.hh
//! Draw raw words from every thread of a store, on host or device through the
//! same per-thread function, laid out the way a warp consumes them:
//! out[k * N + j] is thread j's k-th word. Used by the known-answer tests and
//! `mcdose rng dump`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/DeviceBuffer.hh"
#include "rng/RngKind.hh"

namespace mcdose
{
//! Thread `thread` draws `count` words into out[k * num_threads + thread].
template <class Engine>
MCDOSE_FUNCTION void draw_interleaved(typename Engine::View const& view, size_type thread,
                                      size_type num_threads, size_type count,
                                      Span<std::uint32_t> out)
{
    Engine engine(view, thread);
    for (size_type k = 0; k < count; ++k)
        out[k * num_threads + thread] = engine();
}

//! Kernel launch of draw_interleaved over N threads (out in device memory).
//! Instantiated for the five engines in rng/detail/GenerateWords.cu.
#if MCDOSE_USE_CUDA
template <class Engine>
void draw_interleaved_device(typename Engine::View const& view, size_type num_threads,
                             size_type count, Span<std::uint32_t> out);
#else
template <class Engine>
inline void draw_interleaved_device(typename Engine::View const&, size_type, size_type,
                                    Span<std::uint32_t>)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif

//! `words_per_thread` words from each thread of `store` (interleaved), in
//! batches of at most store.words_per_batch() (the lagged-Fibonacci round).
template <class Engine>
std::vector<std::uint32_t> generate_words(RngStore<Engine>& store, size_type words_per_thread)
{
    size_type const n = store.num_threads();
    std::vector<std::uint32_t> out(n * words_per_thread);
    DeviceBuffer<std::uint32_t> d_out;
    if (store.memspace() == MemSpace::device)
        d_out = DeviceBuffer<std::uint32_t>(out.size());
    for (size_type first = 0; first < words_per_thread;)
    {
        size_type const count = std::min(store.words_per_batch(), words_per_thread - first);
        auto const view = store.begin_batch();
        if (store.memspace() == MemSpace::device)
        {
            draw_interleaved_device<Engine>(view, n, count,
                                            d_out.device_span().subspan(first * n, count * n));
        }
        else
        {
            auto const host_out = make_span(out).subspan(first * n, count * n);
            for (size_type j = 0; j < n; ++j)
                draw_interleaved<Engine>(view, j, n, count, host_out);
        }
        store.end_batch();
        first += count;
    }
    if (store.memspace() == MemSpace::device)
        d_out.copy_to_host(make_span(out));
    return out;
}
} // namespace mcdose
