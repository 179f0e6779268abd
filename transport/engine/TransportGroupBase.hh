//! \file transport/engine/TransportGroupBase.hh
//! One worker group of a transport run (a GPU, or a team of CPU threads) as the batch loop
//! (TransportDriver.cc) sees it: its batch grid, energy balances and history queue, and
//! two typed steps (set up; run one piece of a batch) that the typed group
//! (TransportGroup.hh) implements for its precision, generator and tally method.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "core/Types.hh"
#include "rng/RngKind.hh"
#include "tally/DoseTally.hh"
#include "tally/EnergyBalance.hh"
#include "transport/engine/PersistentGrid.hh"

namespace mcdose
{
//! What the batch loop sets a group up with (TransportDriver::set_up_groups).
struct GroupSetup
{
    bool gpu{false};
    int gpu_block_unit{128};       //!< GPU: the block is whole units of this many threads
    int cpu_threads{0};            //!< CPU: the group's threads
    size_type index{0};            //!< the group's index on this rank
    std::uint64_t global_group{0}; //!< its index over all ranks (per-thread RNG streams)
    RngOptions rng;
    std::uint64_t first_batch{0}; //!< the run segment's first batch (after a resume)
    DoseTallyInput tally;
    DoseFoldOptions fold;
    std::uint64_t slots{1};                  //!< batches per launch
    std::uint64_t histories_per_batch{1};    //!< the group's share of a batch (chunk size)
    std::uint32_t chunk{0};                  //!< histories per grab (0: automatic)
    std::uint64_t source_particles_ahead{0}; //!< GPU with Philox (SourceParticles.hh)
};

/*!
 * Resources of one worker group. The batch loop sets `queue_end` and `host_counter` of a
 * CPU group before a piece (a stop request empties the queue by raising the counter to
 * the end) and `slot_map` before each launch; the typed group runs the piece.
 */
class TransportGroupBase
{
  public:
    virtual ~TransportGroupBase() = default;
    TransportGroupBase() = default;
    TransportGroupBase(TransportGroupBase const&) = delete;
    TransportGroupBase& operator=(TransportGroupBase const&) = delete;

    //! Launch shape, generators, batch grid, balances and queue; then the group's inputs.
    virtual void set_up(GroupSetup const& setup) = 0;

    /*!
     * Transport the group's piece of a launch, with its before/after hooks; a piece the
     * after hook refuses is discarded (dose and balances) and run again. Returns whether
     * a stop request cut the piece short (a GPU's counter below the end, a CPU group's
     * emptied queue; the piece is then left to be discarded, without its after hook).
     */
    virtual bool run_piece(HistoryRange const& piece, bool watching) = 0;

    //! The group's device memory freed (call with its device current).
    void free_memory()
    {
        device_balances = {};
        device_counter = {};
        device_stop = {};
        balances_at_start = {};
        free_typed_memory();
        tally.reset();
    }

    //! The energy balance of the group's workers, summed in worker order.
    EnergyBalance balance() const
    {
        std::vector<EnergyBalance> const b =
            device_balances.empty() ? host_balances : device_balances.to_host();
        EnergyBalance sum;
        for (auto const& x : b)
            sum += x;
        return sum;
    }

    int device{-1}; //!< GPU index (-1: CPU, or the current device)
    PersistentGrid grid;
    size_type workers{0};
    std::unique_ptr<DoseTally> tally;
    std::vector<EnergyBalance> host_balances;
    DeviceBuffer<EnergyBalance> device_balances;
    unsigned long long host_counter{0}; //!< CPU: the queue's next history
    std::uint64_t queue_end{0};         //!< CPU: one past the piece's last history
    //! CPU: a stop request emptied the queue while the piece ran (its
    //! histories left out), so the piece is discarded without its after hook.
    std::atomic<bool> cut_by_stop{false};
    DeviceBuffer<unsigned long long> device_counter;
    DeviceBuffer<unsigned> device_stop;            //!< GPU: the queue's stop word
    DeviceBuffer<EnergyBalance> balances_at_start; //!< GPU: restored if a batch is cut
    BatchSlotMap slot_map;                         //!< which batch grid each history uses
    std::uint64_t sampled_ahead{0};                //!< source particles sampled so far

  protected:
    //! The typed group's device memory (generators, source particles) freed.
    virtual void free_typed_memory() = 0;
};
} // namespace mcdose
