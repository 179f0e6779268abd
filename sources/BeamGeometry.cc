//! \file sources/BeamGeometry.cc
#include "sources/BeamGeometry.hh"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/VectorMath.hh"
#include "sources/PlanView.hh"
#include "sources/SourceInput.hh"

namespace mcdose
{
namespace
{
double radians(double deg)
{
    return deg * constants::pi / 180;
}

//! Right-handed rotation about z by `a` radians.
Real3 rotate_z(Real3 const& v, double a)
{
    double const c = std::cos(a), s = std::sin(a);
    return {{c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]}};
}

//! Right-handed rotation about y by `a` radians.
Real3 rotate_y(Real3 const& v, double a)
{
    double const c = std::cos(a), s = std::sin(a);
    return {{c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2]}};
}

//! A vector of the beam-limiting-device system in phantom (DICOM LPS, HFS) coordinates.
Real3 bld_to_phantom(BeamInput const& b, Real3 const& v)
{
    return fixed_to_phantom(rotate_y(rotate_z(v, radians(b.collimator_deg)), radians(b.gantry_deg)),
                            b.couch_deg, PatientPosition::hfs);
}

//! The interval of the projections of `points` on `axis`.
template <std::size_t N>
std::pair<double, double> project(Real3 const (&points)[N], Real3 const& axis)
{
    double lo = dot(points[0], axis), hi = lo;
    for (std::size_t i = 1; i < N; ++i)
    {
        double const p = dot(points[i], axis);
        lo = std::min(lo, p);
        hi = std::max(hi, p);
    }
    return {lo, hi};
}

//! Whether the pyramid from `apex` through the cell meets the box [0, extent] (local frame):
//! the separating-axis test for two convex polyhedra (face normals of both and the cross
//! products of their edge directions; no separating axis means they intersect).
bool pyramid_meets_box(Real3 const& apex, Real3 const& axis, Real3 const& u, Real3 const& v,
                       double sad_cm, double const* cell, Real3 const& extent)
{
    Real3 box[8];
    double max_depth = -1e300;
    for (int k = 0; k < 8; ++k)
    {
        box[k] = {
            {(k & 1) ? extent[0] : 0.0, (k & 2) ? extent[1] : 0.0, (k & 4) ? extent[2] : 0.0}};
        max_depth = std::max(max_depth, dot(axpy(-1.0, apex, box[k]), axis));
    }
    if (max_depth <= 0)
        return false; // the whole grid is behind the focal spot
    // Truncated beyond the farthest corner of the grid: the part cut off cannot meet it.
    double const t = (max_depth + 1) / sad_cm;
    Real3 edge[4];
    Real3 pyramid[5];
    pyramid[4] = apex;
    double const xs[4] = {cell[0], cell[1], cell[1], cell[0]};
    double const ys[4] = {cell[2], cell[2], cell[3], cell[3]};
    for (int i = 0; i < 4; ++i)
    {
        edge[i] =
            axpy(ys[i], v,
                 axpy(xs[i], u, Real3{{sad_cm * axis[0], sad_cm * axis[1], sad_cm * axis[2]}}));
        pyramid[i] = axpy(t, edge[i], apex);
    }
    std::vector<Real3> axes = {{{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}, axis};
    for (int i = 0; i < 4; ++i)
        axes.push_back(cross(edge[i], edge[(i + 1) % 4]));
    Real3 const pyramid_edges[6] = {edge[0], edge[1], edge[2], edge[3], u, v};
    for (int c = 0; c < 3; ++c)
    {
        Real3 e{{0, 0, 0}};
        e[c] = 1;
        for (auto const& pe : pyramid_edges)
            axes.push_back(cross(e, pe));
    }
    double const scale = std::max({extent[0], extent[1], extent[2], sad_cm});
    for (auto const& a : axes)
    {
        double const n = std::sqrt(dot(a, a));
        if (!(n > 1e-12))
            continue; // parallel edges: no axis
        Real3 const unit{{a[0] / n, a[1] / n, a[2] / n}};
        auto const pb = project(box, unit);
        auto const pp = project(pyramid, unit);
        double const eps = 1e-9 * scale;
        if (pp.second < pb.first - eps || pb.second < pp.first - eps)
            return false;
    }
    return true;
}
} // namespace

bool patient_position_from_dicom(std::string const& code, PatientPosition* position)
{
    char const* const codes[] = {"HFS", "HFP", "FFS", "FFP"};
    PatientPosition const values[] = {PatientPosition::hfs, PatientPosition::hfp,
                                      PatientPosition::ffs, PatientPosition::ffp};
    for (int i = 0; i < 4; ++i)
    {
        if (code == codes[i])
        {
            *position = values[i];
            return true;
        }
    }
    return false;
}

Real3 fixed_to_phantom(Real3 const& v, double couch_deg, PatientPosition position)
{
    Real3 const s = rotate_z(v, -radians(couch_deg));
    // Head first: superior = +Y_s; supine: anterior = +Z_s, so posterior (+y) = -Z_s; the
    // patient's left (+x) is +X_s when head first supine or feet first prone.
    switch (position)
    {
    case PatientPosition::hfs:
        return {{s[0], -s[2], s[1]}};
    case PatientPosition::hfp:
        return {{-s[0], s[2], s[1]}};
    case PatientPosition::ffs:
        return {{-s[0], -s[2], -s[1]}};
    case PatientPosition::ffp:
        return {{s[0], s[2], -s[1]}};
    }
    MCDOSE_ASSERT_UNREACHABLE();
}

