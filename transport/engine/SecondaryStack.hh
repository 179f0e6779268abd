//! \file transport/engine/SecondaryStack.hh
//! Fixed-capacity per-thread stack of particles still to be transported in
//! the current history (depth-first shower); `Item` is what the transport
//! keeps per waiting particle (HistoryTransport: the particle and its voxel).
//! Lives in the thread's local memory on the device and on the stack on the
//! host.
//!
//! Overflow policy: a push onto a full stack is refused; the caller deposits
//! the particle's kinetic energy (plus, for a positron, the 2 m_e c^2 its
//! annihilation would release) at its position and books it under
//! EnergyBalance::overflow_MeV, so the energy balance still closes and the run
//! summary reports how much energy took this path. With the default capacity
//! no overflow has been seen in photon/electron showers below 50 MeV, because
//! the stack is processed depth-first (the most recent, lowest-energy particle
//! first).
#pragma once

#include "core/Assert.hh"
#include "core/Macros.hh"
#include "core/Types.hh"

namespace mcdose
{
template <class Item, int Capacity = 48>
class SecondaryStack
{
  public:
    static constexpr int capacity = Capacity;

    //! Push; returns false (and stores nothing) when full.
    MCDOSE_FORCEINLINE_FUNCTION bool push(Item const& p)
    {
        if (size_ == Capacity)
            return false;
        items_[size_++] = p;
        return true;
    }
    MCDOSE_FORCEINLINE_FUNCTION Item pop()
    {
        MCDOSE_EXPECT(size_ > 0);
        return items_[--size_];
    }
    MCDOSE_FORCEINLINE_FUNCTION bool empty() const { return size_ == 0; }
    MCDOSE_FORCEINLINE_FUNCTION int size() const { return size_; }

  private:
    Item items_[Capacity];
    int size_{0};
};
} // namespace mcdose
