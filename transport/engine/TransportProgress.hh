//! \file transport/engine/TransportProgress.hh
//! What a transport run reports after each batch (TransportRunOptions::on_batch): small, so
//! that a caller's progress display needs nothing else of the transport.
#pragma once

#include <cstdint>

namespace mcdose
{
class DoseTally;

//! Progress after each batch.
struct TransportProgress
{
    std::uint64_t histories_done{0};
    std::uint64_t histories_total{0};
    std::uint64_t batches_done{0};
    double elapsed_s{0};
    DoseTally const* tally{nullptr}; //!< folded results so far (tally->result())
};
} // namespace mcdose