BeamAxes beam_axes(BeamInput const& b)
{
    BeamAxes a;
    Real3 const s = bld_to_phantom(b, Real3{{0, 0, b.sad_cm}});
    for (int c = 0; c < 3; ++c)
        a.source_cm[c] = b.isocentre_cm[c] + s[c];
    a.central_axis = normalized(bld_to_phantom(b, Real3{{0, 0, -1}}));
    a.x_b = normalized(bld_to_phantom(b, Real3{{1, 0, 0}}));
    a.y_b = normalized(bld_to_phantom(b, Real3{{0, 1, 0}}));
    return a;
}

double rectangle_solid_angle(double x0, double x1, double y0, double y1, double d)
{
    return rectangle_solid_angle<double>(x0, x1, y0, y1, d);
}

BeamField beam_field(BeamInput const& b, std::string const& where)
{
    BeamField field;
    auto add = [&](double x0, double x1, double y0, double y1, double transmission)
    {
        if (b.jaws)
        {
            x0 = std::max(x0, b.jaws->x1_cm);
            x1 = std::min(x1, b.jaws->x2_cm);
            y0 = std::max(y0, b.jaws->y1_cm);
            y1 = std::min(y1, b.jaws->y2_cm);
        }
        if (!(x1 > x0 && y1 > y0 && transmission > 0))
            return;
        // Appended one by one: a range insert at end() still goes through the code that
        // moves the elements after the insertion point, which GCC 12 at -O3 cannot prove
        // empty for a fresh vector (a -Wstringop-overflow false positive).
        for (double const edge_cm : {x0, x1, y0, y1})
            field.cells_cm.push_back(edge_cm);
        field.weights.push_back(transmission * rectangle_solid_angle(x0, x1, y0, y1, b.sad_cm));
    };
    if (b.aperture)
    {
        ApertureInput const& a = *b.aperture;
        for (int j = 0; j < a.ny; ++j)
        {
            for (int i = 0; i < a.nx; ++i)
            {
                double const xc = a.x0_cm + i * a.dx_cm, yc = a.y0_cm + j * a.dy_cm;
                add(xc - a.dx_cm / 2, xc + a.dx_cm / 2, yc - a.dy_cm / 2, yc + a.dy_cm / 2,
                    a.transmission[std::size_t(i) + std::size_t(a.nx) * std::size_t(j)]);
            }
        }
    }
    else
    {
        MCDOSE_VALIDATE(b.jaws.has_value(), << where << ": a beam needs 'jaws_cm' or 'aperture'");
        add(b.jaws->x1_cm, b.jaws->x2_cm, b.jaws->y1_cm, b.jaws->y2_cm, 1);
    }
    MCDOSE_VALIDATE(!field.weights.empty(),
                    << where << (b.aperture ? "/aperture" : "/jaws_cm")
                    << ": the field is empty (no open pixel"
                    << (b.aperture && b.jaws ? " within the jaws" : "")
                    << "); open the jaws or give an aperture with transmission > 0");
    return field;
}

bool beam_reaches_grid(BeamAxes const& axes, double sad_cm, BeamField const& field,
                       GridGeometry const& grid)
{
    Real3 const apex = grid.to_local(axes.source_cm);
    Real3 const axis = grid.direction_to_local(axes.central_axis);
    Real3 const u = grid.direction_to_local(axes.x_b);
    Real3 const v = grid.direction_to_local(axes.y_b);
    Real3 const extent{{grid.dims[0] * grid.spacing_cm[0], grid.dims[1] * grid.spacing_cm[1],
                        grid.dims[2] * grid.spacing_cm[2]}};
    auto const& c = field.cells_cm;
    double bounds[4] = {c[0], c[1], c[2], c[3]};
    for (std::size_t k = 0; k < c.size(); k += 4)
    {
        bounds[0] = std::min(bounds[0], c[k]);
        bounds[1] = std::max(bounds[1], c[k + 1]);
        bounds[2] = std::min(bounds[2], c[k + 2]);
        bounds[3] = std::max(bounds[3], c[k + 3]);
    }
    if (!pyramid_meets_box(apex, axis, u, v, sad_cm, bounds, extent))
        return false;
    if (c.size() == 4)
        return true;
    for (std::size_t k = 0; k < c.size(); k += 4)
    {
        if (pyramid_meets_box(apex, axis, u, v, sad_cm, &c[k], extent))
            return true;
    }
    return false;
}

void check_beam_reaches_grid(SourceInput const& s, GridGeometry const& grid)
{
    MCDOSE_EXPECT(s.beam);
    BeamAxes const axes = beam_axes(*s.beam);
    if (beam_reaches_grid(axes, s.beam->sad_cm, beam_field(*s.beam, s.pointer), grid))
        return;
    Real3 const lo = grid.to_physical(Real3{{0, 0, 0}});
    Real3 const hi = grid.to_physical(
        Real3{{grid.dims[0] * grid.spacing_cm[0], grid.dims[1] * grid.spacing_cm[1],
               grid.dims[2] * grid.spacing_cm[2]}});
    auto const& iso = s.beam->isocentre_cm;
    std::ostringstream os;
    os << s.pointer << ": the beam's field misses the phantom: no ray from the focal spot ("
       << axes.source_cm[0] << ", " << axes.source_cm[1] << ", " << axes.source_cm[2]
       << ") cm through the field reaches the grid, which spans (" << lo[0] << ", " << lo[1] << ", "
       << lo[2] << ") to (" << hi[0] << ", " << hi[1] << ", " << hi[2]
       << ") cm; check 'isocentre_cm' (" << iso[0] << ", " << iso[1] << ", " << iso[2]
       << ", in the phantom's coordinates), the gantry, collimator and couch angles, and the "
       << (s.beam->aperture ? "aperture" : "jaws");
    MCDOSE_VALIDATE(false, << os.str());
}
} // namespace mcdose
