//! \file dose/ProfileCsv.cc
#include "dose/ProfileCsv.hh"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"

namespace mcdose
{
namespace
{
char const axis_letter[] = "xyz";

void append_row(std::string* out, std::initializer_list<double> values)
{
    char buf[40];
    bool first = true;
    for (double v : values)
    {
        // 10 significant digits round-trip the float data and keep the files small.
        std::snprintf(buf, sizeof(buf), "%s%.10g", first ? "" : ",", v);
        *out += buf;
        first = false;
    }
    *out += '\n';
}
} // namespace

std::vector<double> slab_faces_cm(GridGeometry const& g, int axis)
{
    MCDOSE_EXPECT(axis >= 0 && axis < 3);
    std::vector<double> faces(size_type(g.dims[axis]) + 1);
    for (size_type k = 0; k < faces.size(); ++k)
        faces[k] = g.origin_cm[axis] + (double(k) - 0.5) * g.spacing_cm[axis];
    return faces;
}

std::vector<double> laterally_integrate(GridGeometry const& g, int axis,
                                        Span<double const> voxel_values)
{
    MCDOSE_VALIDATE(axis >= 0 && axis < 3, << "depth axis " << axis << " is not 0, 1 or 2");
    MCDOSE_VALIDATE(voxel_values.size() == g.num_voxels(),
                    << voxel_values.size() << " voxel values for a grid of " << g.num_voxels());
    std::vector<double> slab(size_type(g.dims[axis]), 0.0);
    for (size_type v = 0; v < voxel_values.size(); ++v)
        slab[size_type(g.ijk(v)[axis])] += voxel_values[v];
    return slab;
}

DepthDoseCurve depth_dose_from_batches(GridGeometry const& g, int axis,
                                       std::vector<std::vector<double>> const& batches)
{
    std::vector<std::vector<double>> slabs;
    for (auto const& b : batches)
        slabs.push_back(laterally_integrate(g, axis, make_span(b)));
    return depth_dose_from_batch_slabs(g, axis, slabs);
}

namespace
{
//! A curve's slabs along `axis` with their faces, the values left at 0.
DepthDoseCurve empty_curve(GridGeometry const& g, int axis)
{
    size_type const n = size_type(g.dims[axis]);
    DepthDoseCurve c;
    c.axis = axis;
    auto const faces = slab_faces_cm(g, axis);
    c.lo_cm.assign(faces.begin(), faces.end() - 1);
    c.hi_cm.assign(faces.begin() + 1, faces.end());
    c.edep_MeV.assign(n, 0.0);
    c.edep_sigma_MeV.assign(n, 0.0);
    return c;
}
} // namespace

DepthDoseCurve depth_dose_from_history_slabs(GridGeometry const& g, int axis,
                                             std::vector<double> const& sums,
                                             std::vector<double> const& sum_sq,
                                             std::uint64_t histories)
{
    MCDOSE_VALIDATE(histories >= 2, << "a history-by-history uncertainty needs at least 2 "
                                       "histories (got "
                                    << histories << ")");
    MCDOSE_VALIDATE(axis >= 0 && axis < 3, << "depth axis " << axis << " is not 0, 1 or 2");
    size_type const n = size_type(g.dims[axis]);
    MCDOSE_VALIDATE(sums.size() == n && sum_sq.size() == n,
                    << "slab sums and squares have " << sums.size() << " and " << sum_sq.size()
                    << " slabs, the grid has " << n << " along axis " << axis);
    DepthDoseCurve c = empty_curve(g, axis);
    double const nh = double(histories);
    for (size_type k = 0; k < n; ++k)
    {
        double const var = std::max(0.0, sum_sq[k] - sums[k] * sums[k] / nh) * nh / (nh - 1);
        c.edep_MeV[k] = sums[k] / nh;
        c.edep_sigma_MeV[k] = std::sqrt(var) / nh;
    }
    return c;
}

DepthDoseCurve depth_dose_from_batch_slabs(GridGeometry const& g, int axis,
                                           std::vector<std::vector<double>> const& slabs)
{
    MCDOSE_VALIDATE(slabs.size() >= 2,
                    << "a batch uncertainty needs at least 2 batches (got " << slabs.size() << ")");
    size_type const n = size_type(g.dims[axis]);
    double const nb = double(slabs.size());
    for (auto const& s : slabs)
        MCDOSE_VALIDATE(s.size() == n, << "batch slab sums have " << s.size() << " slabs, the "
                                       << "grid has " << n << " along axis " << axis);

    DepthDoseCurve c = empty_curve(g, axis);
    for (size_type k = 0; k < n; ++k)
    {
        double mean = 0;
        for (auto const& s : slabs)
            mean += s[k];
        mean /= nb;
        double ss = 0;
        for (auto const& s : slabs)
            ss += (s[k] - mean) * (s[k] - mean);
        c.edep_MeV[k] = mean;
        c.edep_sigma_MeV[k] = std::sqrt(ss / (nb * (nb - 1)));
    }
    return c;
}

void write_depth_dose_csv(std::string const& path, DepthDoseCurve const& c)
{
    size_type const n = c.edep_MeV.size();
    MCDOSE_VALIDATE(c.lo_cm.size() == n && c.hi_cm.size() == n && c.edep_sigma_MeV.size() == n,
                    << "depth-dose columns have different lengths");
    std::string out = "z_lo_cm,z_hi_cm,z_mid_cm,edep_MeV,edep_sigma_MeV\n";
    for (size_type k = 0; k < n; ++k)
    {
        append_row(&out, {c.lo_cm[k], c.hi_cm[k], c.mid_cm(k), c.edep_MeV[k], c.edep_sigma_MeV[k]});
    }
    write_text_atomically(path, out);
}

LateralProfile lateral_profile(DoseGridData const& data, int axis, Real3 const& point_cm)
{
    MCDOSE_VALIDATE(axis >= 0 && axis < 3, << "profile axis " << axis << " is not 0, 1 or 2");
    GridGeometry const& g = data.geometry;
    Int3 ijk;
    MCDOSE_VALIDATE(g.find_local(g.to_local(point_cm), &ijk),
                    << "profile point (" << point_cm[0] << ", " << point_cm[1] << ", "
                    << point_cm[2] << ") cm is outside the phantom; choose a point inside it");
    validate_dose_data(data);
    auto const faces = slab_faces_cm(g, axis);
    LateralProfile p;
    p.axis = axis;
    for (int k = 0; k < g.dims[axis]; ++k)
    {
        ijk[axis] = k;
        size_type const v = g.linear_index(ijk);
        p.lo_cm.push_back(faces[size_type(k)]);
        p.hi_cm.push_back(faces[size_type(k) + 1]);
        double const dose = voxel_dose_gy_per_particle(data, v);
        p.dose_Gy.push_back(dose);
        p.dose_sigma_Gy.push_back(dose * voxel_relative_uncertainty(data, v));
    }
    return p;
}

void write_lateral_profile_csv(std::string const& path, LateralProfile const& p)
{
    char const a = axis_letter[p.axis];
    std::string out;
    out += a;
    out += "_lo_cm,";
    out += a;
    out += "_hi_cm,";
    out += a;
    out += "_mid_cm,dose_Gy_per_particle,dose_sigma_Gy_per_particle\n";
    for (size_type k = 0; k < p.dose_Gy.size(); ++k)
    {
        append_row(&out, {p.lo_cm[k], p.hi_cm[k], 0.5 * (p.lo_cm[k] + p.hi_cm[k]), p.dose_Gy[k],
                          p.dose_sigma_Gy[k]});
    }
    write_text_atomically(path, out);
}
} // namespace mcdose
