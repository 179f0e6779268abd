//! \file rng/quality/OrnsteinUhlenbeckDevice.hh
//! Storage of the OU study (host or device) and its device launch.
#pragma once

#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/DeviceBuffer.hh"
#include "rng/quality/OrnsteinUhlenbeck.hh"

namespace mcdose
{
//! Oscillator state and checkpoint arrays, host or device.
class OuWork
{
  public:
    OuWork(size_type n, size_type checkpoints, MemSpace where);
    OuStateView view();
    void copy_checkpoints(std::vector<double>& a, std::vector<double>& c) const;

  private:
    MemSpace where_;
    static constexpr int num_arrays = 5; // xa, xb, y0, a, c
    std::vector<double> host_[num_arrays];
    DeviceBuffer<double> device_[num_arrays];
};

#if MCDOSE_USE_CUDA
//! One batch of steps, one thread per oscillator; instantiated for the five
//! engines in OrnsteinUhlenbeck.cu.
template <class Engine>
void ou_advance_device(OuSetup const& s, typename Engine::View const& view, size_type n,
                       std::uint32_t begin, std::uint32_t end, OuStateView const& state);
#else
template <class Engine>
inline void ou_advance_device(OuSetup const&, typename Engine::View const&, size_type,
                              std::uint32_t, std::uint32_t, OuStateView const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
