//! \file tally/DoseTallyView.hh
//! What a transport kernel or CPU thread holds to deposit energy.
#pragma once

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/Types.hh"
#include "tally/BlockTallyCache.hh"

namespace mcdose
{
/*!
 * Trivially copyable view of one batch grid, templated on the atomic policy
 * (tally/AtomicPolicies.hh). Pass it by value to a kernel or a std::thread;
 * `deposit` is safe from any number of threads at once. Get one from
 * DoseTally::view<Policy>() inside dispatch_tally_method().
 */
template <class Policy>
class DoseTallyView
{
  public:
    using policy_type = Policy;
    using word_type = typename Policy::word_type;

    DoseTallyView() = default;
    MCDOSE_FUNCTION DoseTallyView(Span<word_type> words, double fx_scale_per_MeV)
        : words_(words), fx_scale_per_MeV_(fx_scale_per_MeV)
    {
    }

    //! The same grid with a block cache in front (BlockTallyCache.hh; only
    //! for the methods with `Policy::block_cached`). Flush the cache into
    //! the view without it.
    MCDOSE_FUNCTION DoseTallyView with_cache(BlockTallyCache<Policy> const& cache) const
    {
        static_assert(Policy::block_cached, "this method adds by hardware atomics: no cache");
        DoseTallyView v = *this;
        v.cache_ = cache;
        return v;
    }

    //! Add energy [MeV] to a voxel (flat index < voxels()).
    MCDOSE_FORCEINLINE_FUNCTION void deposit(size_type voxel, double energy_MeV) const
    {
        MCDOSE_EXPECT(voxel < words_.size());
        word_type* cell = words_.data() + voxel;
        if constexpr (Policy::block_cached)
        {
            if (cache_.active())
            {
                if (word_type* cached = cache_.find(voxel))
                    cell = cached;
            }
        }
        Policy::deposit(cell, energy_MeV, fx_scale_per_MeV_);
    }
    MCDOSE_FORCEINLINE_FUNCTION size_type voxels() const { return words_.size(); }

  private:
    Span<word_type> words_;
    double fx_scale_per_MeV_{0};
    BlockTallyCache<Policy> cache_; //!< inactive unless with_cache()
};
} // namespace mcdose
