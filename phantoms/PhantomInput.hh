//! \file phantoms/PhantomInput.hh
//! The phantom section of a study, as parsed from JSON (phantoms/Phantom.json.cc)
//! and consumed by the builders (phantoms/PhantomBuilder.hh). Plain data.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/Array3.hh"
#include "phantoms/HuCalibration.hh"

namespace mcdose
{
//! How the phantom is made.
enum class PhantomKind
{
    shapes,        //!< shapes over a background grid
    ct_image,      //!< CT image + HU calibration
    material_image //!< material-index image (+ optional density image)
};
char const* to_cstring(PhantomKind k);

//! A material with an optional mass density (else the catalogue's nominal one).
struct MaterialFill
{
    std::string material;                //!< catalogue name
    std::optional<double> density_g_cm3; //!< > 0
};

//! Kinds of shapes (all axis-aligned in the grid's physical frame).
enum class ShapeKind
{
    box,     //!< lower_cm .. upper_cm
    slab,    //!< from_cm .. to_cm along `axis`, unbounded across it
    sphere,  //!< centre_cm, radius_cm
    cylinder //!< centre_cm, axis, radius_cm, length_cm (unbounded if absent)
};
char const* to_cstring(ShapeKind k);

//! One shape. A voxel belongs to a shape when its *centre* lies inside the
//! shape (closed on the lower faces, open on the upper faces for box and
//! slab; inside-or-on for sphere and cylinder); later shapes override
//! earlier ones.
struct ShapeInput
{
    ShapeKind kind{ShapeKind::box};
    MaterialFill fill;
    std::string pointer;             //!< JSON pointer, for messages
    Real3 lower_cm{{0, 0, 0}};       //!< box
    Real3 upper_cm{{0, 0, 0}};       //!< box
    int axis{2};                     //!< slab, cylinder: 0 = x, 1 = y, 2 = z
    double from_cm{0};               //!< slab
    double to_cm{0};                 //!< slab
    Real3 centre_cm{{0, 0, 0}};      //!< sphere, cylinder
    double radius_cm{0};             //!< sphere, cylinder
    std::optional<double> length_cm; //!< cylinder
};

//! A background grid filled with shapes.
struct ShapePhantomInput
{
    Int3 dims{{0, 0, 0}};
    Real3 spacing_cm{{0, 0, 0}};
    //! Centre of voxel (0,0,0) [cm]; default: the grid centred on (0,0,0).
    std::optional<Real3> origin_cm;
    MaterialFill background;
    std::vector<ShapeInput> shapes;
};

//! A CT image and its HU calibration.
struct CtPhantomInput
{
    std::string image_path;       //!< resolved (relative to the study file)
    std::string dicom_series_uid; //!< to choose among several series
    //! The CT's Frame of Reference UID when the image file does not carry it
    //! (MetaImage, NRRD, NIfTI); a DICOM series' own must equal it.
    std::string frame_of_reference_uid;
    HuCalibration calibration; //!< default: schneider2000_calibration()
};

//! A material-index image (+ optional density image).
struct MaterialImagePhantomInput
{
    std::string material_image_path;
    std::string density_image_path;     //!< empty: nominal catalogue densities
    std::vector<std::string> materials; //!< label value -> catalogue name
};

//! The phantom section of a study.
struct PhantomInput
{
    std::string study_file; //!< for error messages
    std::string pointer;    //!< JSON pointer of the section ("/phantom")
    PhantomKind kind{PhantomKind::shapes};
    ShapePhantomInput shapes;
    CtPhantomInput ct;
    MaterialImagePhantomInput material_image;
};
} // namespace mcdose
