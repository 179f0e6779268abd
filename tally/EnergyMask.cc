//! \file tally/EnergyMask.cc
#include "tally/EnergyMask.hh"

#include <algorithm>

#include "core/ParallelFor.hh"

namespace mcdose
{
std::vector<std::uint64_t> energy_mask(Span<double const> edep_MeV, int threads)
{
    size_type const n = edep_MeV.size();
    std::vector<std::uint64_t> mask(mask_words(n));
    parallel_for_pieces(
        mask.size(), threads,
        [&](size_type w0, size_type w1, size_type)
        {
            for (size_type w = w0; w < w1; ++w)
            {
                size_type const first = 64 * w;
                mask[w] =
                    energy_mask_word(edep_MeV.data() + first, std::min<size_type>(64, n - first));
            }
        },
        size_type(4096));
    return mask;
}

std::vector<size_type> mask_piece_offsets(Span<std::uint64_t const> mask, size_type piece_words,
                                          int threads)
{
    size_type const words = mask.size();
    size_type const pieces = (words + piece_words - 1) / piece_words;
    std::vector<size_type> first(pieces + 1, 0);
    parallel_for_each(
        pieces,
        [&](size_type p)
        {
            size_type const w0 = p * piece_words;
            first[p + 1] =
                count_bits_in(mask.data(), 64 * w0, 64 * std::min(words, w0 + piece_words));
        },
        threads);
    for (size_type p = 0; p < pieces; ++p)
        first[p + 1] += first[p];
    return first;
}
} // namespace mcdose
