//! \file sources/PlanSource.cc
#include "sources/PlanSource.hh"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/Assert.hh"
#include "sources/BeamGeometry.hh"
#include "sources/PlanInput.hh"
#include "sources/SpectrumView.hh"

namespace mcdose
{
namespace
{
std::string beam_where(std::string const& where, RtBeam const& b)
{
    return where + ": beam " + std::to_string(b.number) + " ('" + b.name + "')";
}

//! The beams to deliver, in the plan's order.
std::vector<RtBeam const*> selected_beams(PlanInput const& in, std::string const& where)
{
    std::vector<RtBeam const*> beams;
    std::string numbers;
    for (auto const& b : in.plan.beams)
    {
        numbers += (numbers.empty() ? "" : ", ") + std::to_string(b.number);
        if (in.beams.empty() || std::count(in.beams.begin(), in.beams.end(), b.number))
            beams.push_back(&b);
    }
    for (int n : in.beams)
    {
        bool const found = std::any_of(in.plan.beams.begin(), in.plan.beams.end(),
                                       [n](RtBeam const& b) { return b.number == n; });
        MCDOSE_VALIDATE(found, << where << "/beams: the plan '" << in.plan.path
                               << "' delivers no beam " << n << "; its beams are " << numbers);
    }
    MCDOSE_VALIDATE(!beams.empty(), << where << ": the plan '" << in.plan.path
                                    << "' delivers no beam (no beam with monitor units)");
    return beams;
}

//! The beam's machine and MLC against the machine file.
void check_machine(RtBeam const& b, MachineModel const& m, std::string const& where)
{
    std::string names;
    for (auto const& n : m.machine_names)
        names += (names.empty() ? "'" : ", '") + n + "'";
    MCDOSE_VALIDATE(
        std::count(m.machine_names.begin(), m.machine_names.end(), b.machine),
        << where << ": Treatment Machine Name '" << b.machine << "' is not served by the machine "
        << "file '" << m.path << "' (" << m.name << ", machine_names " << names
        << "); add it to 'machine_names' if the machine has this collimator, or give the "
           "machine file of this machine");
    MCDOSE_VALIDATE(std::fabs(b.sad_mm / 10 - m.sad_cm) < 1e-3,
                    << where << ": Source-Axis Distance " << b.sad_mm << " mm, but the machine '"
                    << m.name << "' has " << m.sad_cm * 10 << " mm");
    int const k = b.device_index(m.mlc.type == "MLCX" ? "MLCY" : "MLCX");
    MCDOSE_VALIDATE(k < 0, << where << ": the plan's MLC is '" << b.devices[k].type
                           << "' but the machine '" << m.name << "' has an " << m.mlc.type);
    int const mlc = b.device_index(m.mlc.type);
    if (mlc < 0)
        return;
    auto const& bounds = b.devices[mlc].boundaries_mm;
    MCDOSE_VALIDATE(std::size_t(b.devices[mlc].pairs) == m.mlc.widths_cm.size(),
                    << where << ": the plan's " << m.mlc.type << " has " << b.devices[mlc].pairs
                    << " leaf pairs, the machine '" << m.name << "' " << m.mlc.widths_cm.size());
    for (std::size_t i = 0; i < m.mlc.widths_cm.size(); ++i)
    {
        double const w = (bounds[i + 1] - bounds[i]) / 10;
        MCDOSE_VALIDATE(std::fabs(w - m.mlc.widths_cm[i]) < 0.005,
                        << where << ": leaf pair " << i + 1 << " is " << w * 10
                        << " mm wide in the plan's Leaf Position Boundaries but "
                        << m.mlc.widths_cm[i] * 10 << " mm in the machine '" << m.name << "' ("
                        << m.path << "); give the machine file of this MLC");
    }
}

//! Jaws x1, x2, y1, y2 [cm] at control point `cp` (the machine's range where the plan has
//! no jaw along an axis), checked against the range.
void jaw_positions(RtBeam const& b, std::size_t cp, MachineModel const& m, std::string const& where,
                   double* jaws)
{
    double const max[2] = {m.jaws.max_x_cm, m.jaws.max_y_cm};
    for (int axis = 0; axis < 2; ++axis)
    {
        jaws[2 * axis] = -max[axis];
        jaws[2 * axis + 1] = max[axis];
        for (char const* type : {axis ? "Y" : "X", axis ? "ASYMY" : "ASYMX"})
        {
            int const k = b.device_index(type);
            if (k < 0)
                continue;
            auto const& p = b.control_points[cp].positions_mm[std::size_t(k)];
            for (int side = 0; side < 2; ++side)
            {
                double const x = p[std::size_t(side)] / 10;
                MCDOSE_VALIDATE(std::fabs(x) <= max[axis] + 1e-9,
                                << where << " control point " << cp << ": jaw '" << type << "' "
                                << (side ? 2 : 1) << " at " << x * 10 << " mm is beyond the "
                                << "machine's " << max[axis] * 10 << " mm");
                jaws[2 * axis + side] = x;
            }
        }
    }
}

//! Leaf positions [cm] at control point `cp` (2 pairs values), checked against the range.
void leaf_positions(RtBeam const& b, std::size_t cp, MachineModel const& m, int pairs,
                    std::string const& where, std::vector<double>& out)
{
    int const k = b.device_index(m.mlc.type);
    if (k < 0)
    {
        // A beam without the MLC: leaves parked far outside any field.
        out.insert(out.end(), std::size_t(pairs), -1e3);
        out.insert(out.end(), std::size_t(pairs), 1e3);
        return;
    }
    auto const& p = b.control_points[cp].positions_mm[std::size_t(k)];
    for (std::size_t j = 0; j < p.size(); ++j)
    {
        double const x = p[j] / 10;
        MCDOSE_VALIDATE(std::fabs(x) <= m.mlc.max_position_cm + 1e-9,
                        << where << " control point " << cp << ": leaf "
                        << (j < p.size() / 2 ? "bank 1" : "bank 2") << " pair "
                        << j % (p.size() / 2) + 1 << " at " << p[j] << " mm is beyond the "
                        << "machine's range of " << m.mlc.max_position_cm * 10 << " mm");
        out.push_back(x);
    }
}

//! `to` unwrapped next to `from` [deg]: turning clockwise (CW, increasing), counter-clockwise
//! (CC) or the short way (NONE).
double unwrap(double from, double to, std::string const& direction)
{
    double d = std::fmod(to - from, 360.0);
    if (direction == "CW")
        d = d < 0 ? d + 360 : d;
    else if (direction == "CC")
        d = d > 0 ? d - 360 : d;
    else
        d = d > 180 ? d - 360 : (d < -180 ? d + 360 : d);
    return from + d;
}

//! The matrix from the IEC fixed system to the tracking frame (row-major), the isocentre in
//! the tracking frame and the SAD.
void beam_frame(RtBeam const& b, GridGeometry const& grid, std::string const& where,
                std::vector<double>& out)
{
    PatientPosition position{};
    MCDOSE_VALIDATE(patient_position_from_dicom(b.patient_position, &position),
                    << where << ": Patient Position '" << b.patient_position
                    << "' is not modelled; mcdose places HFS, HFP, FFS and FFP patients");
    Real3 col[3];
    for (int j = 0; j < 3; ++j)
    {
        Real3 e{{0, 0, 0}};
        e[j] = 1;
        col[j] =
            grid.direction_to_local(fixed_to_phantom(e, b.control_points[0].couch_deg, position));
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            out.push_back(col[j][i]);
    auto const& iso = b.control_points[0].isocentre_mm;
    Real3 const local = grid.to_local(Real3{{iso[0] / 10, iso[1] / 10, iso[2] / 10}});
    out.insert(out.end(), {local[0], local[1], local[2], b.sad_mm / 10});
}

//! Mean over the segment of the jaw opening's solid angle (jaws linear in the meterset;
//! Simpson's rule over 8 intervals).
double mean_jaw_solid_angle(double const* a, double const* b, double sad_cm)
{
    int const n = 8;
    double sum = 0;
    for (int i = 0; i <= n; ++i)
    {
        double const t = double(i) / n;
        double j[4];
        for (int c = 0; c < 4; ++c)
            j[c] = (1 - t) * a[c] + t * b[c];
        double const omega =
            j[1] > j[0] && j[3] > j[2] ? rectangle_solid_angle(j[0], j[1], j[2], j[3], sad_cm) : 0;
        sum += omega * (i == 0 || i == n ? 1 : (i % 2 ? 4 : 2));
    }
    return sum / (3.0 * n);
}

//! One beam's control points and segments appended to the tables.
void add_beam(RtBeam const& b, PlanInput const& in, int beam_index, std::string const& where,
              PlanTables& t)
{
    auto const& cps = b.control_points;
    std::size_t const first = t.points.size() / std::size_t(t.point_stride);
    double gantry = cps[0].gantry_deg, collimator = cps[0].collimator_deg;
    for (std::size_t k = 0; k < cps.size(); ++k)
    {
        MCDOSE_VALIDATE(cps[k].couch_deg == cps[0].couch_deg,
                        << where << " control point " << k << ": Patient Support Angle "
                        << cps[k].couch_deg << " deg differs from the beam's first ("
                        << cps[0].couch_deg << " deg); a couch that turns during a beam is "
                        << "not modelled");
        MCDOSE_VALIDATE(cps[k].isocentre_mm == cps[0].isocentre_mm,
                        << where << " control point " << k << ": Isocenter Position differs "
                        << "from the beam's first; an isocentre that moves during a beam is "
                        << "not modelled");
        if (k > 0)
        {
            gantry = unwrap(gantry, cps[k].gantry_deg, cps[k - 1].gantry_direction);
            collimator = unwrap(collimator, cps[k].collimator_deg, "NONE");
        }
        t.points.push_back(gantry);
        t.points.push_back(collimator);
        double jaws[4];
        jaw_positions(b, k, in.machine, where, jaws);
        t.points.insert(t.points.end(), jaws, jaws + 4);
        leaf_positions(b, k, in.machine, t.pairs, where, t.points);
    }
    for (std::size_t k = 0; k + 1 < cps.size(); ++k)
    {
        double const mu = b.meterset_mu *
                          (cps[k + 1].cumulative_weight - cps[k].cumulative_weight) /
                          b.final_weight;
        double const* a = &t.points[(first + k) * std::size_t(t.point_stride) + 2];
        double const omega = mean_jaw_solid_angle(a, a + t.point_stride, b.sad_mm / 10);
        if (!(mu > 0 && omega > 0))
            continue; // no beam on (a step of step-and-shoot) or jaws closed
        t.segment_beam.push_back(beam_index);
        t.segment_point.push_back(int(first + k));
        t.segment_omega.push_back(omega);
        t.segment_weight.push_back(mu * omega);
    }
    t.monitor_units += b.meterset_mu;
    t.control_points += cps.size();
}
} // namespace

PlanTables build_plan_tables(PlanInput const& in, GridGeometry const& grid,
                             std::string const& where, std::string const& ct_frame_uid)
{
    MCDOSE_VALIDATE(ct_frame_uid.empty() || ct_frame_uid == in.plan.frame_of_reference_uid,
                    << where << ": the plan '" << in.plan.path << "' is on the Frame of "
                    << "Reference " << in.plan.frame_of_reference_uid << " but the CT on "
                    << ct_frame_uid << "; give the CT the plan was made on");
    std::vector<RtBeam const*> const beams = selected_beams(in, where);
    PlanTables t;
    MlcModel const& mlc = in.machine.mlc;
    t.pairs = int(mlc.widths_cm.size());
    t.along_y = mlc.type == "MLCY";
    t.point_stride = 6 + 2 * t.pairs;
    double edge = 0;
    for (double w : mlc.widths_cm)
        edge += w;
    t.boundaries_cm.push_back(-edge / 2);
    for (double w : mlc.widths_cm)
        t.boundaries_cm.push_back(t.boundaries_cm.back() + w);
    for (std::size_t i = 0; i < beams.size(); ++i)
    {
        std::string const w = beam_where(where, *beams[i]);
        check_machine(*beams[i], in.machine, w);
        int const k = beams[i]->device_index(mlc.type);
        if (k >= 0)
        {
            auto const& b = beams[i]->devices[std::size_t(k)].boundaries_mm;
            for (std::size_t j = 0; j < b.size(); ++j)
                t.boundaries_cm[j] = b[j] / 10; // the plan's, within 0.05 mm of the machine's
        }
        beam_frame(*beams[i], grid, w, t.beams);
        add_beam(*beams[i], in, int(i), w, t);
    }
    MCDOSE_VALIDATE(!t.segment_weight.empty(), << where << ": the plan '" << in.plan.path
                                               << "' delivers no monitor units "
                                               << "through an open jaw opening");
    return t;
}

double plan_mean_solid_angle_sr(PlanInput const& in, std::string const& where)
{
    double mu_omega = 0, mu = 0;
    for (RtBeam const* b : selected_beams(in, where))
    {
        std::string const w = beam_where(where, *b);
        check_machine(*b, in.machine, w);
        auto const& cps = b->control_points;
        double jaws[2][4];
        jaw_positions(*b, 0, in.machine, w, jaws[0]);
        for (std::size_t k = 0; k + 1 < cps.size(); ++k)
        {
            jaw_positions(*b, k + 1, in.machine, w, jaws[(k + 1) % 2]);
            double const dmu = b->meterset_mu *
                               (cps[k + 1].cumulative_weight - cps[k].cumulative_weight) /
                               b->final_weight;
            mu_omega += dmu * mean_jaw_solid_angle(jaws[k % 2], jaws[(k + 1) % 2], b->sad_mm / 10);
        }
        mu += b->meterset_mu;
    }
    return mu_omega / mu;
}

double plan_monitor_units(PlanInput const& in, std::string const& where)
{
    double mu = 0;
    for (RtBeam const* b : selected_beams(in, where))
        mu += b->meterset_mu;
    return mu;
}

namespace
{
template <class Real>
std::vector<Real> to_real(std::vector<double> const& v)
{
    return std::vector<Real>(v.begin(), v.end());
}
} // namespace

template <class Real>
PlanParams<Real>::PlanParams(PlanInput const& in, GridGeometry const& grid,
                             std::string const& where, std::string const& ct_frame_uid)
{
    PlanTables const t = build_plan_tables(in, grid, where, ct_frame_uid);
    segment_beam_ = t.segment_beam;
    segment_point_ = t.segment_point;
    segment_omega_ = to_real<Real>(t.segment_omega);
    auto const table = make_alias_table(t.segment_weight);
    keep_.assign(table.keep.begin(), table.keep.end());
    alias_ = table.alias;
    points_ = to_real<Real>(t.points);
    beams_ = to_real<Real>(t.beams);
    boundaries_ = to_real<Real>(t.boundaries_cm);
    PlanView<Real>& v = host_;
    v.segment_beam = make_span(std::as_const(segment_beam_));
    v.segment_point = make_span(std::as_const(segment_point_));
    v.segment_omega = make_span(std::as_const(segment_omega_));
    v.keep = make_span(std::as_const(keep_));
    v.alias = make_span(std::as_const(alias_));
    v.points = make_span(std::as_const(points_));
    v.point_stride = t.point_stride;
    v.beams = make_span(std::as_const(beams_));
    MlcModel const& m = in.machine.mlc;
    MlcView<Real>& mv = v.mlc;
    mv.pairs = t.pairs;
    mv.along_y = t.along_y;
    mv.boundaries_cm = make_span(std::as_const(boundaries_));
    mv.sad_cm = Real(in.machine.sad_cm);
    mv.half_height_cm = Real(m.leaf_height_cm / 2);
    mv.centre_cm = Real(m.centre_distance_cm);
    mv.radius_cm = Real(m.end_radius_cm);
    mv.tg_half_cm = Real(m.tongue_groove_cm / 2);
    mv.mu_per_cm = Real(-std::log(m.leaf_transmission) / m.leaf_height_cm);
    mv.tg_fraction = Real(std::log(m.interleaf_transmission) / std::log(m.leaf_transmission));
    device_ = host_;
}

template <class Real>
PlanView<Real> const& PlanParams<Real>::device_view()
{
    if (!uploaded_)
    {
        device_segment_beam_ = DeviceBuffer<int>(segment_beam_);
        device_segment_point_ = DeviceBuffer<int>(segment_point_);
        device_alias_ = DeviceBuffer<int>(alias_);
        device_segment_omega_ = DeviceBuffer<Real>(segment_omega_);
        device_keep_ = DeviceBuffer<Real>(keep_);
        device_points_ = DeviceBuffer<Real>(points_);
        device_beams_ = DeviceBuffer<Real>(beams_);
        device_boundaries_ = DeviceBuffer<Real>(boundaries_);
        device_.segment_beam = std::as_const(device_segment_beam_).device_span();
        device_.segment_point = std::as_const(device_segment_point_).device_span();
        device_.alias = std::as_const(device_alias_).device_span();
        device_.segment_omega = std::as_const(device_segment_omega_).device_span();
        device_.keep = std::as_const(device_keep_).device_span();
        device_.points = std::as_const(device_points_).device_span();
        device_.beams = std::as_const(device_beams_).device_span();
        device_.mlc.boundaries_cm = std::as_const(device_boundaries_).device_span();
        uploaded_ = true;
    }
    return device_;
}

template class PlanParams<float>;
template class PlanParams<double>;
} // namespace mcdose
