//! \file transport/engine/TransportLaunch.hh
//! Launch of the persistent-thread transport kernel (TransportKernel.cu). In a
//! CPU-only build the functions throw "built without CUDA".
#pragma once

#include "core/Assert.hh"
#include "core/Config.hh"
#include "transport/engine/PersistentGrid.hh"
#include "transport/engine/TransportThread.hh"

namespace mcdose
{
#if MCDOSE_USE_CUDA
//! Size the grid so every SM is full with one block (of whole units of
//! `unit_threads` threads, up to the device's limit per block):
//! blocks = SMs x resident blocks per SM.
template <class Args>
PersistentGrid persistent_transport_grid(int unit_threads);
//! Launch and wait; checks launch and execution errors.
template <class Args>
void launch_transport_kernel(Args const& args, PersistentGrid const& grid);
#else
template <class Args>
PersistentGrid persistent_transport_grid(int)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
template <class Args>
void launch_transport_kernel(Args const&, PersistentGrid const&)
{
    MCDOSE_NOT_CONFIGURED("CUDA");
}
#endif
} // namespace mcdose
