//! \file tally/BatchReduction.hh
//! One batch of a distributed run, summed over the batch grids of this
//! process's devices (or CPU worker groups) and over all MPI ranks.
//!
//! FX: the raw 64-bit words are added as integers (modulo 2^64, which is
//! two's-complement int64 addition): associative, so the summed words, and
//! the doubles decoded from them, are bitwise the same for any split of the
//! histories over devices and ranks.
//! Floating-point methods: each grid is decoded to double, the local grids are
//! added in device order (((g0 + g1) + g2) ...), then the ranks' sums in rank
//! order (Comm::sum_in_rank_order). The order is fixed, so a given
//! configuration reduces the same way every time (the atomic adds inside a
//! device are still timing-dependent for these methods; docs/tally.md).
#pragma once

#include <cstdint>
#include <vector>

#include "core/Comm.hh"
#include "tally/TallyMethod.hh"

namespace mcdose
{
//! FX only: the raw words of the local groups' batch grids summed as
//! integers, then over all ranks (the same on every rank).
std::vector<std::uint64_t>
reduce_fx_batch_words(std::vector<std::vector<std::uint64_t>> const& group_words, Comm const& comm);

//! `group_words[g]`: the raw batch grid of local group g (DoseTally::batch_words()).
//! Returns the batch's energy per voxel [MeV], the same on every rank.
std::vector<double> reduce_batch(TallyMethod method, int fx_quantum_exp2,
                                 std::vector<std::vector<std::uint64_t>> const& group_words,
                                 size_type voxels, Comm const& comm);
} // namespace mcdose
