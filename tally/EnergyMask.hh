//! \file tally/EnergyMask.hh
//! The mask of the voxels with energy: one bit per voxel, bit v % 64 of word v / 64 set
//! where the voxel's energy is not 0. Most of a large grid gets no energy in a short run:
//! a GPU result crosses to the host as this mask and the values of its voxels
//! (DoseTally::result), and the dose report and writers read a bit of the others
//! instead of 8 bytes (dose/DoseData.hh).
#pragma once

#include <cstdint>
#include <vector>

#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Words of a mask of one bit per voxel of a grid of `voxels`.
inline size_type mask_words(size_type voxels)
{
    return (voxels + 63) / 64;
}

//! The word of the energy mask of `count` (at most 64) voxels from `edep_MeV`: bit b set
//! where edep_MeV[b] != 0.
inline std::uint64_t energy_mask_word(double const* edep_MeV, size_type count)
{
    std::uint64_t word = 0;
    for (size_type b = 0; b < count; ++b)
        word |= std::uint64_t(edep_MeV[b] != 0) << b;
    return word;
}

//! Is voxel v's bit set in `mask`?
inline bool mask_bit(std::uint64_t const* mask, size_type v)
{
    return ((mask[v / 64] >> (v % 64)) & 1) != 0;
}

//! The bits of mask word `w` (voxels 64 w to 64 w + 63) of the voxels in [begin, end), which
//! must meet the word, shifted so that bit 0 is voxel max(begin, 64 w).
inline std::uint64_t word_bits_in(std::uint64_t const* mask, size_type w, size_type begin,
                                  size_type end)
{
    size_type const first = begin > 64 * w ? begin : 64 * w;
    size_type const last = end < 64 * w + 64 ? end : 64 * w + 64;
    std::uint64_t const bits = mask[w] >> (first % 64);
    return last - first < 64 ? bits & ((std::uint64_t(1) << (last - first)) - 1) : bits;
}

//! Is any voxel of [begin, end) set in `mask`?
inline bool any_bit_in(std::uint64_t const* mask, size_type begin, size_type end)
{
    for (size_type w = begin / 64; w * 64 < end; ++w)
    {
        if (word_bits_in(mask, w, begin, end) != 0)
            return true;
    }
    return false;
}

//! How many voxels of [begin, end) are set in `mask`.
inline size_type count_bits_in(std::uint64_t const* mask, size_type begin, size_type end)
{
    size_type count = 0;
    for (size_type w = begin / 64; w * 64 < end; ++w)
        count += size_type(__builtin_popcountll(word_bits_in(mask, w, begin, end)));
    return count;
}

//! f(first + b) for each set bit b of `word`, in increasing order (the voxels with energy
//! of a mask word whose bit 0 is voxel `first`).
template <class F>
inline void for_each_set_bit(std::uint64_t word, size_type first, F&& f)
{
    for (; word != 0; word &= word - 1)
        f(first + size_type(__builtin_ctzll(word)));
}

//! The mask of the voxels with energy of a grid, made on `threads` host threads (0: all).
std::vector<std::uint64_t> energy_mask(Span<double const> edep_MeV, int threads = 0);

/*!
 * Where each piece of `piece_words` words of `mask` starts among the mask's voxels in voxel
 * order (the set bits of the pieces before it), and last their count: pieces + 1 values,
 * counted on `threads` host threads (0: all). A pass that writes the mask's voxels' values
 * in voxel order takes the pieces apiece from these offsets.
 */
std::vector<size_type> mask_piece_offsets(Span<std::uint64_t const> mask, size_type piece_words,
                                          int threads = 0);
} // namespace mcdose
