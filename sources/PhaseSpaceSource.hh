//! \file sources/PhaseSpaceSource.hh
//! The host side of a phase-space source: the particles of a piece of a batch,
//! read from the MCPL file (io/McplFile.hh), placed (PhaseSpacePlacement) and
//! converted to the grid's local frame, then copied to the device. History h
//! uses transported particle h / recycle (sources/PhaseSpaceView.hh). A piece
//! that does not follow the last one (another device's, a resumed run) is
//! found through the scan's sparse index.
//!
//! Read-ahead (PhaseSpaceInput::read_ahead): while a piece is transported, a
//! thread reads the particles of the group's next piece as it is likely to
//! be (right after this one, or one batch on when the group's pieces are
//! strided), so at most two pieces are in memory and a file larger than memory
//! still streams. The guess only decides what is read early: load() takes the
//! particles it needs from the read-ahead where they are there and reads the
//! rest, so every history gets the same particle either way. An error of the
//! read-ahead is not reported by it: load() reads those particles again and
//! throws the error the reading without read-ahead throws, if it needs them.
//! The first piece is read the same way while the run sets up (prefetch), with
//! the next piece's memory mapped after it.
//!
//! A piece is read in parts at once, each by a reader with the file open on its own
//! (PhaseSpaceInput::read_threads; parts of at least 2^16 particles): one thread
//! reads, places and converts about 10^7 particles per second, less than a GPU
//! transports. For a GPU, each reading thread copies its part to the GPU a block
//! at a time through pinned memory of its own, so that the copies neither wait for
//! each other nor for the part's end.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "core/DeviceMemory.hh"
#include "core/GridGeometry.hh"
#include "core/Particle.hh"
#include "core/Types.hh"
#include "sources/PhaseSpaceInput.hh"
#include "sources/PhaseSpaceView.hh"

namespace mcdose
{
class McplReader;

//! Reads transported particles of a scanned file in order, in phantom coordinates.
class PhaseSpaceReader
{
  public:
    explicit PhaseSpaceReader(PhaseSpaceInput input);
    ~PhaseSpaceReader();
    PhaseSpaceReader(PhaseSpaceReader const&) = delete;
    PhaseSpaceReader& operator=(PhaseSpaceReader const&) = delete;

    //! Transported particles [first, first + count), placed in phantom coordinates.
    void read(std::uint64_t first, std::uint64_t count, std::vector<Particle<double>>& out);
    //! Seek before the next read (after an error left the file's position unknown).
    void forget_position() { next_ = no_position; }

  private:
    PhaseSpaceInput input_;
    std::unique_ptr<McplReader> file_;
    std::array<Real3, 3> rotation_;
    static constexpr std::uint64_t no_position = ~std::uint64_t(0);
    std::uint64_t next_{0}; //!< transported index of the next particle read
};

//! Threads that read a piece at once (`read_threads`, or one per core, at most 16).
std::size_t phase_space_read_threads(PhaseSpaceInput const& input);

//! What one worker group's phase-space source holds with pieces of `piece` particles
//! (PhaseSpaceChunks: one piece, two with read-ahead, and each reading thread's block).
struct PhaseSpaceMemory
{
    double host_bytes{0};
    double device_bytes{0}; //!< on the group's GPU (with `gpu`)
};
PhaseSpaceMemory phase_space_memory(PhaseSpaceInput const& input, std::uint64_t piece,
                                    Precision precision, bool gpu);

//! The particles of the current piece, on the host and (after load) the device;
//! with read-ahead, a thread reads the next piece meanwhile and, for a GPU, copies it
//! to the GPU while the current piece is transported.
template <class Real>
class PhaseSpaceChunks
{
  public:
    PhaseSpaceChunks(PhaseSpaceInput const& input, GridGeometry const& grid);
    //! Stops the read-ahead (within a block of particles) and waits for it.
    ~PhaseSpaceChunks();
    PhaseSpaceChunks(PhaseSpaceChunks const&) = delete;
    PhaseSpaceChunks& operator=(PhaseSpaceChunks const&) = delete;

