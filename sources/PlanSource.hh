//! \file sources/PlanSource.hh
//! An rt_plan source on the host: the plan's beams checked against the machine file and the
//! phantom, and turned into the tables of a PlanView (sources/PlanView.hh) in the tracking
//! frame, held on the host and, after the first device_view(), on the device.
//!
//! Refused before any transport, naming the beam, the control point and the item: a beam
//! selection that names no beam of the plan, a Treatment Machine Name the machine file does
//! not serve, a source-axis distance or leaf widths that differ from the machine's, leaves or
//! jaws beyond the machine's range, a couch angle or isocentre that changes within a beam, a
//! patient position other than HFS, HFP, FFS or FFP, and a plan whose Frame of Reference is
//! not the CT's.
#pragma once

#include <string>
#include <vector>

#include "core/DeviceBuffer.hh"
#include "core/GridGeometry.hh"
#include "sources/PlanView.hh"

namespace mcdose
{
struct PlanInput;

//! The tables of a plan's delivery in double precision (PlanView documents the layout).
struct PlanTables
{
    std::vector<int> segment_beam, segment_point;
    std::vector<double> segment_omega;  //!< mean jaw solid angle of each segment [sr]
    std::vector<double> segment_weight; //!< monitor units x mean solid angle [MU sr]
    std::vector<double> points;
    int point_stride{0};
    std::vector<double> beams;
    std::vector<double> boundaries_cm;
    int pairs{0};
    bool along_y{false};
    double monitor_units{0}; //!< of the selected beams, per fraction
    std::size_t control_points{0};
};

//! Check the plan and build its tables; `where` is the source's JSON pointer, `ct_frame_uid`
//! the phantom's Frame of Reference ("" for a phantom not made from a DICOM CT).
PlanTables build_plan_tables(PlanInput const& input, GridGeometry const& grid,
                             std::string const& where, std::string const& ct_frame_uid);

//! The mean solid angle [sr] of the jaw openings over the selected beams' monitor units:
//! sum over segments of MU x (mean jaw solid angle) / total MU. A plan's particles per
//! monitor unit are those of its machine's focal spot per steradian times this (the plan's
//! emission extent, sources/SourceModel.hh). Refuses a plan that does not fit its machine.
double plan_mean_solid_angle_sr(PlanInput const& input, std::string const& where);

//! Monitor units of the selected beams (per fraction).
double plan_monitor_units(PlanInput const& input, std::string const& where);

template <class Real>
class PlanParams
{
  public:
    PlanParams(PlanInput const& input, GridGeometry const& grid, std::string const& where,
               std::string const& ct_frame_uid);

    PlanView<Real> const& host_view() const { return host_; }
    //! The tables uploaded on the first call; "built without CUDA" in a CPU-only build.
    PlanView<Real> const& device_view();

  private:
    std::vector<int> segment_beam_, segment_point_, alias_;
    std::vector<Real> segment_omega_, keep_, points_, beams_, boundaries_;
    PlanView<Real> host_;
    DeviceBuffer<int> device_segment_beam_, device_segment_point_, device_alias_;
    DeviceBuffer<Real> device_segment_omega_, device_keep_, device_points_, device_beams_,
        device_boundaries_;
    PlanView<Real> device_;
    bool uploaded_{false};
};

extern template class PlanParams<float>;
extern template class PlanParams<double>;
} // namespace mcdose
