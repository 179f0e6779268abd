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
} // namespace mcdose
