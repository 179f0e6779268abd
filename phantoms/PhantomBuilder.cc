//! \file phantoms/PhantomBuilder.cc
#include "phantoms/PhantomBuilder.hh"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/Assert.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "io/ImageIO.hh"
#include "io/InputError.hh"

namespace mcdose
{
namespace
{
//! Index of `name` in `names`, appending it if new.
MaterialIndex material_index(std::vector<std::string>* names, std::string const& name)
{
    auto it = std::find(names->begin(), names->end(), name);
    if (it != names->end())
        return static_cast<MaterialIndex>(it - names->begin());
    names->push_back(name);
    return static_cast<MaterialIndex>(names->size() - 1);
}

//! Density of a fill: explicit, else the catalogue's nominal density.
float fill_density(MaterialFill const& fill, NominalDensityFn const& nominal,
                   std::string const& file, std::string const& pointer)
{
    if (fill.density_g_cm3)
        return static_cast<float>(*fill.density_g_cm3);
    if (!nominal)
    {
        throw InputError(file, pointer,
                         "no density_g_cm3 given for material '" + fill.material +
                             "' and no material catalogue is available to supply its nominal "
                             "density; add density_g_cm3");
    }
    double rho = 0;
    try
    {
        rho = nominal(fill.material);
    }
    catch (RuntimeError const& e)
    {
        throw InputError(file, pointer + "/material", e.what());
    }
    return static_cast<float>(rho);
}

//! Index range [lo, hi) of voxels whose centres may lie in [a, b] on axis c.
void index_range(GridGeometry const& g, int c, double a, double b, int* lo, int* hi)
{
    double const s = g.spacing_cm[c];
    double const o = g.origin_cm[c];
    double const first = std::ceil((a - o) / s) - 1; // widen by one: exact tests below
    double const last = std::floor((b - o) / s) + 1;
    *lo = static_cast<int>(std::max(0.0, std::min(first, double(g.dims[c]))));
    *hi = static_cast<int>(std::max(0.0, std::min(last + 1, double(g.dims[c]))));
}

//! Physical bounding box of a shape (unbounded directions span everything).
void shape_bounds(ShapeInput const& s, Real3* lo, Real3* hi)
{
    constexpr double inf = 1e300;
    for (int c = 0; c < 3; ++c)
    {
        (*lo)[c] = -inf;
        (*hi)[c] = inf;
    }
    switch (s.kind)
    {
    case ShapeKind::box:
        *lo = s.lower_cm;
        *hi = s.upper_cm;
        break;
    case ShapeKind::slab:
        (*lo)[s.axis] = s.from_cm;
        (*hi)[s.axis] = s.to_cm;
        break;
    case ShapeKind::sphere:
        for (int c = 0; c < 3; ++c)
        {
            (*lo)[c] = s.centre_cm[c] - s.radius_cm;
            (*hi)[c] = s.centre_cm[c] + s.radius_cm;
        }
        break;
    case ShapeKind::cylinder:
        for (int c = 0; c < 3; ++c)
        {
            if (c == s.axis)
            {
                if (s.length_cm)
                {
                    (*lo)[c] = s.centre_cm[c] - 0.5 * *s.length_cm;
                    (*hi)[c] = s.centre_cm[c] + 0.5 * *s.length_cm;
                }
                continue;
            }
            (*lo)[c] = s.centre_cm[c] - s.radius_cm;
            (*hi)[c] = s.centre_cm[c] + s.radius_cm;
        }
        break;
    }
}

//! Whether a point (a voxel centre) lies in the shape; see ShapeInput.
//! `tol` [cm] absorbs round-off in the computed centres, so that a centre
//! exactly on a face is decided as stated (closed lower faces and curved
//! surfaces, open upper faces) rather than by the last bit of arithmetic.
bool contains(ShapeInput const& s, Real3 const& p, double tol)
{
    auto in_interval = [tol](double x, double lo, double hi)
    { return x >= lo - tol && x < hi - tol; };
    switch (s.kind)
    {
    case ShapeKind::box:
        for (int c = 0; c < 3; ++c)
        {
            if (!in_interval(p[c], s.lower_cm[c], s.upper_cm[c]))
                return false;
        }
        return true;
    case ShapeKind::slab:
        return in_interval(p[s.axis], s.from_cm, s.to_cm);
    case ShapeKind::sphere:
    {
        double r2 = 0;
        for (int c = 0; c < 3; ++c)
            r2 += (p[c] - s.centre_cm[c]) * (p[c] - s.centre_cm[c]);
        return r2 <= (s.radius_cm + tol) * (s.radius_cm + tol);
    }
    case ShapeKind::cylinder:
    {
        double r2 = 0;
        for (int c = 0; c < 3; ++c)
        {
            if (c != s.axis)
                r2 += (p[c] - s.centre_cm[c]) * (p[c] - s.centre_cm[c]);
        }
        if (r2 > (s.radius_cm + tol) * (s.radius_cm + tol))
            return false;
        return !s.length_cm ||
               std::fabs(p[s.axis] - s.centre_cm[s.axis]) <= 0.5 * *s.length_cm + tol;
    }
    }
    return false;
}

/*!
 * A phantom's two grids of n voxels, made at once, filled with `mat` and `rho`: each filled
 * by a thread of its own once its pages are mapped on all cores; with `huge_pages`, in 2 MiB
 * pages where the kernel has them (every page is written, so no memory is lost, and each
 * 2 MiB costs one fault instead of 512: docs/history/benchmarks-2026.md measured it).
 */
void make_phantom_grids(size_type n, MaterialIndex mat, float rho, bool huge_pages,
                        std::vector<MaterialIndex>& material, std::vector<float>& density)
{
    parallel_for_each(2,
                      [&](size_type k)
                      {
                          if (k == 0)
                              resize_on_all_cores(material, n, mat, 0, huge_pages);
                          else
                              resize_on_all_cores(density, n, rho, 0, huge_pages);
                      });
}
} // namespace

std::vector<size_type> voxels_in_shape(ShapeInput const& shape, GridGeometry const& g)
{
    // Round-off allowance for face tests: far below any meaningful length.
    double const tol = 1e-9 * std::min({g.spacing_cm[0], g.spacing_cm[1], g.spacing_cm[2]});
    Real3 lo, hi;
    shape_bounds(shape, &lo, &hi);
    Int3 first, last;
    for (int c = 0; c < 3; ++c)
        index_range(g, c, lo[c], hi[c], &first[c], &last[c]);
    std::vector<size_type> inside;
    for (int k = first[2]; k < last[2]; ++k)
    {
        for (int j = first[1]; j < last[1]; ++j)
        {
            for (int i = first[0]; i < last[0]; ++i)
            {
                Int3 const ijk{{i, j, k}};
                if (contains(shape, g.voxel_centre_cm(ijk), tol))
                    inside.push_back(g.linear_index(ijk));
            }
        }
    }
    return inside;
}

namespace
{
Phantom build_shapes(PhantomInput const& in, NominalDensityFn const& nominal,
                     std::vector<std::string>* warnings)
{
    ShapePhantomInput const& sp = in.shapes;
    GridGeometry g;
    g.dims = sp.dims;
    g.spacing_cm = sp.spacing_cm;
    if (sp.origin_cm)
    {
        g.origin_cm = *sp.origin_cm;
    }
    else
    {
        for (int c = 0; c < 3; ++c)
            g.origin_cm[c] = -0.5 * (g.dims[c] - 1) * g.spacing_cm[c];
    }
    validate_geometry(g, (in.study_file + ": " + in.pointer + "/grid").c_str());

    std::vector<std::string> names;
    MaterialIndex const bg_mat = material_index(&names, sp.background.material);
    float const bg_rho =
        fill_density(sp.background, nominal, in.study_file, in.pointer + "/background");
    std::vector<MaterialIndex> material;
    std::vector<float> density;
    make_phantom_grids(g.num_voxels(), bg_mat, bg_rho, true, material, density);

    for (std::size_t si = 0; si < sp.shapes.size(); ++si)
    {
        ShapeInput const& shape = sp.shapes[si];
        MaterialIndex const mat = material_index(&names, shape.fill.material);
        float const rho = fill_density(shape.fill, nominal, in.study_file, shape.pointer);
        auto const inside = voxels_in_shape(shape, g);
        for (size_type v : inside)
        {
            material[v] = mat;
            density[v] = rho;
        }
        size_type const covered = inside.size();
        if (covered == 0 && warnings)
        {
            warnings->push_back(in.study_file + ": " + shape.pointer + ": the " +
                                to_cstring(shape.kind) +
                                " contains no voxel centre (outside the grid or thinner than "
                                "a voxel) and has no effect");
        }
    }
    VoxelGridParams grid(g, std::move(material), std::move(density), names.size());
    return Phantom{std::move(names), std::move(grid)};
}

Phantom build_material_image(PhantomInput const& in, NominalDensityFn const& nominal)
{
    auto const& mi = in.material_image;
    std::string const& file = in.study_file;
    ScalarImage labels;
    try
    {
        labels = read_scalar_image(mi.material_image_path);
    }
    catch (RuntimeError const& e)
    {
        throw InputError(file, in.pointer + "/material_image", e.what());
    }
    if (!labels.integer_pixels)
    {
        throw InputError(file, in.pointer + "/material_image",
                         "'" + mi.material_image_path + "' has " + labels.pixel_type +
                             " pixels; a material-index image needs an integer pixel type");
    }
    size_type const n = labels.geometry.num_voxels();
    std::vector<MaterialIndex> material(n);
    for (size_type v = 0; v < n; ++v)
    {
        double const label = labels.values[v];
        if (!(label >= 0 && label < double(mi.materials.size())))
        {
            Int3 const ijk = labels.geometry.ijk(v);
            std::ostringstream os;
            os << "voxel (" << ijk[0] << ", " << ijk[1] << ", " << ijk[2] << ") of '"
               << mi.material_image_path << "' has label " << label << " but " << in.pointer
               << "/materials lists " << mi.materials.size() << " materials (labels 0.."
               << mi.materials.size() - 1 << "); add the missing materials";
            throw InputError(file, in.pointer + "/material_image", os.str());
        }
        material[v] = static_cast<MaterialIndex>(label);
    }

    std::vector<float> density(n);
    if (mi.density_image_path.empty())
    {
        std::vector<float> nominal_rho(mi.materials.size());
        for (std::size_t m = 0; m < mi.materials.size(); ++m)
        {
            nominal_rho[m] = fill_density(MaterialFill{mi.materials[m], std::nullopt}, nominal,
                                          file, in.pointer + "/materials/" + std::to_string(m));
        }
        for (size_type v = 0; v < n; ++v)
            density[v] = nominal_rho[material[v]];
    }
    else
    {
        ScalarImage rho;
        try
        {
            rho = read_scalar_image(mi.density_image_path);
        }
        catch (RuntimeError const& e)
        {
            throw InputError(file, in.pointer + "/density_image", e.what());
        }
        GridGeometry const& a = labels.geometry;
        GridGeometry const& b = rho.geometry;
        bool same = a.dims == b.dims;
        for (int c = 0; c < 3 && same; ++c)
        {
            double const tol = 1e-4 * a.spacing_cm[c];
            same = std::fabs(a.spacing_cm[c] - b.spacing_cm[c]) <= tol &&
                   std::fabs(a.origin_cm[c] - b.origin_cm[c]) <= tol;
        }
        for (int e = 0; e < 9 && same; ++e)
            same = std::fabs(a.direction[e] - b.direction[e]) <= 1e-5;
        if (!same)
        {
            throw InputError(file, in.pointer + "/density_image",
                             "'" + mi.density_image_path +
                                 "' does not have the grid of the material image (dimensions, "
                                 "spacing, origin and direction must match); resample one onto "
                                 "the other");
        }
        for (size_type v = 0; v < n; ++v)
        {
            if (!(std::isfinite(rho.values[v]) && rho.values[v] > 0))
            {
                Int3 const ijk = b.ijk(v);
                std::ostringstream os;
                os << "voxel (" << ijk[0] << ", " << ijk[1] << ", " << ijk[2] << ") has density "
                   << rho.values[v]
                   << " g/cm^3; densities must be positive (use air, about "
                      "0.0012, for empty space)";
                throw InputError(file, in.pointer + "/density_image", os.str());
            }
            density[v] = static_cast<float>(rho.values[v]);
        }
    }
    VoxelGridParams grid(labels.geometry, std::move(material), std::move(density),
                         mi.materials.size());
    return Phantom{mi.materials, std::move(grid)};
}
} // namespace

char const* to_cstring(PhantomKind k)
{
    switch (k)
    {
    case PhantomKind::shapes:
        return "shapes";
    case PhantomKind::ct_image:
        return "ct_image";
    case PhantomKind::material_image:
        return "material_image";
    }
    return "?";
}

char const* to_cstring(ShapeKind k)
{
    switch (k)
    {
    case ShapeKind::box:
        return "box";
    case ShapeKind::slab:
        return "slab";
    case ShapeKind::sphere:
        return "sphere";
    case ShapeKind::cylinder:
        return "cylinder";
    }
    return "?";
}

Phantom build_ct_phantom(GridGeometry const& geometry, std::vector<double> const& hu,
                         HuCalibration const& calibration)
{
    HuConverter const convert(calibration);
    size_type const n = geometry.num_voxels();
    MCDOSE_VALIDATE(hu.size() == n, << hu.size() << " CT numbers for " << n << " voxels");
    std::vector<MaterialIndex> material;
    std::vector<float> density;
    // 4 KiB pages, as the CT figures of docs/performance.md were measured.
    make_phantom_grids(n, 0, 0.0f, false, material, density);
    // Voxel by voxel on all cores; the CT numbers outside the calibration counted, and the
    // first of them found, per piece.
    std::vector<size_type> outside_in(parallel_pieces(n, 0), 0), first_in(outside_in.size(), n);
    parallel_for_pieces(n, 0,
                        [&](size_type begin, size_type end, size_type t)
                        {
                            for (size_type v = begin; v < end; ++v)
                            {
                                HuConverter::Result r;
                                if (!convert.convert(hu[v], &r))
                                {
                                    if (outside_in[t]++ == 0)
                                        first_in[t] = v;
                                    continue;
                                }
                                material[v] = r.material;
                                density[v] = r.density_g_cm3;
                            }
                        });
    size_type outside = 0;
    size_type first_outside = n;
    for (std::size_t t = 0; t < outside_in.size(); ++t)
    {
        outside += outside_in[t];
        first_outside = std::min(first_outside, first_in[t]);
    }
    if (outside > 0)
    {
        Int3 const ijk = geometry.ijk(first_outside);
        MCDOSE_VALIDATE(false, << outside << " voxels have CT numbers outside the calibration ["
                               << calibration.hu_min() << ", " << calibration.hu_max()
                               << "] HU, the first " << hu[first_outside] << " at voxel (" << ijk[0]
                               << ", " << ijk[1] << ", " << ijk[2]
                               << "); extend calibration.density_curve or set "
                                  "calibration.out_of_range to \"clamp\"");
    }
    VoxelGridParams grid(geometry, std::move(material), std::move(density),
                         convert.material_names().size());
    return Phantom{convert.material_names(), std::move(grid)};
}

Phantom build_shape_phantom(ShapePhantomInput const& input, NominalDensityFn const& nominal_density,
                            std::vector<std::string>* warnings)
{
    PhantomInput in;
    in.study_file = "<shapes>";
    in.pointer = "/phantom";
    in.kind = PhantomKind::shapes;
    in.shapes = input;
    return build_shapes(in, nominal_density, warnings);
}

Phantom build_phantom(PhantomInput const& input, NominalDensityFn const& nominal_density,
                      std::vector<std::string>* warnings, DicomReference* ct_dicom)
{
    switch (input.kind)
    {
    case PhantomKind::shapes:
        return build_shapes(input, nominal_density, warnings);
    case PhantomKind::material_image:
        return build_material_image(input, nominal_density);
    case PhantomKind::ct_image:
    {
        ScalarImage ct;
        try
        {
            ct = read_scalar_image(input.ct.image_path, input.ct.dicom_series_uid);
        }
        catch (DicomSeriesChoiceError const& e)
        {
            throw InputError(input.study_file, input.pointer + "/dicom_series_uid", e.what());
        }
        catch (RuntimeError const& e)
        {
            throw InputError(input.study_file, input.pointer + "/image", e.what());
        }
        if (warnings)
        {
            for (auto const& note : ct.notes)
                warnings->push_back(input.study_file + ": " + input.pointer + "/image: " + note);
        }
        if (!ct.dicom.frame_of_reference_uid.empty() && !input.ct.frame_of_reference_uid.empty() &&
            ct.dicom.frame_of_reference_uid != input.ct.frame_of_reference_uid)
        {
            throw InputError(input.study_file, input.pointer + "/frame_of_reference_uid",
                             "the DICOM series' Frame of Reference UID is " +
                                 ct.dicom.frame_of_reference_uid + ", not " +
                                 input.ct.frame_of_reference_uid +
                                 "; remove the field (a DICOM series carries its own)");
        }
        auto const not_finite = std::count_if(ct.values.begin(), ct.values.end(),
                                              [](double x) { return !std::isfinite(x); });
        if (not_finite > 0)
        {
            throw InputError(input.study_file, input.pointer + "/image",
                             "image '" + input.ct.image_path + "' has " +
                                 std::to_string(not_finite) +
                                 " voxels that are not finite numbers (NaN or infinity); a CT "
                                 "holds CT numbers in HU: repair or replace the image");
        }
        if (ct_dicom)
            *ct_dicom = ct.dicom;
        try
        {
            Phantom phantom = build_ct_phantom(ct.geometry, ct.values, input.ct.calibration);
            phantom.frame_of_reference_uid = ct.dicom.frame_of_reference_uid.empty()
                                                 ? input.ct.frame_of_reference_uid
                                                 : ct.dicom.frame_of_reference_uid;
            return phantom;
        }
        catch (RuntimeError const& e)
        {
            throw InputError(input.study_file, input.pointer + "/calibration", e.what());
        }
    }
    }
    MCDOSE_ASSERT_UNREACHABLE();
}
} // namespace mcdose
