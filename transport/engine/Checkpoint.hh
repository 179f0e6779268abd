//! \file transport/engine/Checkpoint.hh
//! The state of a run at a batch boundary, enough to continue it later with
//! the same result: the folded tally (double-double totals and sums of
//! squares), the energy balance, the per-batch digests (e.g. depth-dose slab
//! sums) and the fingerprint of the inputs that decide which histories run
//! and how they are tallied. With a history-keyed RNG (Philox) nothing else is
//! needed: batch b's histories and their random numbers are fixed by b.
//!
//! File: "MCDOSE-CHECKPOINT 4\n", then the fields in native byte order
//! (little-endian on every supported machine), then an FNV-1a 64 checksum of
//! everything before it; written atomically (temp file + rename).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tally/DoseTally.hh"
#include "tally/EnergyBalance.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose
{
struct TransportCheckpoint
{
    //! "key=value" lines describing the run's inputs (study, histories,
    //! batches, tally, RNG, precision, voxels, FX quantum). A resume must match.
    std::string fingerprint;
    std::uint64_t batches_done{0};
    std::uint64_t histories_done{0}; //!< one past the last history of the last batch
    bool finished{false};            //!< the run had ended (nothing left to resume)
    double transport_time_s{0};      //!< transport wall time spent so far
    DoseTallyTotals tally;
    EnergyBalance balance;
    std::vector<std::vector<double>> batch_digests;
};

std::string serialize_checkpoint(TransportCheckpoint const& ck);
//! Throws RuntimeError naming `source` if the bytes are not a complete checkpoint, or
//! one whose fields no run writes (non-finite sums, contradictory counts), naming the field.
TransportCheckpoint deserialize_checkpoint(std::string const& bytes, std::string const& source);

void write_checkpoint(std::string const& path, TransportCheckpoint const& ck);
//! Raw bytes of a checkpoint file (throws RuntimeError if it cannot be read).
std::string read_checkpoint_bytes(std::string const& path);

//! Refuse (RuntimeError) a checkpoint whose fingerprint differs from this
//! run's, naming the first differing entry and what to do.
void check_checkpoint_fingerprint(TransportCheckpoint const& ck, std::string const& expected,
                                  std::string const& path);
//! The fingerprint a checkpoint of this run carries: the caller's description of the input
//! (TransportRunOptions::input_fingerprint) and the run's own settings, one "key=value" line
//! each; a resume is refused unless it is the same.
std::string run_fingerprint(TransportRunOptions const& options, TransportChoice const& choice,
                            size_type voxels, int fx_quantum_exp2);

} // namespace mcdose
