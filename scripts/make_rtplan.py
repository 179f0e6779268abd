#!/usr/bin/python3
"""Write example DICOM RT Plans (RTPLAN) on a CT series with pydicom (Debian python3-pydicom):
a 3-field conformal plan, a 7-field step-and-shoot IMRT plan and a two-arc VMAT plan, for a
Varian Millennium 120 MLC (examples/machines/varian_millennium120.json, Treatment Machine
Name "TrueBeam1"), 6 MV, isocentre at the target's centre. The plans take the CT's patient,
study and Frame of Reference, so that mcdose accepts them with that CT.

The target is a sphere (centre and radius given); each beam's leaves are fitted to its
projection (a circle at the isocentre plane), grown by a margin:
  - conformal: gantry 0, 90 and 270, one static aperture with a 5 mm margin, 100 MU each;
  - imrt: 7 gantry angles 51.4 deg apart, three nested segments (margins 5, -2 and -8 mm) of
    50, 30 and 20 % of 60 MU each, the leaves moving between segments with the beam off;
  - vmat: an arc from 181 to 179 deg clockwise and one back counter-clockwise, 45 control
    points each, the aperture shifted along X_b by 5 mm sin(gantry) (a sliding, changing
    field), 250 MU each.

Usage: scripts/make_rtplan.py CT_DIR KIND OUTPUT.dcm [--centre x y z] [--radius r]
(mm, DICOM patient coordinates; defaults: the synthetic CT example's PTV, (0, -20, 100), 20).
The example plan examples/synthetic_ct_plan_vmat.dcm is made by
  scripts/make_rtplan.py examples/synthetic_ct_dicom vmat examples/synthetic_ct_plan_vmat.dcm
"""
import argparse
import datetime
import math
from pathlib import Path

import pydicom
from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
from pydicom.sequence import Sequence
from pydicom.uid import ExplicitVRLittleEndian, generate_uid

RTPLAN_SOP_CLASS = "1.2.840.10008.5.1.4.1.1.481.5"
MACHINE = "TrueBeam1"
JAW_MARGIN_MM = 5


def millennium120_boundaries():
    """Leaf Position Boundaries of the Millennium 120 [mm]."""
    b = [-200 + 10 * i for i in range(10)]
    b += [-100 + 5 * i for i in range(40)]
    b += [100 + 10 * i for i in range(11)]
    return b


def aperture(radius, margin, shift=0.0):
    """Leaf positions (bank 1 then bank 2) fitted to a circle of `radius` + `margin` [mm],
    centred at x = shift; pairs outside it closed at the circle's centre."""
    b = millennium120_boundaries()
    r = radius + margin
    bank1, bank2 = [], []
    for lo, hi in zip(b[:-1], b[1:]):
        y = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
        half = math.sqrt(r * r - y * y) if y < r else 0.0
        bank1.append(round(shift - half, 2))
        bank2.append(round(shift + half, 2))
    return bank1 + bank2


def ds_list(values):
    return [f"{v:.2f}" for v in values]


def control_point(index, weight, gantry, direction, leaves=None, jaws=None, first=False,
                  isocentre=None):
    cp = Dataset()
    cp.ControlPointIndex = index
    cp.CumulativeMetersetWeight = f"{weight:.6f}"
    cp.GantryAngle = f"{gantry % 360:.2f}"
    cp.GantryRotationDirection = direction
    if first:
        cp.NominalBeamEnergy = "6"
        cp.DoseRateSet = "600"
        cp.BeamLimitingDeviceAngle = "0"
        cp.BeamLimitingDeviceRotationDirection = "NONE"
        cp.PatientSupportAngle = "0"
        cp.PatientSupportRotationDirection = "NONE"
        cp.TableTopEccentricAngle = "0"
        cp.TableTopEccentricRotationDirection = "NONE"
        cp.IsocenterPosition = ds_list(isocentre)
    positions = []
    if jaws is not None:
        for kind, pair in (("ASYMX", jaws[:2]), ("ASYMY", jaws[2:])):
            item = Dataset()
            item.RTBeamLimitingDeviceType = kind
            item.LeafJawPositions = ds_list(pair)
            positions.append(item)
    if leaves is not None:
        item = Dataset()
        item.RTBeamLimitingDeviceType = "MLCX"
        item.LeafJawPositions = ds_list(leaves)
        positions.append(item)
    if positions:
        cp.BeamLimitingDevicePositionSequence = Sequence(positions)
    return cp


def jaws_for(radius, margin, shift=0.0):
    r = radius + margin + JAW_MARGIN_MM
    return [shift - r, shift + r, -r, r]


def beam(number, name, kind, points):
    """A beam item: `points` is a list of (weight, gantry, direction, leaves, jaws)."""
    b = Dataset()
    b.BeamNumber = number
    b.BeamName = name
    b.BeamType = kind
    b.RadiationType = "PHOTON"
    b.TreatmentMachineName = MACHINE
    b.PrimaryDosimeterUnit = "MU"
    b.SourceAxisDistance = "1000"
    b.TreatmentDeliveryType = "TREATMENT"
    b.NumberOfWedges = 0
    b.NumberOfCompensators = 0
    b.NumberOfBoli = 0
    b.NumberOfBlocks = 0
    b.FinalCumulativeMetersetWeight = "1"
    b.ReferencedPatientSetupNumber = 1
    devices = []
    for kind_, pairs in (("ASYMX", 1), ("ASYMY", 1), ("MLCX", 60)):
        d = Dataset()
        d.RTBeamLimitingDeviceType = kind_
        d.NumberOfLeafJawPairs = pairs
        if kind_ == "MLCX":
            d.LeafPositionBoundaries = ds_list(millennium120_boundaries())
        devices.append(d)
    b.BeamLimitingDeviceSequence = Sequence(devices)
    b.NumberOfControlPoints = len(points)
    b.ControlPointSequence = Sequence(points)
    return b


