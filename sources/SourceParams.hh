//! \file sources/SourceParams.hh
//! Host-built source: turns one study source (study/StudyInput.hh,
//! physical phantom coordinates) into a SourceView in the grid's local frame
//! (core/GridGeometry.hh: axes along the voxel index axes, grid corner at
//! 0), the frame the transport tracks in, and owns the spectrum tables on the
//! host and, after the first device_view(), on the device.
//!
//! Field axes: the first axis u is the phantom x axis projected onto the
//! plane perpendicular to the central axis (the y axis when the beam is
//! within 8 degrees of x); the second is v = direction x u. So a beam along
//! +z has u = +x, v = +y; `width_cm` is the extent along u, `height_cm` along v.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/Array3.hh"
#include "core/DeviceBuffer.hh"
#include "core/GridGeometry.hh"
#include "sources/SourceView.hh"

namespace mcdose
{
struct SourceInput;
struct SpectrumInput;
struct VolumeInput;
struct Phantom; // phantoms/VoxelGrid.hh
template <class Real>
class PhaseSpaceChunks; // sources/PhaseSpaceSource.hh
template <class Real>
class PlanParams; // sources/PlanSource.hh

//! Relative number of a volume source's particles starting in each voxel of the phantom
//! (linear index; VolumeInput says how). Throws RuntimeError naming `where` (the source's
//! JSON pointer) for an unknown material, an unreadable or invalid activity image, or a
//! source that emits from no voxel.
std::vector<double> volume_emission_weights(VolumeInput const& volume, Phantom const& phantom,
                                            std::string const& where);

//! First field axis for a central-axis direction (both in the same frame).
Array3<double> field_axis_u(Array3<double> const& direction);

template <class Real>
class SourceParams
{
  public:
    //! Validate and convert; throws RuntimeError naming the JSON field. A volume source
    //! needs the phantom (its emitting voxels come from the materials and densities).
    SourceParams(SourceInput const& input, GridGeometry const& grid,
                 Phantom const* phantom = nullptr);

    SourceParams(SourceParams const&) = delete;
    SourceParams& operator=(SourceParams const&) = delete;
    SourceParams(SourceParams&&) = default;
    SourceParams& operator=(SourceParams&&) = default;

    //! Sampler reading host memory.
    SourceView<Real> const& host_view() const { return host_; }

    //! Sampler reading device memory (tables uploaded on the first call).
    //! Throws "built without CUDA" in a CPU-only build when there are tables
    //! to upload (a mono-energetic source has none).
    SourceView<Real> const& device_view();

    //! A phase-space source: load the particles that histories [first, end)
    //! start, for the host or the device sampler (sources/PhaseSpaceSource.hh).
    void load_phase_space(std::uint64_t first_history, std::uint64_t end_history, bool device);
    //! A phase-space source with read-ahead: start reading the particles of the first
    //! load, histories [first, end), for GPU `gpu` (-1: the host); nothing for other sources.
    void prefetch_phase_space(std::uint64_t first_history, std::uint64_t end_history, int gpu);

  private:
    void set_spectrum(SpectrumInput const& spectrum, std::string const& where);
    void set_volume(SourceInput const& input, Phantom const* phantom);
    void set_beam(SourceInput const& input, GridGeometry const& grid);
    void set_plan(SourceInput const& input, GridGeometry const& grid, Phantom const* phantom);

    std::vector<Real> edges_;   //!< histogram edges
    std::vector<Real> density_; //!< piecewise-linear continuum: density at the edges
    std::vector<Real> lines_;   //!< line energies
    std::vector<Real> keep_;    //!< alias table over the bins, then the lines
    std::vector<int> alias_;
    std::vector<std::uint32_t> emission_voxel_;
    std::vector<Real> emission_keep_;
    std::vector<int> emission_alias_;
    std::vector<Real> aperture_cells_;
    std::vector<Real> aperture_keep_;
    std::vector<int> aperture_alias_;
    SourceView<Real> host_;
    DeviceBuffer<Real> device_edges_;
    DeviceBuffer<Real> device_density_;
    DeviceBuffer<Real> device_lines_;
    DeviceBuffer<Real> device_keep_;
    DeviceBuffer<int> device_alias_;
    DeviceBuffer<std::uint32_t> device_emission_voxel_;
    DeviceBuffer<Real> device_emission_keep_;
    DeviceBuffer<int> device_emission_alias_;
    DeviceBuffer<Real> device_aperture_cells_;
    DeviceBuffer<Real> device_aperture_keep_;
    DeviceBuffer<int> device_aperture_alias_;
    SourceView<Real> device_;
    bool uploaded_{false};
    std::shared_ptr<PhaseSpaceChunks<Real>> phase_space_;
    std::shared_ptr<PlanParams<Real>> plan_;
};

//! The sources of a study as one sampler (SourceMixView). Selection
//! probabilities: proportional to each source's `particles` when every source
//! gives one (the run then represents their sum), else to `weight`; a mix of
//! sources with and without `particles` is refused. A beam's `monitor_units`, when given, is
//! its weight; with `particles` on every source, the beams that give monitor units must
//! share one ratio of particles to monitor units (one linac calibration).
template <class Real>
class SourceMixParams
{
  public:
    SourceMixParams(std::vector<SourceInput> const& inputs, GridGeometry const& grid,
                    Phantom const* phantom = nullptr);

    SourceMixView<Real> host_view() const;
    //! Device sampler (views and tables uploaded on the first call).
    SourceMixView<Real> device_view();

    //! A phase-space source (the study's only source): load the particles of
    //! histories [first, end) and return the sampler that uses them.
    SourceMixView<Real> load_phase_space(std::uint64_t first_history, std::uint64_t end_history,
                                         bool device);
    //! Start reading the first load's particles early (SourceParams::prefetch_phase_space).
    void prefetch_phase_space(std::uint64_t first_history, std::uint64_t end_history, int gpu);

    //! Selection probability of source k.
    double probability(std::size_t k) const { return probability_.at(k); }

  private:
    std::vector<SourceParams<Real>> params_;
    std::vector<double> probability_;
    std::vector<Real> cdf_;
    std::vector<SourceView<Real>> host_views_;
    DeviceBuffer<SourceView<Real>> device_views_;
    DeviceBuffer<Real> device_cdf_;
    bool uploaded_{false};
};

extern template class SourceParams<float>;
extern template class SourceParams<double>;
extern template class SourceMixParams<float>;
extern template class SourceMixParams<double>;
} // namespace mcdose
