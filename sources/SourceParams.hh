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

#include <vector>

#include "core/Array3.hh"
#include "core/DeviceBuffer.hh"
#include "core/GridGeometry.hh"
#include "sources/SourceView.hh"

namespace mcdose
{
struct SourceInput;

//! First field axis for a central-axis direction (both in the same frame).
Array3<double> field_axis_u(Array3<double> const& direction);

template <class Real>
class SourceParams
{
  public:
    //! Validate and convert; throws RuntimeError naming the JSON field.
    SourceParams(SourceInput const& input, GridGeometry const& grid);

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

  private:
    std::vector<Real> edges_;
    std::vector<Real> keep_;
    std::vector<int> alias_;
    SourceView<Real> host_;
    DeviceBuffer<Real> device_edges_;
    DeviceBuffer<Real> device_keep_;
    DeviceBuffer<int> device_alias_;
    SourceView<Real> device_;
    bool uploaded_{false};
};

//! The sources of a study as one sampler (SourceMixView). Selection
//! probabilities: proportional to each source's `particles` when every source
//! gives one (the run then represents their sum), else to `weight`; a mix of
//! sources with and without `particles` is refused.
template <class Real>
class SourceMixParams
{
  public:
    SourceMixParams(std::vector<SourceInput> const& inputs, GridGeometry const& grid);

    SourceMixView<Real> host_view() const;
    //! Device sampler (views and tables uploaded on the first call).
    SourceMixView<Real> device_view();

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
