//! \file sources/PhaseSpaceSource.hh
//! The host side of a phase-space source: the particles of a piece of a batch,
//! read from the MCPL file (io/McplFile.hh), placed (PhaseSpacePlacement) and
//! converted to the grid's local frame, then copied to the device. History h
//! uses transported particle h / recycle (sources/PhaseSpaceView.hh). Only one
//! piece is in memory at a time, so a file larger than memory streams; a piece
//! that does not follow the last one (another device's, a resumed run) is
//! found through the scan's sparse index.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "core/GridGeometry.hh"
#include "core/Particle.hh"
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

  private:
    PhaseSpaceInput input_;
    std::unique_ptr<McplReader> file_;
    std::array<Real3, 3> rotation_;
    std::uint64_t next_{0}; //!< transported index of the next particle read
};

//! The particles of the current piece, on the host and (after device_view) the device.
template <class Real>
class PhaseSpaceChunks
{
  public:
    PhaseSpaceChunks(PhaseSpaceInput const& input, GridGeometry const& grid);

    //! Load the particles histories [first_history, end_history) start; return
    //! the view of them in host or device memory.
    PhaseSpaceView<Real> load(std::uint64_t first_history, std::uint64_t end_history, bool device);

  private:
    PhaseSpaceReader reader_;
    GridGeometry grid_;
    std::uint32_t recycle_;
    std::vector<Particle<double>> placed_;
    std::vector<Particle<Real>> host_;
    DeviceBuffer<Particle<Real>> device_;
};

extern template class PhaseSpaceChunks<float>;
extern template class PhaseSpaceChunks<double>;
} // namespace mcdose
