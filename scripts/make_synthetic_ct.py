#!/usr/bin/python3
"""Write a small synthetic CT-like image (MetaImage, int16 HU) for the examples.

A thorax-like cross-section extruded along z: an elliptical body of soft tissue
(40 HU) under a 1 cm fat layer (-100 HU), two lungs (-800 HU), a sternum and a
vertebral body of bone (700 HU, cortical rim 1200 HU), air outside (-1000 HU),
plus Gaussian noise (sigma 15 HU, fixed seed) as in a real scan. Values stay
inside the default HU calibration [-1024, 3071].

Geometry: 64 x 48 x 40 voxels of 5 mm (MetaImage lengths are in mm), origin
chosen so that the image is centred on (0, 0, 10 cm).

With --dicom DIR the same CT is also written as a DICOM CT series (one file
per slice, int16, rescale slope 1 and intercept 0, pydicom), with fixed UIDs
and a made-up patient, so that examples/synthetic_ct_dicom.json can show an RT
Dose that overlays its CT (same FrameOfReferenceUID and StudyInstanceUID).

Usage: scripts/make_synthetic_ct.py [output.mha] [--dicom DIR]
       (default examples/synthetic_ct.mha)
"""
import sys
import zlib
from pathlib import Path

import numpy as np

NX, NY, NZ = 64, 48, 40
SPACING_MM = 5.0


def phantom_hu():
    # Voxel-centre coordinates in cm, centred on the image.
    x = (np.arange(NX) - (NX - 1) / 2) * SPACING_MM / 10
    y = (np.arange(NY) - (NY - 1) / 2) * SPACING_MM / 10
    xx, yy = np.meshgrid(x, y, indexing="xy")  # shape (NY, NX)

    def ellipse(cx, cy, a, b):
        return ((xx - cx) / a) ** 2 + ((yy - cy) / b) ** 2 <= 1.0

    hu = np.full((NY, NX), -1000.0)
    hu[ellipse(0, 0, 15, 10)] = -100.0           # fat layer
    hu[ellipse(0, 0, 14, 9)] = 40.0              # soft tissue
    hu[ellipse(-6.5, -0.5, 4.5, 6.5)] = -800.0   # right lung
    hu[ellipse(6.5, -0.5, 4.5, 6.5)] = -800.0    # left lung
    hu[ellipse(0, 6.5, 2.0, 1.5)] = 1200.0       # vertebral body, cortical rim
    hu[ellipse(0, 6.5, 1.5, 1.0)] = 700.0        # cancellous interior
    hu[ellipse(0, -8.0, 1.5, 0.6)] = 900.0       # sternum
    volume = np.repeat(hu[np.newaxis, :, :], NZ, axis=0)  # (NZ, NY, NX), x fastest
    rng = np.random.default_rng(20001)
    volume += rng.normal(0.0, 15.0, volume.shape)
    return np.clip(np.rint(volume), -1024, 3071).astype("<i2")


def write_mha(path, volume):
    data = zlib.compress(volume.tobytes(order="C"), 9)
    origin = [-(NX - 1) / 2 * SPACING_MM, -(NY - 1) / 2 * SPACING_MM,
              100.0 - (NZ - 1) / 2 * SPACING_MM]
    header = (
        "ObjectType = Image\n"
        "NDims = 3\n"
        "BinaryData = True\n"
        "BinaryDataByteOrderMSB = False\n"
        "CompressedData = True\n"
        f"CompressedDataSize = {len(data)}\n"
        "TransformMatrix = 1 0 0 0 1 0 0 0 1\n"
        f"Offset = {origin[0]:g} {origin[1]:g} {origin[2]:g}\n"
        "CenterOfRotation = 0 0 0\n"
        "AnatomicalOrientation = RAI\n"
        f"ElementSpacing = {SPACING_MM:g} {SPACING_MM:g} {SPACING_MM:g}\n"
        f"DimSize = {NX} {NY} {NZ}\n"
        "ElementType = MET_SHORT\n"
        "ElementDataFile = LOCAL\n"
    )
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(data)
    tmp.replace(path)


