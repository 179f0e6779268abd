//! \file phantoms/Phantom.json.cc
#include <sstream>
#include <utility>

#include "io/InputPath.hh"
#include "phantoms/PhantomJson.hh"

namespace mcdose
{
namespace
{
constexpr char const* material_hint = "give a material name from the catalogue, e.g. \"water\"";
constexpr char const* density_hint = "give the mass density in g/cm^3 (e.g. 1.0 for water)";
constexpr char const* length_hint = "give a length in cm";

int parse_axis(JsonNode const& node)
{
    std::string const a = node.choice({"x", "y", "z"});
    return a[0] - 'x';
}

std::string parse_material_name(JsonNode const& node)
{
    std::string name = node.string(material_hint);
    if (name.empty())
        node.fail(std::string("empty material name; ") + material_hint);
    return name;
}

MaterialFill parse_fill(JsonNode const& node)
{
    MaterialFill fill;
    fill.material = parse_material_name(node.child("material"));
    if (auto rho = node.optional_child("density_g_cm3"))
        fill.density_g_cm3 = rho->number(NumberRange::open_closed(0, 30), density_hint);
    return fill;
}

} // namespace

ShapeInput parse_shape(JsonNode const& node, bool with_fill)
{
    node.require_object("a shape");
    if (!with_fill)
    {
        for (char const* key : {"material", "density_g_cm3"})
        {
            if (node.has(key))
                node.child(key).fail("a region has no material; remove it");
        }
    }
    ShapeInput s;
    s.pointer = node.where();
    std::string const type = node.child("type").choice({"box", "slab", "sphere", "cylinder"});
    NumberRange const any = NumberRange::any();
    if (type == "box")
    {
        node.allow_only({"type", "material", "density_g_cm3", "lower_cm", "upper_cm"});
        s.kind = ShapeKind::box;
        s.lower_cm = node.child("lower_cm").real3(any, length_hint);
        s.upper_cm = node.child("upper_cm").real3(any, length_hint);
        for (int c = 0; c < 3; ++c)
        {
            if (!(s.upper_cm[c] > s.lower_cm[c]))
            {
                node.child("upper_cm")
                    .element(c)
                    .fail("upper corner must exceed lower corner (" +
                          std::to_string(s.upper_cm[c]) + " <= " + std::to_string(s.lower_cm[c]) +
                          "); swap or fix the corners");
            }
        }
    }
    else if (type == "slab")
    {
        node.allow_only({"type", "material", "density_g_cm3", "axis", "from_cm", "to_cm"});
        s.kind = ShapeKind::slab;
        s.axis = node.has("axis") ? parse_axis(node.child("axis")) : 2;
        s.from_cm = node.child("from_cm").number(any, length_hint);
        s.to_cm = node.child("to_cm").number(
            NumberRange{s.from_cm, 1e308, true, false},
            "to_cm must exceed from_cm (the slab's far face along its axis)");
    }
    else if (type == "sphere")
    {
        node.allow_only({"type", "material", "density_g_cm3", "centre_cm", "radius_cm"});
        s.kind = ShapeKind::sphere;
        s.centre_cm = node.child("centre_cm").real3(any, length_hint);
        s.radius_cm = node.child("radius_cm").number(NumberRange::positive(), length_hint);
    }
    else
    {
        node.allow_only(
            {"type", "material", "density_g_cm3", "centre_cm", "axis", "radius_cm", "length_cm"});
        s.kind = ShapeKind::cylinder;
        s.centre_cm = node.child("centre_cm").real3(any, length_hint);
        s.axis = node.has("axis") ? parse_axis(node.child("axis")) : 2;
        s.radius_cm = node.child("radius_cm").number(NumberRange::positive(), length_hint);
        if (auto len = node.optional_child("length_cm"))
            s.length_cm = len->number(NumberRange::positive(), "omit it for an infinite cylinder");
    }
    if (with_fill)
        s.fill = parse_fill(node);
    return s;
}

namespace
{

//! Rows of a table (array of objects) whose `key` must increase strictly;
//! `parse_row` returns (key value, row).
template <class Row, class ParseRow>
std::vector<Row> parse_increasing_rows(JsonNode const& table, std::size_t min_rows,
                                       char const* what, char const* key, char const* hint,
                                       ParseRow parse_row)
{
    std::size_t const n = table.array_size(min_rows, what);
    std::vector<Row> rows;
    double previous = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        JsonNode const row = table.element(i);
        row.require_object(what);
        auto const [value, parsed] = parse_row(row);
        if (i > 0 && !(value > previous))
        {
            std::ostringstream os;
            os << "'" << key << "' must increase strictly from row to row (got " << value
               << " after " << previous << "); " << hint;
            row.child(key).fail(os.str());
        }
        previous = value;
        rows.push_back(parsed);
    }
    return rows;
}

ShapePhantomInput parse_shapes(JsonNode const& node)
{
    ShapePhantomInput in;
    JsonNode const grid = node.child("grid");
    grid.require_object("the voxel grid");
    grid.allow_only({"dimensions", "spacing_cm", "origin_cm"});
    in.dims = grid.child("dimensions").int3(1, 4096, "voxels along x, y, z");
    in.spacing_cm = grid.child("spacing_cm")
                        .real3(NumberRange::open_closed(0, 1000), "voxel size along x, y, z in cm");
    if (auto origin = grid.optional_child("origin_cm"))
        in.origin_cm = origin->real3(NumberRange::any(), "centre of the first voxel in cm");
    std::size_t const voxels = std::size_t(in.dims[0]) * in.dims[1] * in.dims[2];
    if (voxels > (std::size_t(1) << 31))
    {
        grid.child("dimensions")
            .fail("grid of " + std::to_string(voxels) +
                  " voxels exceeds the limit of 2^31; use coarser voxels");
    }

    JsonNode const bg = node.child("background");
    bg.require_object("the material filling the grid");
    bg.allow_only({"material", "density_g_cm3"});
    in.background = parse_fill(bg);

    if (auto shapes = node.optional_child("shapes"))
    {
        std::size_t const n = shapes->array_size(0, "shapes, later ones override earlier ones");
        for (std::size_t i = 0; i < n; ++i)
            in.shapes.push_back(parse_shape(shapes->element(i)));
    }
    return in;
}
} // namespace

