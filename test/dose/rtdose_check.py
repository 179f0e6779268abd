#!/usr/bin/python3
"""DICOM RT Dose output read back by an independent reader (pydicom) and checked
against the HDF5 output of the same run: every geometric tag, the dose and
uncertainty values, units, dose types and UIDs, in 16-bit pixels (the default)
and 32-bit ones (outputs.rtdose_bits and run --rtdose-bits); dciodvfy
(dicom3tools) finds no error in either file; the CT-series example's RT Dose
names the CT's FrameOfReferenceUID, StudyInstanceUID and patient.

dciodvfy of Debian's dicom3tools (1.00~20220618) aborts on an assertion
(`bitsallocated <= bytesinword*8u`, attrothr.cc) for any 32-bit Pixel Data, so
for 32-bit files it checks a copy whose pixels are re-described as 16-bit (Bits
Allocated 16 and half the bytes; every other attribute unchanged); the 32-bit
pixel description is checked here with pydicom. A copy without DoseUnits must make
dciodvfy report an error (it really checks). Without an RT Plan to reference,
DICOM's one unmet condition is the Referenced RT Plan Sequence (type 1C for
DoseSummationType PLAN): that error alone is allowed; with
outputs.rtdose_referenced_plan there must be none.

Usage: rtdose_check.py MCDOSE_EXE SOURCE_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pydicom

RT_DOSE_STORAGE = "1.2.840.10008.5.1.4.1.1.481.2"

# A non-cubic grid with unequal spacings, water with a bone slab, a pencil beam
# along +z; one study with a particle count (GY), one without (RELATIVE).
STUDY = """{
  "phantom": {"type": "shapes",
    "grid": {"dimensions": [7, 5, 9], "spacing_cm": [1.5, 2, 1.25], "origin_cm": [-4.5, 3, 0.625]},
    "background": {"material": "water"},
    "shapes": [{"type": "slab", "material": "bone_cortical_icrp", "axis": "z",
                "from_cm": 4, "to_cm": 6}]},
  "sources": [{"type": "pencil", "particle": "photon", "energy_MeV": 6.0,
               "position_cm": [0, 7, -1], "direction": [0, 0, 1] PARTICLES}],
  "rng": {"generator": "philox", "seed": 5},
  "tally": {"batches": 4},
  "run": {"histories": 4000},
  "backend": "cpu",
  "outputs": {"directory": "out", "name": "NAME", "image_format": "none", "depth_dose": false,
              "rtdose": true}
}
"""

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b, tol=1e-9):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=tol)


def run(exe, args, cwd):
    p = subprocess.run([exe, "-q", *args], cwd=cwd, capture_output=True, text=True, timeout=240)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(f"mcdose {' '.join(args)} failed with status {p.returncode}")


def valid_uid(uid):
    return len(uid) <= 64 and re.fullmatch(r"[0-9]+(\.[0-9]+)*", uid) is not None


NO_PLAN_ERROR = ("Error - Missing attribute Type 1C Conditional Element="
                 "<ReferencedRTPlanSequence> Module=<RTDose>")


def dciodvfy_errors(path, remove=None):
    """dciodvfy's errors for the file (a 32-bit one re-described as 16-bit, see above)."""
    ds = pydicom.dcmread(path)
    if ds.BitsAllocated == 32:
        ds.BitsAllocated, ds.BitsStored, ds.HighBit = 16, 16, 15
        ds.PixelData = ds.PixelData[:len(ds.PixelData) // 2]
    if remove:
        delattr(ds, remove)
    copy = path + ".16bit.dcm"
    ds.save_as(copy)
    p = subprocess.run(["dciodvfy", copy], capture_output=True, text=True)
    os.remove(copy)
    if p.returncode not in (0, 1):
        return [f"dciodvfy ended with status {p.returncode}: {p.stderr.strip()}"]
    return [line for line in (p.stdout + p.stderr).splitlines() if line.startswith("Error")]


def check_dciodvfy(path, label, plan_referenced):
    errors = dciodvfy_errors(path)
    allowed = [] if plan_referenced else [NO_PLAN_ERROR]
    check([e for e in errors if e not in allowed] == [], f"{label}: dciodvfy: {errors}")
    if not plan_referenced:
        check(NO_PLAN_ERROR in errors, f"{label}: dciodvfy did not report the missing plan")
    control = dciodvfy_errors(path, remove="DoseUnits")
    check(any("DoseUnits" in e for e in control),
          f"{label}: dciodvfy found nothing wrong without DoseUnits: {control}")


def check_geometry(ds, h5, label, bits):
    """Every geometric tag against the HDF5 grid attributes."""
    spacing = h5.attrs["spacing_cm"] * 10  # mm, (x, y, z)
    origin = h5.attrs["origin_cm"] * 10
    direction = np.asarray(h5.attrs["direction"]).reshape(3, 3)  # columns = i, j, k axes
    nz, ny, nx = h5["dose"].shape
    check(ds.Rows == ny and ds.Columns == nx and int(ds.NumberOfFrames) == nz,
          f"{label}: Rows/Columns/NumberOfFrames {ds.Rows}/{ds.Columns}/{ds.NumberOfFrames} "
          f"vs grid {ny}/{nx}/{nz}")
    check(close(ds.ImagePositionPatient, origin, 1e-6),
          f"{label}: ImagePositionPatient {ds.ImagePositionPatient} vs origin {origin}")
    iop = np.concatenate([direction[:, 0], direction[:, 1]])
    check(close(ds.ImageOrientationPatient, iop, 1e-9),
          f"{label}: ImageOrientationPatient {ds.ImageOrientationPatient} vs {iop}")
    check(close(ds.PixelSpacing, [spacing[1], spacing[0]], 1e-9),
          f"{label}: PixelSpacing {ds.PixelSpacing} vs (dy, dx) {spacing[1]}, {spacing[0]}")
    check(close(ds.SliceThickness, spacing[2], 1e-9),
          f"{label}: SliceThickness {ds.SliceThickness} vs {spacing[2]}")
    normal = np.cross(direction[:, 0], direction[:, 1])
    sign = np.sign(np.dot(normal, direction[:, 2]))
    check(close(ds.GridFrameOffsetVector, sign * spacing[2] * np.arange(nz), 1e-6),
          f"{label}: GridFrameOffsetVector {ds.GridFrameOffsetVector}")
    check(ds.FrameIncrementPointer == pydicom.tag.Tag(0x3004, 0x000C),
          f"{label}: FrameIncrementPointer {ds.FrameIncrementPointer}")
    check(ds.BitsAllocated == bits and ds.BitsStored == bits and ds.HighBit == bits - 1
          and ds.PixelRepresentation == 0 and ds.SamplesPerPixel == 1
          and ds.PhotometricInterpretation == "MONOCHROME2",
          f"{label}: pixel description")


def check_values(ds, expected, label, bits):
    """pixel * DoseGridScaling equals the HDF5 values to half a quantisation step."""
    scaling = float(ds.DoseGridScaling)
    values = ds.pixel_array.astype(np.float64) * scaling  # (frames, rows, columns)
    vmax = expected.max()
    check(vmax > 0, f"{label}: the run deposited no dose")
    # The largest value uses the range: within 1e-9 of 2^bits - 1.
    top = 2**bits - 1
    check(top - 5 <= int(ds.pixel_array.max()) <= top,
          f"{label}: largest pixel {ds.pixel_array.max()} does not use the {bits}-bit range")
    # The documented bound: half a step, the step maximum / (2^bits - 1).
    err = np.abs(values - expected).max()
    check(err <= 0.5 * scaling * (1 + 1e-6) + 1e-12 * vmax and scaling <= vmax / top * (1 + 1e-9),
          f"{label}: values differ from HDF5 by {err} (scaling {scaling})")
    print(f"{label}: {bits}-bit pixels, largest error {err / vmax:.3g} of the maximum "
          f"(bound {0.5 / top:.3g})")


PLAN_UID = "1.2.826.0.1.3680043.8.498.12345678901234567890"


def check_run(exe, work, name, particles, plan=None, bits=16, cli_bits=False):
    study = os.path.join(work, name + ".json")
    text = STUDY.replace("NAME", name).replace(
        "PARTICLES", f', "particles": {particles}' if particles else "")
    if plan:
        text = text.replace('"rtdose": true', f'"rtdose": true, "rtdose_referenced_plan": "{plan}"')
    if bits != 16 and not cli_bits:
        text = text.replace('"rtdose": true', f'"rtdose": true, "rtdose_bits": {bits}')
    if cli_bits:
        text = text.replace('"rtdose": true', '"rtdose": false')
    with open(study, "w") as f:
        f.write(text)
    run(exe, ["run", study] + (["--rtdose-bits", str(bits)] if cli_bits else []), work)
    out = os.path.join(work, "out")
    dose = pydicom.dcmread(os.path.join(out, name + "_dose.dcm"))
    unc = pydicom.dcmread(os.path.join(out, name + "_uncertainty.dcm"))
    with h5py.File(os.path.join(out, name + ".h5"), "r") as h5:
        expected = h5["dose_Gy"][...] if particles else h5["dose"][...]
        rel = h5["dose_uncertainty"][...]
        for ds, label in ((dose, name + "_dose"), (unc, name + "_uncertainty")):
            check(ds.SOPClassUID == RT_DOSE_STORAGE and ds.file_meta.MediaStorageSOPClassUID
                  == RT_DOSE_STORAGE, f"{label}: SOP class {ds.SOPClassUID}")
            check(ds.Modality == "RTDOSE", f"{label}: Modality {ds.Modality}")
            check(ds.DoseUnits == ("GY" if particles else "RELATIVE"),
                  f"{label}: DoseUnits {ds.DoseUnits}")
            check(ds.DoseSummationType == "PLAN", f"{label}: DoseSummationType")
            for uid in (ds.SOPInstanceUID, ds.SeriesInstanceUID, ds.StudyInstanceUID,
                        ds.FrameOfReferenceUID):
                check(valid_uid(uid), f"{label}: '{uid}' is not a valid UID")
            check_geometry(ds, h5, label, bits)
            check_dciodvfy(os.path.join(out, label + ".dcm"), label, plan is not None)
            if plan:
                refs = ds.ReferencedRTPlanSequence
                check(len(refs) == 1 and refs[0].ReferencedSOPInstanceUID == plan
                      and refs[0].ReferencedSOPClassUID == "1.2.840.10008.5.1.4.1.1.481.5",
                      f"{label}: ReferencedRTPlanSequence {refs}")
            else:
                check("ReferencedRTPlanSequence" not in ds,
                      f"{label}: a plan is referenced though none was given")
        check(dose.DoseType == "PHYSICAL", f"dose DoseType {dose.DoseType}")
        check(unc.DoseType == "ERROR", f"uncertainty DoseType {unc.DoseType}")
        check_values(dose, expected, name + "_dose", bits)
        check_values(unc, expected * np.where(expected > 0, rel, 0), name + "_uncertainty", bits)
    check(dose.SeriesInstanceUID == unc.SeriesInstanceUID
          and dose.StudyInstanceUID == unc.StudyInstanceUID
          and dose.FrameOfReferenceUID == unc.FrameOfReferenceUID
          and dose.SOPInstanceUID != unc.SOPInstanceUID
          and (dose.InstanceNumber, unc.InstanceNumber) == (1, 2),
          f"{name}: the two files are not two instances of one series")
    return dose


def check_ct_series(exe, source_dir, work):
    """The DICOM CT example: the RT Dose overlays the CT (tags equal to the CT's)."""
    example = os.path.join(source_dir, "examples", "synthetic_ct_dicom.json")
    out = os.path.join(work, "ct_out")
    run(exe, ["run", example, "--backend", "cpu", "--histories", "3000", "--output-dir", out,
              "--if-exists", "overwrite"], work)
    ct_dir = os.path.join(source_dir, "examples", "synthetic_ct_dicom")
    ct = sorted((pydicom.dcmread(os.path.join(ct_dir, f)) for f in os.listdir(ct_dir)),
                key=lambda d: float(d.ImagePositionPatient[2]))
    for suffix in ("_dose", "_uncertainty"):
        path = os.path.join(out, "synthetic_ct_dicom" + suffix + ".dcm")
        ds = pydicom.dcmread(path)
        label = "CT example" + suffix
        for tag in ("FrameOfReferenceUID", "StudyInstanceUID", "PatientID", "PatientName",
                    "StudyDate", "StudyTime", "StudyID"):
            check(ds.get(tag) == ct[0].get(tag),
                  f"{label}: {tag} '{ds.get(tag)}' differs from the CT's '{ct[0].get(tag)}'")
        check(ds.SeriesInstanceUID != ct[0].SeriesInstanceUID,
              f"{label}: the RT Dose reuses the CT's SeriesInstanceUID")
        check(close(ds.ImagePositionPatient, ct[0].ImagePositionPatient, 1e-6)
              and close(ds.ImageOrientationPatient, ct[0].ImageOrientationPatient, 1e-9)
              and close(ds.PixelSpacing, ct[0].PixelSpacing, 1e-9)
              and ds.Rows == ct[0].Rows and ds.Columns == ct[0].Columns
              and int(ds.NumberOfFrames) == len(ct),
              f"{label}: the grid is not the CT's")
        z = [float(c.ImagePositionPatient[2]) for c in ct]
        check(close(np.asarray(ds.GridFrameOffsetVector) + z[0], z, 1e-6),
              f"{label}: frames are not at the CT's slice positions")
        check_dciodvfy(path, label, False)


def main():
    exe, source_dir, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    check_run(exe, work, "absolute", 2.5e12)
    check_run(exe, work, "with_plan", 1e9, plan=PLAN_UID, bits=32)
    relative = check_run(exe, work, "relative", None, bits=32, cli_bits=True)
    check("per source particle" in relative.DoseComment,
          f"RELATIVE dose does not say its unit: '{relative.DoseComment}'")
    check_ct_series(exe, source_dir, work)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all RT Dose checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
