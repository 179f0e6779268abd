//! \file phantoms/StructureMask.cc
#include "phantoms/StructureMask.hh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <utility>

#include "core/Assert.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "core/StopRequest.hh"
#include "io/ImageIO.hh"
#include "io/RtStructFile.hh"

namespace mcdose
{
namespace
{
//! A 4-connected region of one plane: its voxels and its first voxel (index in the plane).
struct PlaneRegion
{
    size_type size{0};
    size_type first{0};
};

/*!
 * Label the 4-connected regions of plane `in` (nx by ny) 1, 2, ... in the order of their
 * first voxel (0: not in) into `label`; returns the regions.
 */
std::vector<PlaneRegion> label_plane(std::uint8_t const* in, int nx, int ny, std::uint32_t* label)
{
    std::vector<PlaneRegion> regions;
    std::vector<std::uint32_t> queue;
    size_type const n = size_type(nx) * size_type(ny);
    for (size_type seed = 0; seed < n; ++seed)
    {
        if (!in[seed] || label[seed])
            continue;
        auto const id = std::uint32_t(regions.size() + 1);
        queue.assign(1, std::uint32_t(seed));
        label[seed] = id;
        auto push = [&](size_type p)
        {
            if (in[p] && !label[p])
            {
                label[p] = id;
                queue.push_back(std::uint32_t(p));
            }
        };
        for (size_type q = 0; q < queue.size(); ++q)
        {
            size_type const p = queue[q];
            int const i = int(p % size_type(nx)), j = int(p / size_type(nx));
            if (i > 0)
                push(p - 1);
            if (i + 1 < nx)
                push(p + 1);
            if (j > 0)
                push(p - size_type(nx));
            if (j + 1 < ny)
                push(p + size_type(nx));
        }
        regions.push_back({queue.size(), seed});
    }
    return regions;
}

//! Union-find over region ids (path halving; the smaller id the root of a union).
class RegionUnion
{
  public:
    explicit RegionUnion(std::size_t n) : parent_(n)
    {
        for (std::size_t i = 0; i < n; ++i)
            parent_[i] = std::uint32_t(i);
    }
    std::uint32_t find(std::uint32_t i)
    {
        while (parent_[i] != i)
        {
            parent_[i] = parent_[parent_[i]];
            i = parent_[i];
        }
        return i;
    }
    void unite(std::uint32_t a, std::uint32_t b)
    {
        a = this->find(a);
        b = this->find(b);
        if (a != b)
            parent_[std::max(a, b)] = std::min(a, b);
    }