# Fixed identifiers of the DICOM series (UUID-derived UIDs under the 2.25 root, PS3.5 B.2).
# The example's RT Structure Set is drawn on this CT: scripts/synthetic_ct_structures.json
# names the same study, series, Frame of Reference and patient.
STUDY_UID = "2.25.262018574310938472616583340191848371711"
SERIES_UID = "2.25.262018574310938472616583340191848371712"
FRAME_OF_REFERENCE_UID = "2.25.262018574310938472616583340191848371713"
CT_IMAGE_STORAGE = "1.2.840.10008.5.1.4.1.1.2"


def write_dicom_series(directory, volume):
    import pydicom
    from pydicom.dataset import FileDataset, FileMetaDataset
    from pydicom.uid import ExplicitVRLittleEndian

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    origin = [-(NX - 1) / 2 * SPACING_MM, -(NY - 1) / 2 * SPACING_MM,
              100.0 - (NZ - 1) / 2 * SPACING_MM]
    for k in range(NZ):
        sop_uid = f"{SERIES_UID}.{k + 1}"
        meta = FileMetaDataset()
        meta.MediaStorageSOPClassUID = CT_IMAGE_STORAGE
        meta.MediaStorageSOPInstanceUID = sop_uid
        meta.TransferSyntaxUID = ExplicitVRLittleEndian
        ds = FileDataset(None, {}, file_meta=meta, preamble=b"\0" * 128)
        ds.SOPClassUID = CT_IMAGE_STORAGE
        ds.SOPInstanceUID = sop_uid
        ds.PatientName = "Synthetic^Thorax"
        ds.PatientID = "MCDOSE-SYNTHETIC-CT"
        ds.PatientBirthDate = ""
        ds.PatientSex = "O"
        ds.StudyInstanceUID = STUDY_UID
        ds.StudyDate = "20260101"
        ds.StudyTime = "120000"
        ds.StudyID = "1"
        ds.AccessionNumber = ""
        ds.ReferringPhysicianName = ""
        ds.Modality = "CT"
        ds.SeriesInstanceUID = SERIES_UID
        ds.SeriesNumber = 1
        ds.Laterality = ""
        ds.PatientPosition = "HFS"
        ds.AcquisitionNumber = 1
        ds.FrameOfReferenceUID = FRAME_OF_REFERENCE_UID
        ds.PositionReferenceIndicator = ""
        ds.Manufacturer = "mcdose scripts/make_synthetic_ct.py"
        ds.InstanceNumber = k + 1
        ds.ImagePositionPatient = [f"{origin[0]:g}", f"{origin[1]:g}",
                                   f"{origin[2] + k * SPACING_MM:g}"]
        ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
        ds.PixelSpacing = [SPACING_MM, SPACING_MM]
        ds.SliceThickness = SPACING_MM
        ds.ImageType = ["ORIGINAL", "PRIMARY", "AXIAL"]
        ds.KVP = ""
        ds.SamplesPerPixel = 1
        ds.PhotometricInterpretation = "MONOCHROME2"
        ds.Rows = NY
        ds.Columns = NX
        ds.BitsAllocated = 16
        ds.BitsStored = 16
        ds.HighBit = 15
        ds.PixelRepresentation = 1
        ds.RescaleIntercept = 0
        ds.RescaleSlope = 1
        ds.RescaleType = "HU"
        ds.PixelData = volume[k].tobytes(order="C")
        ds.is_little_endian = True
        ds.is_implicit_VR = False
        path = directory / f"ct_{k + 1:03d}.dcm"
        tmp = Path(str(path) + ".tmp")
        ds.save_as(tmp, write_like_original=False)
        tmp.replace(path)


def main():
    args = sys.argv[1:]
    dicom_dir = None
    if "--dicom" in args:
        i = args.index("--dicom")
        dicom_dir = args[i + 1]
        del args[i:i + 2]
    out = Path(args[0]) if args else \
        Path(__file__).resolve().parent.parent / "examples" / "synthetic_ct.mha"
    volume = phantom_hu()
    write_mha(out, volume)
    print(f"wrote {out} ({NX}x{NY}x{NZ} voxels of {SPACING_MM:g} mm)")
    if dicom_dir:
        write_dicom_series(dicom_dir, volume)
        print(f"wrote {dicom_dir} ({NZ} DICOM CT slices)")


if __name__ == "__main__":
    main()