def conformal(iso, radius):
    beams = []
    for n, g in enumerate((0, 90, 270), start=1):
        leaves, jaws = aperture(radius, 5), jaws_for(radius, 5)
        cps = [control_point(0, 0, g, "NONE", leaves, jaws, True, iso),
               control_point(1, 1, g, "NONE")]
        beams.append((beam(n, f"G{g}", "STATIC", cps), 100.0))
    return beams


def imrt(iso, radius):
    beams = []
    margins, fractions = (5, -2, -8), (0.5, 0.3, 0.2)
    for n in range(1, 8):
        g = round((n - 1) * 360 / 7, 1)
        jaws = jaws_for(radius, 5)
        cps, w = [], 0.0
        for s, (m, f) in enumerate(zip(margins, fractions)):
            leaves = aperture(radius, m)
            cps.append(control_point(len(cps), w, g, "NONE", leaves, jaws if s == 0 else None,
                                     s == 0, iso))
            w += f
            cps.append(control_point(len(cps), min(w, 1.0), g, "NONE", leaves))
        beams.append((beam(n, f"IMRT{n}", "STATIC", cps), 60.0))
    return beams


def vmat(iso, radius):
    beams = []
    for n, (start, step, direction) in enumerate(((181, 8, "CW"), (179, -8, "CC")), start=1):
        cps = []
        count = 45
        for k in range(count):
            g = start + step * k
            shift = 5 * math.sin(math.radians(g))
            cps.append(control_point(k, k / (count - 1), g, direction if k < count - 1 else "NONE",
                                     aperture(radius, 3, shift), jaws_for(radius, 3, 0) if k == 0
                                     else None, k == 0, iso))
        beams.append((beam(n, f"Arc{n}", "DYNAMIC", cps), 250.0))
    return beams


def plan_dataset(ct, beams, label):
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = RTPLAN_SOP_CLASS
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(None, {}, file_meta=meta, preamble=b"\0" * 128)
    now = datetime.datetime(2026, 1, 1, 12, 0, 0)
    ds.SOPClassUID = RTPLAN_SOP_CLASS
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.Modality = "RTPLAN"
    for key in ("PatientName", "PatientID", "PatientBirthDate", "PatientSex", "StudyInstanceUID",
                "StudyDate", "StudyTime", "StudyID", "AccessionNumber",
                "ReferringPhysicianName", "FrameOfReferenceUID"):
        setattr(ds, key, getattr(ct, key, ""))
    ds.PositionReferenceIndicator = ""
    ds.SeriesInstanceUID = generate_uid()
    ds.SeriesNumber = 100
    ds.OperatorsName = ""
    ds.Manufacturer = "mcdose example"
    ds.InstanceCreationDate = ds.RTPlanDate = now.strftime("%Y%m%d")
    ds.InstanceCreationTime = ds.RTPlanTime = now.strftime("%H%M%S")
    ds.RTPlanLabel = label
    ds.RTPlanGeometry = "TREATMENT_DEVICE"
    setup = Dataset()
    setup.PatientSetupNumber = 1
    setup.PatientPosition = "HFS"
    ds.PatientSetupSequence = Sequence([setup])
    group = Dataset()
    group.FractionGroupNumber = 1
    group.NumberOfFractionsPlanned = 30
    group.NumberOfBeams = len(beams)
    group.NumberOfBrachyApplicationSetups = 0
    refs = []
    for b, mu in beams:
        r = Dataset()
        r.ReferencedBeamNumber = b.BeamNumber
        r.BeamMeterset = f"{mu:.3f}"
        refs.append(r)
    group.ReferencedBeamSequence = Sequence(refs)
    ds.FractionGroupSequence = Sequence([group])
    ds.BeamSequence = Sequence([b for b, _ in beams])
    ds.ApprovalStatus = "UNAPPROVED"
    return ds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ct_dir")
    parser.add_argument("kind", choices=("conformal", "imrt", "vmat"))
    parser.add_argument("output")
    parser.add_argument("--centre", type=float, nargs=3, default=(0.0, -20.0, 100.0))
    parser.add_argument("--radius", type=float, default=20.0)
    args = parser.parse_args()
    slices = sorted(Path(args.ct_dir).glob("*.dcm"))
    if not slices:
        raise SystemExit(f"{args.ct_dir}: no .dcm files (give the CT series' folder)")
    ct = pydicom.dcmread(str(slices[0]), stop_before_pixels=True)
    beams = {"conformal": conformal, "imrt": imrt, "vmat": vmat}[args.kind](args.centre,
                                                                           args.radius)
    pydicom.dcmwrite(args.output, plan_dataset(ct, beams, args.kind.upper()),
                     write_like_original=False)


if __name__ == "__main__":
    main()
