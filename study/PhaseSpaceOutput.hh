//! \file study/PhaseSpaceOutput.hh
//! A phase space written by a run (outputs.phase_space): the particles that
//! cross a plane outside the voxel grid along its normal
//! (transport/engine/PlaneCrossingView.hh), written to `<name>_phase_space.mcpl`
//! in phantom coordinates, so that a run can be split in two: the part before
//! the plane, and a second study that reads the file as a `phase_space` source.
//!
//! Each worker group (a GPU or a CPU thread team) has its own crossing buffer,
//! emptied after each piece of a batch; a buffer that overflowed is grown and
//! the piece run again (the same histories, with Philox: nothing is lost or
//! counted twice). After each batch the crossings are sorted by history and
//! appended to the file, so the file is the same for any number of threads,
//! groups or GPUs. The file is written under a temporary name and renamed when
//! the run's outputs are written; a failed run leaves none.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "core/GridGeometry.hh"
#include "study/StudyInput.hh"
#include "tally/DoseTally.hh"
#include "transport/engine/TransportView.hh"

namespace mcdose
{
class JsonNode;
class McplWriter;

//! Parse outputs.phase_space: {"point_cm", "normal"} or {"axis": "+z", "position_cm"}.
PhaseSpaceOutputInput parse_phase_space_output(JsonNode const& node);

//! Where outputs.phase_space writes.
std::string phase_space_output_path(OutputInput const& outputs);

//! A phase-space source's electrons and positrons need condensed history;
//! InputError naming the source's file otherwise.
void check_phase_space_sources(StudyInput const& study);
//! Refuse, as `run` would and naming the field, histories that are not whole uses of the
//! file (study/PhaseSpaceOutput phase_space_histories) and more batches than particles used.
void check_phase_space_batches(StudyInput const& study, PhaseSpaceInput const& ps);

//! The primary histories that `histories` of this run stand for: themselves, or with a
//! phase-space source whose file records the N primary histories that made its T
//! transported particles, histories x N / T (rounded): what a phase space this run writes
//! records, so that a third stage still normalises to the first.
std::uint64_t primary_histories_of(StudyInput const& study, std::uint64_t histories);

//! The phase-space source of the study, if any (it is then the only source).
SourceInput const* phase_space_source(StudyInput const& study);

/*!
 * Histories of a run with a phase-space source: `requested` (0: all, the
 * transported particles x recycle), which must be a multiple of recycle and
 * at most that product (a particle is never used more than `recycle` times).
 * Throws naming /run/histories and the fix.
 */
std::uint64_t phase_space_histories(StudyInput const& study, std::uint64_t requested);

//! Before transport: the plane must not cut the grid, and the run must use
//! Philox (a piece run again must repeat its histories). Throws InputError
//! naming the field and the fix.
void check_phase_space_output(StudyInput const& study, GridGeometry const& grid);

/*!
 * The crossings of a run, on their way to the file. add_group() for each
 * worker group (on its thread, its GPU current), whose before/after calls go
 * into TransportGroupInputs' hooks; flush_batch() after each completed batch
 * (TransportRunOptions::on_batch); commit() at the end. Only flush_batch()
 * writes: the crossings of a batch a stop cut short (discarded, without
 * on_batch) are dropped by commit(), whether or not its pieces' after hooks ran.
 */
template <class Real>
class PhaseSpaceRecorder
{
  public:
    PhaseSpaceRecorder(std::string const& path, PhaseSpaceOutputInput const& plane,
                       GridGeometry const& grid, std::vector<std::string> const& comments);
    ~PhaseSpaceRecorder();

    //! One group's crossing buffer (host or device memory).
    struct Buffer
    {
        bool device{false};
        std::vector<PlaneCrossing<Real>> host;
        unsigned long long host_count{0};
        DeviceBuffer<PlaneCrossing<Real>> device_records;
        DeviceBuffer<unsigned long long> device_count;
    };
    Buffer& add_group(bool device);

    //! Empty the buffer (sized for the piece) and point the physics view at it.
    void before_piece(Buffer& buffer, HistoryRange const& piece, TransportView<Real>& physics);
    //! Take the piece's crossings; false (buffer grown) if it overflowed.
    bool after_piece(Buffer& buffer);
    //! Append the completed batch's crossings, sorted by history.
    void flush_batch();
    //! Close the file under its final name, dropping the crossings of a batch that
    //! did not complete, with the run's `primary_histories` in its header; returns the
    //! crossings written.
    std::uint64_t commit(std::uint64_t primary_histories);

    std::uint64_t written() const;
    std::uint64_t regrown() const { return regrown_; } //!< pieces run again

  private:
    std::string path_;
    GridGeometry grid_;
    Array3<Real> point_local_{};
    Array3<Real> normal_local_{};
    std::unique_ptr<McplWriter> writer_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<Buffer>> buffers_;
    std::vector<PlaneCrossing<Real>> pending_; //!< the batch's crossings so far
    std::uint64_t regrown_{0};
};

extern template class PhaseSpaceRecorder<float>;
extern template class PhaseSpaceRecorder<double>;
} // namespace mcdose
