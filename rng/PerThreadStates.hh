//! \file rng/PerThreadStates.hh
//! Owner of one state record per thread, in host or device memory
//! (the "state" of the params/state/view model; celeritas
//! `src/celeritas/random/XorwowRngData.hh` has the same split).
#pragma once

#include <utility>
#include <vector>

#include "core/Assert.hh"
#include "core/DeviceBuffer.hh"
#include "core/Span.hh"
#include "core/Types.hh"

namespace mcdose
{
//! Per-thread records of trivially copyable `State`, on host or device.
template <class State>
class PerThreadStates
{
  public:
    PerThreadStates() = default;
    //! Take initial host states and place them in `memspace`.
    PerThreadStates(std::vector<State> initial, MemSpace memspace) : memspace_(memspace)
    {
        if (memspace_ == MemSpace::device)
            device_ = DeviceBuffer<State>(make_span(std::as_const(initial)));
        else
            host_ = std::move(initial);
    }

    MemSpace memspace() const { return memspace_; }
    size_type size() const { return memspace_ == MemSpace::device ? device_.size() : host_.size(); }

    //! View in the memory space of the data (dereference a device span only in kernels).
    Span<State> span()
    {
        return memspace_ == MemSpace::device ? device_.device_span() : make_span(host_);
    }

    //! Copy of the current states on the host (e.g. to check a run or checkpoint).
    std::vector<State> to_host() const
    {
        return memspace_ == MemSpace::device ? device_.to_host() : host_;
    }

  private:
    MemSpace memspace_{MemSpace::host};
    std::vector<State> host_;
    DeviceBuffer<State> device_;
};
} // namespace mcdose