  private:
    std::vector<std::uint32_t> parent_;
};

/*!
 * The largest 6-connected region of `in` (ties: the one whose first voxel comes first), 1 per
 * voxel in it, on all cores: each plane's 4-connected regions are labelled on their own, then
 * joined across neighbouring planes (a union of the pairs of regions that share a voxel column).
 */
std::vector<std::uint8_t> largest_region(GridGeometry const& g, std::vector<std::uint8_t> const& in)
{
    int const nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
    size_type const plane = size_type(nx) * size_type(ny);
    std::vector<std::uint32_t> label;
    resize_on_all_cores(label, in.size()); // 4 bytes a voxel: 0.3 GB for a patient CT
    std::vector<std::vector<PlaneRegion>> regions(static_cast<size_type>(nz));
    parallel_for_each(size_type(nz), [&](size_type k)
                      { regions[k] = label_plane(&in[k * plane], nx, ny, &label[k * plane]); });
    // Region ids over the grid: plane k's region r is offset[k] + r - 1.
    std::vector<std::uint32_t> offset(size_type(nz) + 1, 0);
    for (size_type k = 0; k < size_type(nz); ++k)
        offset[k + 1] = offset[k] + std::uint32_t(regions[k].size());
    // The distinct pairs of labels that meet between plane k and plane k + 1.
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> links(
        nz > 1 ? size_type(nz - 1) : 0);
    parallel_for_each(
        links.size(),
        [&](size_type k)
        {
            auto& pairs = links[k];
            std::uint32_t const* a = &label[k * plane];
            std::uint32_t const* b = &label[(k + 1) * plane];
            for (size_type p = 0; p < plane; ++p)
            {
                if (a[p] && b[p] && (pairs.empty() || pairs.back() != std::pair{a[p], b[p]}))
                    pairs.emplace_back(a[p], b[p]);
            }
            std::sort(pairs.begin(), pairs.end());
            pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
        });
    RegionUnion joined(offset.back());
    for (size_type k = 0; k < links.size(); ++k)
    {
        for (auto const& [a, b] : links[k])
            joined.unite(offset[k] + a - 1, offset[k + 1] + b - 1);
    }
    // Each joined region's voxels and first voxel; the largest.
    std::vector<size_type> size(offset.back(), 0), first(offset.back(), in.size());
    for (size_type k = 0; k < size_type(nz); ++k)
    {
        for (size_type r = 0; r < regions[k].size(); ++r)
        {
            std::uint32_t const root = joined.find(offset[k] + std::uint32_t(r));
            size[root] += regions[k][r].size;
            first[root] = std::min(first[root], k * plane + regions[k][r].first);
        }
    }
    std::vector<std::uint8_t> body;
    resize_on_all_cores(body, in.size());
    if (offset.back() == 0)
        return body;
    std::uint32_t largest = 0;
    for (std::uint32_t i = 1; i < offset.back(); ++i)
    {
        if (size[i] > size[largest] || (size[i] == size[largest] && first[i] < first[largest]))
            largest = i;
    }
    std::vector<std::uint8_t> in_largest(offset.back());
    for (std::uint32_t i = 0; i < offset.back(); ++i)
        in_largest[i] = joined.find(i) == largest;
    parallel_for_each(size_type(nz),
                      [&](size_type k)
                      {
                          for (size_type p = k * plane; p < (k + 1) * plane; ++p)
                              body[p] = label[p] && in_largest[offset[k] + label[p] - 1];
                      });
    return body;
}

//! Fill, in each plane of constant k, the 4-connected regions of voxels not in
//! `body` that do not reach the plane's edge (planes on all cores).
void fill_holes_per_slice(GridGeometry const& g, std::vector<std::uint8_t>& body)
{
    int const nx = g.dims[0], ny = g.dims[1];
    parallel_for_each(size_type(g.dims[2]),
                      [&](size_type k)
                      {
                          std::vector<std::uint8_t> outside(size_type(nx) * ny, 0);
                          std::vector<size_type> queue;
                          size_type const base = k * size_type(nx) * ny;
                          // Flood the background from the slice's edge.
                          auto push = [&](int i, int j)
                          {
                              size_type const p = size_type(i) + size_type(nx) * j;
                              if (!body[base + p] && !outside[p])
                              {
                                  outside[p] = 1;
                                  queue.push_back(p);
                              }
                          };
                          for (int i = 0; i < nx; ++i)
                          {
                              push(i, 0);
                              push(i, ny - 1);
                          }
                          for (int j = 0; j < ny; ++j)
                          {
                              push(0, j);
                              push(nx - 1, j);
                          }
                          for (size_type q = 0; q < queue.size(); ++q)
                          {
                              int const i = int(queue[q] % nx), j = int(queue[q] / nx);
                              if (i > 0)
                                  push(i - 1, j);
                              if (i + 1 < nx)
                                  push(i + 1, j);
                              if (j > 0)
                                  push(i, j - 1);
                              if (j + 1 < ny)
                                  push(i, j + 1);
                          }
                          for (size_type p = 0; p < outside.size(); ++p)
                          {
                              if (!outside[p])
                                  body[base + p] = 1;
                          }
                      });
}

//! A structure from per-voxel sample counts (out of n_samples).
StructureMask from_counts(std::string name, std::string origin,
                          std::vector<std::pair<size_type, int>> const& counts, int n_samples)
{
    StructureMask m;
    m.name = std::move(name);
    m.origin = std::move(origin);
    for (auto const& [v, c] : counts)
    {
        if (c > 0)
        {
            m.voxels.push_back(v);
            m.fraction.push_back(float(c) / float(n_samples));
        }
    }
    return m;
}

//! Local-frame position [cm] of sub-voxel sample (a, b, c) of voxel ijk.
Real3 sample_local(GridGeometry const& g, Int3 const& ijk, int a, int b, int c, int n)
{
    int const s[3] = {a, b, c};
    Real3 local;
    for (int axis = 0; axis < 3; ++axis)
        local[axis] = (ijk[axis] + (s[axis] + 0.5) / n) * g.spacing_cm[axis];
    return local;
}

//! The closed polygons of one contour plane, in cm.
struct ContourPlane
{
    double z_cm{0};
    std::vector<std::vector<std::array<double, 2>>> polygons;
    std::vector<std::array<double, 4>> boxes; //!< xmin, xmax, ymin, ymax of each polygon
};

/*!
 * Crossing-number point-in-polygon test: a ray from (x, y) along +x crosses
 * the boundary an odd number of times when the point is inside (Haines,
 * "Point in Polygon Strategies", Graphics Gems IV, 1994). Half-open in y, so
 * a vertex on the ray is counted once.
 */
bool inside_polygon(std::vector<std::array<double, 2>> const& poly, double x, double y)
{
    bool inside = false;
    std::size_t const n = poly.size();
    for (std::size_t i = 0, j = n - 1; i < n; j = i++)
    {
        auto const& a = poly[i];
        auto const& b = poly[j];
        if ((a[1] > y) != (b[1] > y))
        {
            double const x_cross = a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
            if (x < x_cross)
                inside = !inside;
        }
    }
    return inside;
}

//! Even-odd over all polygons of the plane (a contour inside another is a hole).
bool inside_plane(ContourPlane const& plane, double x, double y)
{
    bool inside = false;
    for (std::size_t p = 0; p < plane.polygons.size(); ++p)
    {
        auto const& box = plane.boxes[p];
        if (x < box[0] || x > box[1] || y < box[2] || y > box[3])
            continue;
        if (inside_polygon(plane.polygons[p], x, y))
            inside = !inside;
    }
    return inside;
}

//! Group a structure's contours by plane (sorted by z), checking that each is
//! planar, axial and inside the grid.
std::vector<ContourPlane> contour_planes(RtRoi const& roi, GridGeometry const& g)
{
    std::string const what = "structure '" + roi.name + "'";
    constexpr double plane_tolerance_cm = 1e-4; // 1 um: DS values carry rounding
    std::vector<ContourPlane> planes;
    for (auto const& contour : roi.contours)
    {
        if (contour.points_mm.size() < 3)
            continue; // a point or a line encloses no volume
        double const z = contour.points_mm.front()[2] / 10;
        std::vector<std::array<double, 2>> poly;
        std::array<double, 4> box{{1e300, -1e300, 1e300, -1e300}};
        for (auto const& p_mm : contour.points_mm)
        {
            Real3 const p{{p_mm[0] / 10, p_mm[1] / 10, p_mm[2] / 10}};
            MCDOSE_VALIDATE(std::fabs(p[2] - z) <= plane_tolerance_cm,
                            << what << " has a contour that is not in a plane of constant z (z "
                            << 10 * z << " and " << p_mm[2]
                            << " mm); mcdose rasterises axial contours only: export the "
                               "structure set on the axial CT");
            Real3 const local = g.to_local(p);
            for (int a = 0; a < 3; ++a)
            {
                double const extent = g.dims[a] * g.spacing_cm[a];
                MCDOSE_VALIDATE(
                    local[a] >= -plane_tolerance_cm && local[a] <= extent + plane_tolerance_cm,
                    << what << " has a contour point (" << p_mm[0] << ", " << p_mm[1] << ", "
                    << p_mm[2]
                    << ") mm outside the dose grid; the structure set belongs to "
                       "another CT, or the CT is cropped: use the CT the structures "
                       "were drawn on, or remove the structure from the study");
            }
            poly.push_back({p[0], p[1]});
            box = {std::min(box[0], p[0]), std::max(box[1], p[0]), std::min(box[2], p[1]),
                   std::max(box[3], p[1])};
        }
        auto it = std::find_if(planes.begin(), planes.end(),
                               [&](ContourPlane const& pl)
                               { return std::fabs(pl.z_cm - z) <= plane_tolerance_cm; });
        if (it == planes.end())
        {
            planes.push_back({z, {}, {}});
            it = planes.end() - 1;
        }
        it->polygons.push_back(std::move(poly));
        it->boxes.push_back(box);
    }
    std::sort(planes.begin(), planes.end(),
              [](ContourPlane const& a, ContourPlane const& b) { return a.z_cm < b.z_cm; });
    return planes;
}

//! The plane nearest to z if it is within half_thickness, else nullptr.
ContourPlane const* nearest_plane(std::vector<ContourPlane> const& planes, double z,
                                  double half_thickness)
{
    auto it = std::lower_bound(planes.begin(), planes.end(), z,
                               [](ContourPlane const& p, double zz) { return p.z_cm < zz; });
    ContourPlane const* best = nullptr;
    double best_d = half_thickness;
    for (auto c : {it, it == planes.begin() ? it : it - 1})
    {
        if (c != planes.end() && std::fabs(c->z_cm - z) <= best_d)
        {
            best_d = std::fabs(c->z_cm - z);
            best = &*c;
        }
    }
    return best;
}

//! Index range [lo, hi) along each axis of the voxels that can meet the
//! physical box [lo_cm, hi_cm].
void voxel_range(GridGeometry const& g, Real3 const& lo_cm, Real3 const& hi_cm, Int3& lo, Int3& hi)
{
    Real3 lmin{{1e300, 1e300, 1e300}}, lmax{{-1e300, -1e300, -1e300}};
    for (int corner = 0; corner < 8; ++corner)
    {
        Real3 const p{{corner & 1 ? hi_cm[0] : lo_cm[0], corner & 2 ? hi_cm[1] : lo_cm[1],
                       corner & 4 ? hi_cm[2] : lo_cm[2]}};
        Real3 const l = g.to_local(p);
        for (int a = 0; a < 3; ++a)
        {
            lmin[a] = std::min(lmin[a], l[a]);
            lmax[a] = std::max(lmax[a], l[a]);
        }
    }
    for (int a = 0; a < 3; ++a)
    {
        lo[a] = std::max(0, int(std::floor(lmin[a] / g.spacing_cm[a])) - 1);
        hi[a] = std::min(g.dims[a], int(std::floor(lmax[a] / g.spacing_cm[a])) + 2);
    }
}
} // namespace

double StructureMask::volume_cm3(double voxel_volume_cm3) const
{
    if (whole_grid_voxels > 0)
        return double(whole_grid_voxels) * voxel_volume_cm3;
    double sum = 0;
    for (float f : fraction)
        sum += f;
    return sum * voxel_volume_cm3;
}

bool StructureMask::contains(size_type v) const
{
    if (whole_grid_voxels > 0)
        return v < whole_grid_voxels;
    return std::binary_search(voxels.begin(), voxels.end(), v);
}

StructureMask body_outline(GridGeometry const& geometry, Span<float const> density_g_cm3,
                           double threshold_g_cm3)
{
    MCDOSE_EXPECT(density_g_cm3.size() == geometry.num_voxels());
    std::vector<std::uint8_t> above(density_g_cm3.size());
    parallel_for_pieces(above.size(), 0,
                        [&](size_type b, size_type e, size_type)
                        {
                            for (size_type v = b; v < e; ++v)
                                above[v] = density_g_cm3[v] > threshold_g_cm3;
                        });
    StructureMask m;
    m.name = "body";
    std::ostringstream origin;
    origin << "largest connected region with density > " << threshold_g_cm3
           << " g/cm3, holes filled per slice";
    m.origin = origin.str();
    std::vector<std::uint8_t> body = largest_region(geometry, above);
    fill_holes_per_slice(geometry, body);
    // The voxels in order: each plane's count, then each plane's voxels in its place.
    size_type const plane = size_type(geometry.dims[0]) * size_type(geometry.dims[1]);
    size_type const planes = size_type(geometry.dims[2]);
    std::vector<size_type> before(planes + 1, 0);
    parallel_for_each(
        planes, [&](size_type k)
        { before[k + 1] = size_type(std::count(&body[k * plane], &body[k * plane] + plane, 1)); });
    for (size_type k = 0; k < planes; ++k)
        before[k + 1] += before[k];
    resize_on_all_cores(m.voxels, before.back());
    resize_on_all_cores(m.fraction, before.back(), 1.0f);
    parallel_for_each(planes,
                      [&](size_type k)
                      {
                          size_type at = before[k];
                          for (size_type v = k * plane; v < (k + 1) * plane; ++v)
                          {
                              if (body[v])
                                  m.voxels[at++] = v;
                          }
                      });
    return m;
}

StructureMask whole_grid(GridGeometry const& geometry)
{
    StructureMask m;
    m.name = "body";
    m.origin = "the whole phantom";
    m.whole_grid_voxels = geometry.num_voxels();
    return m;
}

StructureMask without_low_density(StructureMask const& s, Span<float const> density_g_cm3,
                                  double threshold_g_cm3)
{
    StructureMask kept;
    kept.name = s.name;
    kept.origin = s.origin;
    for (size_type i = 0; i < s.size(); ++i)
    {
        size_type const v = s.voxel(i);
        if (double(density_g_cm3[v]) >= threshold_g_cm3)
        {
            kept.voxels.push_back(v);
            kept.fraction.push_back(s.fraction_at(i));
        }
    }
    return kept;
}

StructureMask rasterise_contours(RtRoi const& roi, GridGeometry const& g, int n)
{
    MCDOSE_EXPECT(n >= 1);
    std::vector<ContourPlane> const planes = contour_planes(roi, g);
    std::string const what = "structure '" + roi.name + "'";
    MCDOSE_VALIDATE(!planes.empty(), << what
                                     << " has no closed planar contour (it is empty, or holds "
                                        "points or open lines only); draw it or remove it from "
                                        "the study");
    double thickness = std::fabs(g.spacing_cm[2]);
    for (std::size_t p = 1; p < planes.size(); ++p)
    {
        double const d = planes[p].z_cm - planes[p - 1].z_cm;
        thickness = p == 1 ? d : std::min(thickness, d);
    }
    double const half = 0.5 * thickness;
    Real3 lo{{1e300, 1e300, planes.front().z_cm - half}};
    Real3 hi{{-1e300, -1e300, planes.back().z_cm + half}};
    for (auto const& plane : planes)
    {
        for (auto const& box : plane.boxes)
        {
            lo[0] = std::min(lo[0], box[0]);
            hi[0] = std::max(hi[0], box[1]);
            lo[1] = std::min(lo[1], box[2]);
            hi[1] = std::max(hi[1], box[3]);
        }
    }
    Int3 vlo, vhi;
    voxel_range(g, lo, hi, vlo, vhi);
    std::vector<std::pair<size_type, int>> counts;
    for (int k = vlo[2]; k < vhi[2]; ++k)
        for (int j = vlo[1]; j < vhi[1]; ++j)
        {
            poll_stop_request("the rasterising of a structure's contours");
            for (int i = vlo[0]; i < vhi[0]; ++i)
            {
                Int3 const ijk{{i, j, k}};
                int count = 0;
                for (int c = 0; c < n; ++c)
                    for (int b = 0; b < n; ++b)
                        for (int a = 0; a < n; ++a)
                        {
                            Real3 const p = g.to_physical(sample_local(g, ijk, a, b, c, n));
                            ContourPlane const* plane = nearest_plane(planes, p[2], half);
                            count += plane && inside_plane(*plane, p[0], p[1]);
                        }
                if (count > 0)
                    counts.emplace_back(g.linear_index(ijk), count);
            }
        }
    MCDOSE_VALIDATE(!counts.empty(), << what
                                     << " covers no sub-voxel sample of the dose grid (it is "
                                        "smaller than the samples' spacing); raise "
                                        "structures.sub_voxel_samples or remove it from the study");
    return from_counts(roi.name, "RT Structure Set", counts, n * n * n);
}

StructureMask label_structure(ScalarImage const& labels, int label, std::string const& name,
                              GridGeometry const& g, int n)
{
    MCDOSE_EXPECT(n >= 1);
    std::vector<std::pair<size_type, int>> counts;
    for (size_type v = 0; v < g.num_voxels(); ++v)
    {
        if (v % size_type(g.dims[0]) == 0)
            poll_stop_request("the sampling of a label image's structure");
        Int3 const ijk = g.ijk(v);
        int count = 0;
        for (int c = 0; c < n; ++c)
            for (int b = 0; b < n; ++b)
                for (int a = 0; a < n; ++a)
                {
                    Real3 const p = g.to_physical(sample_local(g, ijk, a, b, c, n));
                    Int3 lijk;
                    if (labels.geometry.find_local(labels.geometry.to_local(p), &lijk))
                    {
                        double const value = labels.values[labels.geometry.linear_index(lijk)];
                        count += std::lround(value) == label;
                    }
                }
        if (count > 0)
            counts.emplace_back(v, count);
    }
    MCDOSE_VALIDATE(!counts.empty(), << "structure '" << name << "': no voxel of the label image "
                                     << "inside the dose grid has label " << label
                                     << "; check the label number in the study");
    return from_counts(name, "label " + std::to_string(label), counts, n * n * n);
}
} // namespace mcdose