    //! Load the particles histories [first_history, end_history) start; return
    //! the view of them in host or device memory.
    PhaseSpaceView<Real> load(std::uint64_t first_history, std::uint64_t end_history, bool device);

    /*!
     * With read-ahead: start reading, on a thread, the particles that histories
     * [first_history, end_history) start (the first piece the run will load, known
     * before its set-up ends), copied to GPU `gpu` as they are read (-1: host only),
     * then map the next piece's memory on another thread; the first load() takes what it can of
     * them, as of any read-ahead. Does nothing without read-ahead or once a load was made.
     */
    void prefetch(std::uint64_t first_history, std::uint64_t end_history, int gpu);

    //! Particles loaded from the read-ahead so far (the others were read by load()).
    std::uint64_t read_ahead_used() const { return read_ahead_used_; }

  private:
    //! Transported particles [first, end()), in the grid's local frame.
    struct Piece
    {
        std::uint64_t first{0};
        std::vector<Particle<Real>> particles;
        bool on_device{false}; //!< also in device_ahead_ (copied as it was read)
        std::uint64_t end() const { return first + particles.size(); }
    };

    //! Where a piece's parts are copied as they are read (none: no particles).
    struct DeviceTarget
    {
        Particle<Real>* particles{nullptr};
        int gpu{-1};
    };

    Piece read_piece(std::uint64_t first, std::uint64_t end, int gpu = -1);
    void fill(std::uint64_t first, std::uint64_t end, bool device);
    Piece take_read_ahead();
    void start_next_memory(std::size_t n, int gpu);
    void take_next_memory();
    void start_read_ahead(std::uint64_t first, std::uint64_t end, bool device);
    void read_ahead_async(std::uint64_t from, std::uint64_t to, int gpu, bool then_next_memory);
    //! The device view of [first, end) of the current piece (copied there if not yet).
    Span<Particle<Real> const> on_device(std::uint64_t first, std::uint64_t end);

    //! The piece's part k (of `parts`) into piece.particles and, when whole, to `target`;
    //! returns the particles read (fewer if cancel_ stopped it).
    std::uint64_t read_part(Piece& piece, std::uint64_t end, std::size_t k, std::size_t parts,
                            DeviceTarget target);

    PhaseSpaceInput input_;
    std::vector<std::unique_ptr<PhaseSpaceReader>> readers_; //!< one per part read at once
    std::size_t max_readers_{1};
    GridGeometry grid_;
    std::uint32_t recycle_;
    bool read_ahead_;
    std::uint64_t transported_;
    Piece current_;                                 //!< holds the particles loaded
    std::uint64_t loaded_first_{0}, loaded_end_{0}; //!< which: [loaded_first_, loaded_end_)
    std::uint64_t last_first_{0}, last_end_{0};     //!< the piece loaded before
    std::vector<Particle<Real>> spare_; //!< a piece's memory to reuse (no new pages mapped)
    std::future<Piece> ahead_;          //!< the read-ahead (invalid: none)
    std::atomic<bool> cancel_{false};
    std::uint64_t read_ahead_used_{0};
    DeviceBuffer<Particle<Real>> device_;           //!< what the GPU transports
    std::uint64_t device_first_{0}, device_end_{0}; //!< the particles device_ holds
    DeviceBuffer<Particle<Real>> device_ahead_;     //!< the read-ahead's copy
    //! After a prefetch: the second piece's memory, made on a thread (start_next_memory).
    std::future<void> next_memory_;
    std::vector<Particle<Real>> next_host_;
    DeviceBuffer<Particle<Real>> next_device_;
    //! Each part's copies to device_ahead_ (made by its reading thread when first needed).
    std::vector<std::unique_ptr<DeviceUploadStream>> uploads_;
};

extern template class PhaseSpaceChunks<float>;
extern template class PhaseSpaceChunks<double>;
} // namespace mcdose
