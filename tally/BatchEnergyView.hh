//! \file tally/BatchEnergyView.hh
//! One batch's grid, about to be folded, read voxel by voxel [MeV]: what a caller evaluates
//! on each batch (e.g. a structure's doses, whose spread over the batches gives the
//! uncertainty of its dose figures) without the tally keeping a grid per batch. It reads the
//! raw words of the tally method where they are (host memory; from a GPU, the range of
//! voxels asked for is first copied to the host).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/Types.hh"
#include "tally/TallyMethod.hh"
#include "tally/accum/FixedPoint.hh"

namespace mcdose
{
class BatchEnergyView
{
  public:
    //! Voxels [first, first + count) of a grid of `method` (FX quantum 2^fx_quantum_exp2
    //! MeV), voxel `first`'s word at `words`; a batch of `histories` histories.
    BatchEnergyView(std::uint64_t const* words, TallyMethod method, int fx_quantum_exp2,
                    size_type first, size_type count, std::uint64_t histories)
        : words_(reinterpret_cast<unsigned char const*>(words)), method_(method),
          quantum_MeV_(accum::exp2_int(fx_quantum_exp2)), first_(first), count_(count),
          histories_(histories)
    {
    }

    //! The voxels it reads: [first(), first() + count()).
    size_type first() const { return first_; }
    size_type count() const { return count_; }
    //! Histories of the batch.
    std::uint64_t histories() const { return histories_; }

    //! Energy of voxel v (in the range) in the batch [MeV].
    double energy_MeV(size_type v) const
    {
        size_type const i = v - first_;
        if (method_ == TallyMethod::fx) // the default method, without the dispatch
            return this->decode<FxPolicy>(i);
        return dispatch_tally_method(method_, [&](auto policy)
                                     { return this->decode<decltype(policy)>(i); });
    }

  private:
    unsigned char const* words_;
    TallyMethod method_;
    double quantum_MeV_;
    size_type first_;
    size_type count_;
    std::uint64_t histories_;

    template <class Policy>
    double decode(size_type i) const
    {
        typename Policy::word_type w;
        std::memcpy(&w, words_ + i * sizeof w, sizeof w);
        return Policy::decode(w, quantum_MeV_);
    }
};
} // namespace mcdose
