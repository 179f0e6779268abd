//! \file transport/engine/PersistentGrid.hh
//! The launch shape of the persistent transport kernel (TransportLaunch.hh).
#pragma once

#include "core/Types.hh"

namespace mcdose
{
//! Persistent-grid shape for the transport kernel on the current device.
struct PersistentGrid
{
    int blocks{0};
    int threads_per_block{0};
    int blocks_per_sm{0}; //!< resident blocks per SM at this block size (occupancy)
    int multiprocessors{0};
    size_type workers() const { return size_type(blocks) * size_type(threads_per_block); }
};
} // namespace mcdose
