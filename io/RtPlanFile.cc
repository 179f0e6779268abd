//! \file io/RtPlanFile.cc
//! Tags and rules: DICOM PS3.3 C.8.8.10 (RT Prescription is not read), C.8.8.12 (patient
//! setup), C.8.8.13 (fraction scheme), C.8.8.14 (RT Beams: beam limiting devices, control
//! points and the omission of unchanged values after the first control point).
#include "io/RtPlanFile.hh"

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/Assert.hh"
#include "io/DicomDataSet.hh"
#include "io/DicomFileCheck.hh"
#include "io/DicomValue.hh"
#include "io/InputFile.hh"

namespace mcdose
{
namespace
{
constexpr DicomTag modality_tag{0x0008, 0x0060};
constexpr DicomTag sop_class_tag{0x0008, 0x0016};
constexpr DicomTag sop_instance_tag{0x0008, 0x0018};
constexpr DicomTag frame_uid_tag{0x0020, 0x0052};
constexpr DicomTag patient_position_tag{0x0018, 0x5100};
constexpr DicomTag plan_label_tag{0x300a, 0x0002};
constexpr DicomTag fraction_group_seq_tag{0x300a, 0x0070};
constexpr DicomTag fractions_planned_tag{0x300a, 0x0078};
constexpr DicomTag beam_meterset_tag{0x300a, 0x0086};
constexpr DicomTag beam_seq_tag{0x300a, 0x00b0};
constexpr DicomTag machine_name_tag{0x300a, 0x00b2};
constexpr DicomTag sad_tag{0x300a, 0x00b4};
constexpr DicomTag bld_seq_tag{0x300a, 0x00b6};
constexpr DicomTag bld_type_tag{0x300a, 0x00b8};
constexpr DicomTag pairs_tag{0x300a, 0x00bc};
constexpr DicomTag boundaries_tag{0x300a, 0x00be};
constexpr DicomTag beam_number_tag{0x300a, 0x00c0};
constexpr DicomTag beam_name_tag{0x300a, 0x00c2};
constexpr DicomTag beam_type_tag{0x300a, 0x00c4};
constexpr DicomTag radiation_type_tag{0x300a, 0x00c6};
constexpr DicomTag delivery_type_tag{0x300a, 0x00ce};
constexpr DicomTag wedges_tag{0x300a, 0x00d0};
constexpr DicomTag wedge_seq_tag{0x300a, 0x00d1};
constexpr DicomTag compensators_tag{0x300a, 0x00e0};
constexpr DicomTag compensator_seq_tag{0x300a, 0x00e3};
constexpr DicomTag boli_tag{0x300a, 0x00ed};
constexpr DicomTag blocks_tag{0x300a, 0x00f0};
constexpr DicomTag block_seq_tag{0x300a, 0x00f4};
constexpr DicomTag applicator_seq_tag{0x300a, 0x0107};
constexpr DicomTag final_weight_tag{0x300a, 0x010e};
constexpr DicomTag control_points_tag{0x300a, 0x0110};
constexpr DicomTag cp_seq_tag{0x300a, 0x0111};
constexpr DicomTag energy_tag{0x300a, 0x0114};
constexpr DicomTag wedge_position_seq_tag{0x300a, 0x0116};
constexpr DicomTag bld_position_seq_tag{0x300a, 0x011a};
constexpr DicomTag positions_tag{0x300a, 0x011c};
constexpr DicomTag gantry_tag{0x300a, 0x011e};
constexpr DicomTag gantry_direction_tag{0x300a, 0x011f};
constexpr DicomTag collimator_tag{0x300a, 0x0120};
constexpr DicomTag couch_tag{0x300a, 0x0122};
constexpr DicomTag eccentric_tag{0x300a, 0x0125};
constexpr DicomTag isocentre_tag{0x300a, 0x012c};
constexpr DicomTag weight_tag{0x300a, 0x0134};
constexpr DicomTag pitch_tag{0x300a, 0x0140};
constexpr DicomTag roll_tag{0x300a, 0x0144};
constexpr DicomTag patient_setup_seq_tag{0x300a, 0x0180};
constexpr DicomTag setup_number_tag{0x300a, 0x0182};
constexpr DicomTag fluence_mode_seq_tag{0x3002, 0x0050};
constexpr DicomTag fluence_mode_tag{0x3002, 0x0051};
constexpr DicomTag referenced_beam_seq_tag{0x300c, 0x0004};
constexpr DicomTag referenced_beam_number_tag{0x300c, 0x0006};
constexpr DicomTag referenced_setup_tag{0x300c, 0x006a};
constexpr DicomTag referenced_bolus_seq_tag{0x300c, 0x00b0};

char const rtplan_sop_class[] = "1.2.840.10008.5.1.4.1.1.481.5";

//! A required single number.
double required_number(DicomReadSet const& ds, DicomTag tag, std::string const& where)
{
    std::string const text = ds.text(tag);
    MCDOSE_VALIDATE(!text.empty(), << where << " is missing; export the plan again with it");
    auto const v = dicom_decimals(text, where);
    MCDOSE_VALIDATE(v.size() == 1, << where << ": expected one value, got " << v.size());
    return v[0];
}

//! An optional number (`fallback` when absent or empty).
double number_or(DicomReadSet const& ds, DicomTag tag, double fallback, std::string const& where)
{
    return ds.text(tag).empty() ? fallback : required_number(ds, tag, where);
}

std::string beam_where(std::string const& path, RtBeam const& b)
{
    return "'" + path + "' beam " + std::to_string(b.number) + " ('" + b.name + "')";
}

//! The fraction group: meterset per referenced beam number; sets the fractions planned.
std::map<int, double> read_fraction_group(DicomReadSet const& ds, RtPlan& plan)
{
    std::string const where = "'" + plan.path + "' Fraction Group Sequence (300A,0070)";
    auto const groups = ds.items(fraction_group_seq_tag);
    MCDOSE_VALIDATE(!groups.empty(), << where << " is missing or empty: the plan says no beam "
                                     << "and no monitor units; export the approved plan");
    MCDOSE_VALIDATE(groups.size() == 1,
                    << where << " holds " << groups.size()
                    << " fraction groups; mcdose reads a plan of one fraction group: export "
                       "each group as a plan of its own");
    plan.fractions =
        int(number_or(groups[0], fractions_planned_tag, 1, where + " Number of Fractions Planned"));
    std::map<int, double> meterset;
    for (auto const& ref : groups[0].items(referenced_beam_seq_tag))
    {
        int const number = int(
            required_number(ref, referenced_beam_number_tag, where + " Referenced Beam Number"));
        std::string const w =
            where + " beam " + std::to_string(number) + " Beam Meterset (300A,0086)";
        double const mu = required_number(ref, beam_meterset_tag, w);
        MCDOSE_VALIDATE(mu >= 0, << w << " is " << mu << "; monitor units cannot be negative");
        meterset[number] = mu;
    }
    MCDOSE_VALIDATE(!meterset.empty(), << where << " references no beam (Referenced Beam "
                                       << "Sequence (300C,0004) empty); export the approved plan");
    return meterset;
}

//! Refuse the beam accessories and radiations that are not modelled.
void refuse_unmodelled(DicomReadSet const& item, std::string const& where)
{
    std::string const radiation = item.text(radiation_type_tag);
    MCDOSE_VALIDATE(radiation == "PHOTON",
                    << where << ": Radiation Type (300A,00C6) is '" << radiation
                    << "'; mcdose computes photon beams only (electron and ion beams are not "
                       "modelled): remove the beam or compute it in another system");
    struct Item
    {
        DicomTag count, sequence;
        char const* what;
    };
    Item const items[] = {
        {wedges_tag, wedge_seq_tag, "a wedge (Wedge Sequence (300A,00D1))"},
        {compensators_tag, compensator_seq_tag, "a compensator (Compensator Sequence (300A,00E3))"},
        {blocks_tag, block_seq_tag, "a block (Block Sequence (300A,00F4))"},
        {boli_tag, referenced_bolus_seq_tag, "a bolus (Referenced Bolus Sequence (300C,00B0))"},
        {applicator_seq_tag, applicator_seq_tag,
         "an applicator (Applicator Sequence (300A,0107))"}};
    for (auto const& it : items)
    {
        bool const counted = it.count.element != it.sequence.element &&
                             number_or(item, it.count, 0, where + " count") > 0;
        MCDOSE_VALIDATE(!counted && item.items(it.sequence).empty(),
                        << where << " has " << it.what
                        << ", which mcdose does not model; remove it from the beam (an MLC "
                           "or jaws shape the field) or compute this beam in another system");
    }
}

//! The beam limiting devices with their leaf position boundaries.
void read_devices(DicomReadSet const& item, RtBeam& beam, std::string const& where)
{
    for (auto const& d : item.items(bld_seq_tag))
    {
        RtBeamLimitingDevice dev;
        dev.type = d.text(bld_type_tag);
        std::string const w = where + " Beam Limiting Device '" + dev.type + "'";
        MCDOSE_VALIDATE(dev.type == "X" || dev.type == "Y" || dev.type == "ASYMX" ||
                            dev.type == "ASYMY" || dev.type == "MLCX" || dev.type == "MLCY",
                        << w << ": RT Beam Limiting Device Type (300A,00B8) must be X, Y, "
                        << "ASYMX, ASYMY, MLCX or MLCY");
        MCDOSE_VALIDATE(beam.device_index(dev.type) < 0,
                        << w << " is given twice; a beam has one device of each type");
        dev.pairs = int(required_number(d, pairs_tag, w + " Number of Leaf/Jaw Pairs (300A,00BC)"));
        MCDOSE_VALIDATE(dev.pairs >= 1 && dev.pairs <= 1000,
                        << w << ": Number of Leaf/Jaw Pairs is " << dev.pairs);
        if (dev.is_mlc())
        {
            std::string const bw = w + " Leaf Position Boundaries (300A,00BE)";
            MCDOSE_VALIDATE(!d.text(boundaries_tag).empty(), << bw << " is missing");
            dev.boundaries_mm = dicom_decimals(d.text(boundaries_tag), bw);
            MCDOSE_VALIDATE(dev.boundaries_mm.size() == std::size_t(dev.pairs) + 1,
                            << bw << " holds " << dev.boundaries_mm.size() << " values for "
                            << dev.pairs << " leaf pairs; it needs " << dev.pairs + 1);
            for (std::size_t i = 1; i < dev.boundaries_mm.size(); ++i)
            {
                MCDOSE_VALIDATE(dev.boundaries_mm[i] > dev.boundaries_mm[i - 1],
                                << bw << ": boundary " << i << " (" << dev.boundaries_mm[i]
                                << " mm) does not exceed the one before ("
                                << dev.boundaries_mm[i - 1] << " mm); they must increase");
            }
        }
        beam.devices.push_back(std::move(dev));
    }
    MCDOSE_VALIDATE(!beam.devices.empty(), << where << " has no Beam Limiting Device Sequence "
                                           << "(300A,00B6); export the plan with its jaws");
    int const mlcs = int(beam.device_index("MLCX") >= 0) + int(beam.device_index("MLCY") >= 0);
    MCDOSE_VALIDATE(mlcs <= 1, << where << " has both an MLCX and an MLCY; one MLC is modelled");
}

//! A table-top angle that must be 0 (not modelled).
void refuse_table_top_angle(DicomReadSet const& cp, DicomTag tag, char const* what,
                            std::string const& where)
{
    double const a = number_or(cp, tag, 0, where + " " + what);
    MCDOSE_VALIDATE(std::fabs(a) < 1e-6 || std::fabs(a - 360) < 1e-6,
                    << where << ": " << what << " is " << a
                    << " deg; mcdose models the table top without it (0 deg)");
}

//! The device positions a control point gives (others keep the previous control point's).
void read_positions(DicomReadSet const& cp, RtBeam const& beam, RtControlPoint& point, bool first,
                    std::string const& where)
{
    std::vector<bool> given(beam.devices.size(), false);
    for (auto const& p : cp.items(bld_position_seq_tag))
    {
        std::string const type = p.text(bld_type_tag);
        int const k = beam.device_index(type);
        std::string const w = where + " Leaf/Jaw Positions (300A,011C) of '" + type + "'";
        MCDOSE_VALIDATE(k >= 0, << w << ": the beam's Beam Limiting Device Sequence has no such "
                                << "device");
        auto values = dicom_decimals(p.text(positions_tag), w);
        std::size_t const n = std::size_t(beam.devices[k].pairs);
        MCDOSE_VALIDATE(values.size() == 2 * n, << w << " holds " << values.size()
                                                << " values; the device has " << n
                                                << " pairs, so it needs " << 2 * n);
        point.positions_mm[k] = std::move(values);
        given[k] = true;
    }
    for (std::size_t k = 0; first && k < given.size(); ++k)
    {
        MCDOSE_VALIDATE(given[k], << where << ": the first control point gives no position of "
                                  << "the device '" << beam.devices[k].type
                                  << "' (the first control point must give them all)");
    }
    for (std::size_t k = 0; k < beam.devices.size(); ++k)
    {
        auto const& v = point.positions_mm[k];
        std::size_t const n = v.size() / 2;
        for (std::size_t i = 0; i < n; ++i)
        {
            MCDOSE_VALIDATE(v[i] <= v[n + i] + 1e-9,
                            << where << ": " << (beam.devices[k].is_mlc() ? "leaf pair " : "jaw ")
                            << (beam.devices[k].is_mlc() ? std::to_string(i + 1) : "") << " of '"
                            << beam.devices[k].type << "' crosses: bank 1 at " << v[i]
                            << " mm, bank 2 at " << v[n + i]
                            << " mm (bank 1 must not pass bank 2)");
        }
    }
}

//! One control point; `prev` holds the values it may omit (none for the first).
RtControlPoint read_control_point(DicomReadSet const& cp, RtBeam const& beam,
                                  RtControlPoint const* prev, std::string const& where)
{
    RtControlPoint p = prev ? *prev : RtControlPoint{};
    if (!prev)
        p.positions_mm.assign(beam.devices.size(), {});
    MCDOSE_VALIDATE(cp.items(wedge_position_seq_tag).empty(),
                    << where
                    << " has a Wedge Position Sequence (300A,0116); wedges are not "
                       "modelled: remove them from the beam");
    auto angle = [&](DicomTag tag, double& value, char const* what)
    {
        std::string const w = where + " " + what;
        if (!prev || !cp.text(tag).empty())
            value = required_number(cp, tag, w);
        MCDOSE_VALIDATE(value >= 0 && value < 360.0 + 1e-9,
                        << w << " is " << value << " deg; DICOM angles lie in [0, 360)");
    };
    angle(gantry_tag, p.gantry_deg, "Gantry Angle (300A,011E)");
    angle(collimator_tag, p.collimator_deg, "Beam Limiting Device Angle (300A,0120)");
    angle(couch_tag, p.couch_deg, "Patient Support Angle (300A,0122)");
    if (!cp.text(gantry_direction_tag).empty())
        p.gantry_direction = cp.text(gantry_direction_tag);
    MCDOSE_VALIDATE(
        p.gantry_direction == "NONE" || p.gantry_direction == "CW" || p.gantry_direction == "CC",
        << where << " Gantry Rotation Direction (300A,011F) is '" << p.gantry_direction
        << "'; it must be NONE, CW or CC");
    refuse_table_top_angle(cp, eccentric_tag, "Table Top Eccentric Angle (300A,0125)", where);
    refuse_table_top_angle(cp, pitch_tag, "Table Top Pitch Angle (300A,0140)", where);
    refuse_table_top_angle(cp, roll_tag, "Table Top Roll Angle (300A,0144)", where);
    if (!prev || !cp.text(isocentre_tag).empty())
    {
        std::string const w = where + " Isocenter Position (300A,012C)";
        MCDOSE_VALIDATE(!cp.text(isocentre_tag).empty(), << w << " is missing");
        auto const iso = dicom_decimals(cp.text(isocentre_tag), w);
        MCDOSE_VALIDATE(iso.size() == 3, << w << " holds " << iso.size() << " values, not 3");
        p.isocentre_mm = {iso[0], iso[1], iso[2]};
    }
    p.energy_MV = number_or(cp, energy_tag, p.energy_MV, where + " Nominal Beam Energy");
    std::string const ww = where + " Cumulative Meterset Weight (300A,0134)";
    p.cumulative_weight = required_number(cp, weight_tag, ww);
    MCDOSE_VALIDATE(!prev || p.cumulative_weight >= prev->cumulative_weight,
                    << ww << " is " << p.cumulative_weight << ", less than the "
                    << prev->cumulative_weight
                    << " of the control point before: cumulative weights never decrease");
    read_positions(cp, beam, p, !prev, where);
    return p;
}

//! The control points, each complete, and their checks against the final weight.
void read_control_points(DicomReadSet const& item, RtBeam& beam, std::string const& where)
{
    auto const cps = item.items(cp_seq_tag);
    MCDOSE_VALIDATE(cps.size() >= 2, << where << " has " << cps.size()
                                     << " control points (Control Point Sequence (300A,0111)); "
                                        "a beam needs at least 2");
    double const declared = number_or(item, control_points_tag, double(cps.size()),
                                      where + " Number of Control Points (300A,0110)");
    MCDOSE_VALIDATE(std::size_t(declared) == cps.size(),
                    << where << ": Number of Control Points (300A,0110) is " << declared
                    << " but the Control Point Sequence holds " << cps.size());
    for (std::size_t i = 0; i < cps.size(); ++i)
    {
        std::string const w = where + " control point " + std::to_string(i);
        beam.control_points.push_back(
            read_control_point(cps[i], beam, i ? &beam.control_points.back() : nullptr, w));
    }
    beam.final_weight = required_number(item, final_weight_tag,
                                        where + " Final Cumulative Meterset Weight (300A,010E)");
    double const first = beam.control_points.front().cumulative_weight;
    double const last = beam.control_points.back().cumulative_weight;
    double const tol = 1e-6 * std::fabs(beam.final_weight);
    MCDOSE_VALIDATE(beam.final_weight > 0 && std::fabs(first) <= tol &&
                        std::fabs(last - beam.final_weight) <= tol,
                    << where << ": the cumulative meterset weights run from " << first << " to "
                    << last << " but must run from 0 to the Final Cumulative Meterset Weight ("
                    << beam.final_weight << ")");
}

//! One beam item of the Beam Sequence.
RtBeam read_beam(DicomReadSet const& item, RtPlan const& plan,
                 std::map<int, std::string> const& setups)
{
    RtBeam beam;
    std::string const where0 = "'" + plan.path + "' Beam Sequence item";
    beam.number = int(required_number(item, beam_number_tag, where0 + " Beam Number (300A,00C0)"));
    beam.name = item.text(beam_name_tag);
    std::string const where = beam_where(plan.path, beam);
    beam.machine = item.text(machine_name_tag);
    MCDOSE_VALIDATE(!beam.machine.empty(), << where << ": Treatment Machine Name (300A,00B2) is "
                                           << "missing; mcdose matches it to a machine file");
    beam.type = item.text(beam_type_tag);
    beam.sad_mm = required_number(item, sad_tag, where + " Source-Axis Distance (300A,00B4)");
    MCDOSE_VALIDATE(beam.sad_mm > 0, << where << ": Source-Axis Distance is " << beam.sad_mm);
    refuse_unmodelled(item, where);
    for (auto const& f : item.items(fluence_mode_seq_tag))
        beam.fluence_mode = f.text(fluence_mode_tag);
    std::string const setup = item.text(referenced_setup_tag);
    if (!setup.empty() && setups.count(std::atoi(setup.c_str())))
        beam.patient_position = setups.at(std::atoi(setup.c_str()));
    else if (setups.size() == 1)
        beam.patient_position = setups.begin()->second;
    MCDOSE_VALIDATE(!beam.patient_position.empty(),
                    << where
                    << ": no Patient Position (Patient Setup Sequence (300A,0180)); "
                       "export the plan with its patient setup");
    read_devices(item, beam, where);
    read_control_points(item, beam, where);
    return beam;
}
} // namespace

int RtBeam::device_index(std::string const& t) const
{
    for (std::size_t k = 0; k < devices.size(); ++k)
    {
        if (devices[k].type == t)
            return int(k);
    }
    return -1;
}

RtPlan read_rt_plan(std::string const& path)
{
    require_regular_file(path, "RT Plan");
    check_dicom_file_complete(path, "RT Plan");
    auto const ds = DicomReadSet::read(path);
    MCDOSE_VALIDATE(ds, << "cannot read '" << path
                        << "' as a DICOM file (unreadable or not DICOM); give the path of an "
                           "RT Plan (RTPLAN) file");
    std::string const modality = ds->text(modality_tag);
    MCDOSE_VALIDATE(modality == "RTPLAN" || ds->text(sop_class_tag) == rtplan_sop_class,
                    << "'" << path << "' is a DICOM file of modality '" << modality
                    << "', not an RT Plan (RTPLAN); give the plan exported from the planning "
                       "system");
    RtPlan plan;
    plan.path = path;
    plan.label = ds->text(plan_label_tag);
    plan.sop_instance_uid = ds->text(sop_instance_tag);
    plan.frame_of_reference_uid = ds->text(frame_uid_tag);
    MCDOSE_VALIDATE(!plan.frame_of_reference_uid.empty(),
                    << "'" << path << "': Frame of Reference UID (0020,0052) is missing; mcdose "
                    << "checks it against the CT's, so export the plan with it");
    std::map<int, double> const meterset = read_fraction_group(*ds, plan);
    std::map<int, std::string> setups;
    for (auto const& s : ds->items(patient_setup_seq_tag))
        setups[std::atoi(s.text(setup_number_tag).c_str())] = s.text(patient_position_tag);
    for (auto const& item : ds->items(beam_seq_tag))
    {
        std::string const number = item.text(beam_number_tag);
        auto const it = meterset.find(std::atoi(number.c_str()));
        if (number.empty() || it == meterset.end() || it->second <= 0 ||
            item.text(delivery_type_tag) == "SETUP")
            continue; // not delivered in the fraction group
        plan.beams.push_back(read_beam(item, plan, setups));
        plan.beams.back().meterset_mu = it->second;
    }
    for (auto const& [number, mu] : meterset)
    {
        bool found = mu <= 0;
        for (auto const& b : plan.beams)
            found = found || b.number == number;
        MCDOSE_VALIDATE(found, << "'" << path << "': the fraction group gives beam " << number
                               << " " << mu << " MU, but the Beam Sequence (300A,00B0) has no "
                               << "treatment beam of that number; the plan is inconsistent");
    }
    return plan;
}
} // namespace mcdose