HuCalibration parse_calibration(JsonNode const& node)
{
    node.require_object("the HU calibration");
    node.allow_only({"density_curve", "material_bins", "out_of_range"});
    HuCalibration cal = schneider2000_calibration();
    NumberRange const hu_range = NumberRange::closed(-10000, 100000);
    if (auto curve = node.optional_child("density_curve"))
    {
        cal.density_curve = parse_increasing_rows<HuDensityPoint>(
            *curve, 2, "control points {\"hu\": ..., \"density_g_cm3\": ...}", "hu",
            "for a step use two points 1 HU apart",
            [&](JsonNode const& p)
            {
                p.allow_only({"hu", "density_g_cm3"});
                HuDensityPoint point;
                point.hu = p.child("hu").number(hu_range, "a CT number in HU");
                point.density_g_cm3 =
                    p.child("density_g_cm3").number(NumberRange::closed(0, 30), density_hint);
                return std::make_pair(point.hu, point);
            });
    }
    if (auto bins = node.optional_child("material_bins"))
    {
        cal.material_bins = parse_increasing_rows<HuMaterialBin>(
            *bins, 1, "bins {\"hu_lo\": ..., \"material\": ...}", "hu_lo",
            "list the bins from the lowest HU up",
            [&](JsonNode const& b)
            {
                b.allow_only({"hu_lo", "material"});
                HuMaterialBin bin;
                bin.hu_lo = b.child("hu_lo").number(hu_range, "the bin's lowest CT number in HU");
                bin.material = parse_material_name(b.child("material"));
                return std::make_pair(bin.hu_lo, bin);
            });
    }
    if (auto mode = node.optional_child("out_of_range"))
    {
        cal.out_of_range =
            mode->choice({"error", "clamp"}) == "clamp" ? HuOutOfRange::clamp : HuOutOfRange::error;
    }
    // Consistency between the two tables (e.g. first bin above the curve's start).
    try
    {
        validate_calibration(cal);
    }
    catch (InputError const&)
    {
        throw;
    }
    catch (RuntimeError const& e)
    {
        node.fail(e.what());
    }
    return cal;
}

PhantomInput parse_phantom(JsonNode const& node, std::string const& base_dir)
{
    node.require_object("the phantom");
    PhantomInput in;
    in.study_file = node.file();
    in.pointer = node.where();
    std::string const type = node.child("type").choice({"shapes", "ct_image", "material_image"});
    if (type == "shapes")
    {
        node.allow_only({"type", "grid", "background", "shapes"});
        in.kind = PhantomKind::shapes;
        in.shapes = parse_shapes(node);
    }
    else if (type == "ct_image")
    {
        node.allow_only(
            {"type", "image", "dicom_series_uid", "frame_of_reference_uid", "calibration"});
        in.kind = PhantomKind::ct_image;
        in.ct.image_path = resolve_input_path(
            node.child("image").string("path of a CT image (.mha, .nrrd, .nii) or DICOM folder"),
            base_dir);
        if (auto uid = node.optional_child("dicom_series_uid"))
            in.ct.dicom_series_uid = uid->string();
        if (auto frame = node.optional_child("frame_of_reference_uid"))
        {
            in.ct.frame_of_reference_uid = frame->string(
                "the CT's DICOM Frame of Reference UID (0020,0052), e.g. \"1.2.840.113619.2.1\"");
        }
        in.ct.calibration = node.has("calibration") ? parse_calibration(node.child("calibration"))
                                                    : schneider2000_calibration();
    }
    else
    {
        node.allow_only({"type", "material_image", "density_image", "materials"});
        in.kind = PhantomKind::material_image;
        in.material_image.material_image_path = resolve_input_path(
            node.child("material_image").string("path of an integer image of material indices"),
            base_dir);
        if (auto rho = node.optional_child("density_image"))
        {
            in.material_image.density_image_path = resolve_input_path(
                rho->string("path of an image of densities in g/cm^3"), base_dir);
        }
        JsonNode const mats = node.child("materials");
        std::size_t const n = mats.array_size(1, "material names; label value i uses entry i");
        if (n > 65536)
            mats.fail("at most 65536 materials are supported");
        for (std::size_t i = 0; i < n; ++i)
            in.material_image.materials.push_back(parse_material_name(mats.element(i)));
    }
    return in;
}
} // namespace mcdose
