#!/usr/bin/python3
"""Write a DICOM RT Structure Set (RTSTRUCT) of simple shapes drawn on the axial
planes of a CT, with pydicom (Debian python3-pydicom).

The structures are described by a JSON file:

  {
    "frame_of_reference_uid": "2.25.1.9",       # the CT's (0020,0052)
    "series_uid": "2.25.1.1",                   # the CT series the contours reference
    "study_uid": "2.25.1",
    "patient_name": "Test^Phantom",             # the CT's (0010,0010) (default Test^Phantom)
    "patient_id": "mcdose",                     # the CT's (0010,0020) (default mcdose)
    "planes_mm": {"first": -33, "spacing": 3, "count": 4},   # CT slice z positions
    "vertices": 256,                            # per circle or ellipse (default 256)
    "structures": [
      {"name": "PTV", "shape": "sphere", "centre_mm": [x, y, z], "radius_mm": r},
      {"name": "Box", "shape": "box", "lower_mm": [x, y, z], "upper_mm": [x, y, z]},
      {"name": "BODY", "shape": "elliptic_cylinder", "centre_mm": [x, y], "semi_axes_mm": [a, b],
       "z_range_mm": [z0, z1]},
      {"name": "Raw", "contours_mm": [[[x, y, z], ...], ...]},   # given contours as they are
      {"name": "Empty"}                                          # an ROI without contours
    ]
  }

A shape is drawn as one closed polygon on every plane that cuts it (a sphere as
a circle of radius sqrt(r^2 - dz^2); a box as a rectangle on the planes with
lower z <= z <= upper z). Polygon vertices of circles and ellipses lie on the
curve, so the polygon's area is below the curve's by 1 - sin(2 pi/N)/(2 pi/N):
0.01 % for N = 256 vertices, 0.16 % for 64.

Usage: scripts/make_rtstruct.py structures.json output.dcm
The synthetic CT example's structure set (examples/synthetic_ct_rtstruct.dcm:
BODY, PTV, Lung_L) is made by
  scripts/make_rtstruct.py scripts/synthetic_ct_structures.json examples/synthetic_ct_rtstruct.dcm
"""
import json
import math
import sys
from pathlib import Path

import pydicom
from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
from pydicom.sequence import Sequence
from pydicom.uid import ExplicitVRLittleEndian

RTSTRUCT_SOP_CLASS = "1.2.840.10008.5.1.4.1.1.481.3"


def planes(spec):
    p = spec["planes_mm"]
    return [p["first"] + i * p["spacing"] for i in range(p["count"])]


def ellipse(cx, cy, a, b, z, n):
    return [[cx + a * math.cos(2 * math.pi * i / n), cy + b * math.sin(2 * math.pi * i / n), z]
            for i in range(n)]


def contours_of(structure, zs, n):
    shape = structure.get("shape")
    if "contours_mm" in structure:
        return structure["contours_mm"]
    if shape is None:
        return []
    out = []
    for z in zs:
        if shape == "sphere":
            cx, cy, cz = structure["centre_mm"]
            r = structure["radius_mm"]
            if abs(z - cz) < r:
                rz = math.sqrt(r * r - (z - cz) ** 2)
                out.append(ellipse(cx, cy, rz, rz, z, n))
        elif shape == "box":
            lo, hi = structure["lower_mm"], structure["upper_mm"]
            if lo[2] <= z <= hi[2]:
                out.append([[lo[0], lo[1], z], [hi[0], lo[1], z], [hi[0], hi[1], z],
                            [lo[0], hi[1], z]])
        elif shape == "elliptic_cylinder":
            z0, z1 = structure["z_range_mm"]
            if z0 <= z <= z1:
                cx, cy = structure["centre_mm"]
                a, b = structure["semi_axes_mm"]
                out.append(ellipse(cx, cy, a, b, z, n))
        else:
            raise SystemExit(f"unknown shape '{shape}' of structure '{structure['name']}'")
    return out


def write_rtstruct(spec, path):
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = RTSTRUCT_SOP_CLASS
    meta.MediaStorageSOPInstanceUID = spec["study_uid"] + ".77.1"
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(str(path), {}, file_meta=meta, preamble=b"\0" * 128)
    ds.SOPClassUID = RTSTRUCT_SOP_CLASS
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.Modality = "RTSTRUCT"
    ds.PatientName = spec.get("patient_name", "Test^Phantom")
    ds.PatientID = spec.get("patient_id", "mcdose")
    ds.StudyInstanceUID = spec["study_uid"]
    ds.SeriesInstanceUID = spec["study_uid"] + ".77"
    ds.FrameOfReferenceUID = spec["frame_of_reference_uid"]
    ds.StructureSetLabel = "mcdose test"

    series = Dataset()
    series.SeriesInstanceUID = spec["series_uid"]
    study = Dataset()
    study.ReferencedSOPClassUID = "1.2.840.10008.3.1.2.3.1"
    study.ReferencedSOPInstanceUID = spec["study_uid"]
    study.RTReferencedSeriesSequence = Sequence([series])
    frame = Dataset()
    frame.FrameOfReferenceUID = spec["frame_of_reference_uid"]
    frame.RTReferencedStudySequence = Sequence([study])
    ds.ReferencedFrameOfReferenceSequence = Sequence([frame])

    zs = planes(spec)
    rois, roi_contours, observations = [], [], []
    for number, s in enumerate(spec["structures"], start=1):
        roi = Dataset()
        roi.ROINumber = number
        roi.ReferencedFrameOfReferenceUID = s.get("frame_of_reference_uid",
                                                  spec["frame_of_reference_uid"])
        roi.ROIName = s["name"]
        roi.ROIGenerationAlgorithm = "MANUAL"
        rois.append(roi)
        contours = []
        for c in contours_of(s, zs, spec.get("vertices", 256)):
            item = Dataset()
            item.ContourGeometricType = "CLOSED_PLANAR"
            item.NumberOfContourPoints = len(c)
            item.ContourData = [f"{v:.3f}" for point in c for v in point]
            contours.append(item)
        rc = Dataset()
        rc.ReferencedROINumber = number
        rc.ROIDisplayColor = [255, 0, 0]
        if contours:
            rc.ContourSequence = Sequence(contours)
        roi_contours.append(rc)
        obs = Dataset()
        obs.ObservationNumber = number
        obs.ReferencedROINumber = number
        obs.RTROIInterpretedType = s.get("type", "ORGAN")
        obs.ROIInterpreter = ""
        observations.append(obs)
    ds.StructureSetROISequence = Sequence(rois)
    ds.ROIContourSequence = Sequence(roi_contours)
    ds.RTROIObservationsSequence = Sequence(observations)
    ds.is_little_endian = True
    ds.is_implicit_VR = False
    tmp = Path(str(path) + ".tmp")
    ds.save_as(str(tmp), write_like_original=False)
    tmp.replace(path)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    spec = json.loads(Path(sys.argv[1]).read_text())
    write_rtstruct(spec, Path(sys.argv[2]))
    print(f"wrote {sys.argv[2]} ({len(spec['structures'])} structures)")


if __name__ == "__main__":
    main()
