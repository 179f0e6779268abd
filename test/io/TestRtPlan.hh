//! \file test/io/TestRtPlan.hh
//! RT Plan files written for tests through io/DicomDataSet.hh: a plan described by plain
//! structs (each value optional, so that a test can leave one out), encoded as a Part 10
//! file. Tags as in DICOM PS3.3 C.8.8.14.
#pragma once

#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "io/DicomDataSet.hh"

namespace mcdose
{
namespace test
{
//! Leaf Position Boundaries of the Varian Millennium 120 [mm]: 10 leaves of 10 mm, 40 of
//! 5 mm, 10 of 10 mm.
inline std::vector<double> millennium120_boundaries_mm()
{
    std::vector<double> b;
    for (double y = -200; y < -100; y += 10)
        b.push_back(y);
    for (double y = -100; y < 100; y += 5)
        b.push_back(y);
    for (double y = 100; y <= 200; y += 10)
        b.push_back(y);
    return b;
}

struct TestDevicePosition
{
    std::string type;
    std::vector<double> positions_mm;
};

struct TestControlPoint
{
    std::optional<double> weight;
    std::optional<double> gantry_deg{0.0};
    std::optional<std::string> gantry_direction{"NONE"};
    std::optional<double> collimator_deg{0.0};
    std::optional<double> couch_deg{0.0};
    std::optional<std::vector<double>> isocentre_mm{std::vector<double>{0, 0, 0}};
    std::vector<TestDevicePosition> positions;
};

struct TestDevice
{
    std::string type;
    int pairs{1};
    std::vector<double> boundaries_mm;
};

struct TestBeam
{
    int number{1};
    std::string name{"B1"};
    std::string machine{"TrueBeam1"};
    std::string radiation{"PHOTON"};
    double sad_mm{1000};
    std::optional<double> meterset_mu{100.0};
    std::vector<TestDevice> devices;
    std::vector<TestControlPoint> control_points;
    std::optional<double> final_weight{1.0};
    //! Further elements of the beam item (e.g. a wedge).
    std::function<void(DicomDataSet&)> extra;
};

struct TestPlan
{
    std::string frame_uid{"1.2.826.0.1.3680043.2.1125.1.42"};
    std::string patient_position{"HFS"};
    std::vector<TestBeam> beams;
};

//! Decimal strings joined by backslashes.
inline std::string ds_values(std::vector<double> const& v)
{
    std::ostringstream os;
    os.precision(10);
    for (std::size_t i = 0; i < v.size(); ++i)
        os << (i ? "\\" : "") << v[i];
    return os.str();
}

inline std::string ds_value(double v)
{
    return ds_values({v});
}

inline DicomDataSet control_point_item(TestControlPoint const& c, std::size_t index)
{
    DicomDataSet d;
    d.put({0x300a, 0x0112}, DicomVr::IS, std::to_string(index));
    if (c.weight)
        d.put({0x300a, 0x0134}, DicomVr::DS, ds_value(*c.weight));
    if (c.gantry_deg)
        d.put({0x300a, 0x011e}, DicomVr::DS, ds_value(*c.gantry_deg));
    if (c.gantry_direction)
        d.put({0x300a, 0x011f}, DicomVr::CS, *c.gantry_direction);
    if (c.collimator_deg)
        d.put({0x300a, 0x0120}, DicomVr::DS, ds_value(*c.collimator_deg));
    if (c.couch_deg)
        d.put({0x300a, 0x0122}, DicomVr::DS, ds_value(*c.couch_deg));
    if (c.isocentre_mm)
        d.put({0x300a, 0x012c}, DicomVr::DS, ds_values(*c.isocentre_mm));
    if (index == 0)
        d.put({0x300a, 0x0114}, DicomVr::DS, "6");
    std::vector<DicomDataSet> positions;
    for (auto const& p : c.positions)
    {
        DicomDataSet item;
        item.put({0x300a, 0x00b8}, DicomVr::CS, p.type);
        item.put({0x300a, 0x011c}, DicomVr::DS, ds_values(p.positions_mm));
        positions.push_back(item);
    }
    if (!positions.empty())
        d.put_sequence({0x300a, 0x011a}, positions);
    return d;
}

inline DicomDataSet beam_item(TestBeam const& b)
{
    DicomDataSet d;
    d.put({0x300a, 0x00c0}, DicomVr::IS, std::to_string(b.number));
    d.put({0x300a, 0x00c2}, DicomVr::LO, b.name);
    d.put({0x300a, 0x00b2}, DicomVr::SH, b.machine);
    d.put({0x300a, 0x00b3}, DicomVr::CS, "MU");
    d.put({0x300a, 0x00b4}, DicomVr::DS, ds_value(b.sad_mm));
    d.put({0x300a, 0x00c4}, DicomVr::CS, b.control_points.size() > 2 ? "DYNAMIC" : "STATIC");
    d.put({0x300a, 0x00c6}, DicomVr::CS, b.radiation);
    d.put({0x300a, 0x00ce}, DicomVr::CS, "TREATMENT");
    d.put({0x300c, 0x006a}, DicomVr::IS, "1");
    std::vector<DicomDataSet> devices;
    for (auto const& dev : b.devices)
    {
        DicomDataSet item;
        item.put({0x300a, 0x00b8}, DicomVr::CS, dev.type);
        item.put({0x300a, 0x00bc}, DicomVr::IS, std::to_string(dev.pairs));
        if (!dev.boundaries_mm.empty())
            item.put({0x300a, 0x00be}, DicomVr::DS, ds_values(dev.boundaries_mm));
        devices.push_back(item);
    }
    d.put_sequence({0x300a, 0x00b6}, devices);
    if (b.final_weight)
        d.put({0x300a, 0x010e}, DicomVr::DS, ds_value(*b.final_weight));
    d.put({0x300a, 0x0110}, DicomVr::IS, std::to_string(b.control_points.size()));
    std::vector<DicomDataSet> cps;
    for (std::size_t i = 0; i < b.control_points.size(); ++i)
        cps.push_back(control_point_item(b.control_points[i], i));
    d.put_sequence({0x300a, 0x0111}, cps);
    if (b.extra)
        b.extra(d);
    return d;
}

//! The plan as the bytes of a Part 10 file, written to `path`.
inline void write_test_plan(TestPlan const& plan, std::string const& path)
{
    DicomDataSet d;
    d.put({0x0008, 0x0016}, DicomVr::UI, "1.2.840.10008.5.1.4.1.1.481.5");
    d.put({0x0008, 0x0018}, DicomVr::UI, new_dicom_uid());
    d.put({0x0008, 0x0060}, DicomVr::CS, "RTPLAN");
    d.put({0x0020, 0x0052}, DicomVr::UI, plan.frame_uid);
    d.put({0x300a, 0x0002}, DicomVr::SH, "TEST");
    DicomDataSet setup;
    setup.put({0x0018, 0x5100}, DicomVr::CS, plan.patient_position);
    setup.put({0x300a, 0x0182}, DicomVr::IS, "1");
    d.put_sequence({0x300a, 0x0180}, {setup});
    DicomDataSet group;
    group.put({0x300a, 0x0071}, DicomVr::IS, "1");
    group.put({0x300a, 0x0078}, DicomVr::IS, "30");
    group.put({0x300a, 0x0080}, DicomVr::IS, std::to_string(plan.beams.size()));
    std::vector<DicomDataSet> refs, beams;
    for (auto const& b : plan.beams)
    {
        DicomDataSet ref;
        ref.put({0x300c, 0x0006}, DicomVr::IS, std::to_string(b.number));
        if (b.meterset_mu)
            ref.put({0x300a, 0x0086}, DicomVr::DS, ds_value(*b.meterset_mu));
        refs.push_back(ref);
        beams.push_back(beam_item(b));
    }
    group.put_sequence({0x300c, 0x0004}, refs);
    d.put_sequence({0x300a, 0x0070}, {group});
    d.put_sequence({0x300a, 0x00b0}, beams);
    auto const bytes = d.encode_explicit_little_endian();
    std::ofstream out(path, std::ios::binary);
    out << bytes.value();
}

//! A static beam: jaws (ASYMX, ASYMY) and a Millennium 120 MLCX with every leaf pair at
//! (x1, x2) [mm] (`leaves` empty: pairs open to the jaws), two control points.
inline TestBeam static_beam(double x1, double x2, double y1, double y2,
                            std::vector<double> leaves = {})
{
    TestBeam b;
    b.devices = {{"ASYMX", 1, {}}, {"ASYMY", 1, {}}, {"MLCX", 60, millennium120_boundaries_mm()}};
    if (leaves.empty())
    {
        leaves.assign(60, x1);
        leaves.insert(leaves.end(), 60, x2);
    }
    TestControlPoint c0;
    c0.weight = 0;
    c0.positions = {{"ASYMX", {x1, x2}}, {"ASYMY", {y1, y2}}, {"MLCX", leaves}};
    TestControlPoint c1;
    c1.weight = 1;
    c1.gantry_deg.reset();
    c1.gantry_direction.reset();
    c1.collimator_deg.reset();
    c1.couch_deg.reset();
    c1.isocentre_mm.reset();
    b.control_points = {c0, c1};
    return b;
}
} // namespace test
} // namespace mcdose
