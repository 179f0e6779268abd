//! \file dose/DoseComparison.cc
#include "dose/DoseComparison.hh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <regex>
#include <sstream>

#include "core/Assert.hh"
#include "core/ParallelFor.hh"
#include "dose/DoseSampler.hh"

namespace mcdose
{
namespace
{
constexpr double cm_per_mm = 0.1;

double max_value(std::vector<double> const& v)
{
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

//! Physical bounding box [cm] of a grid's extent, as "x [a, b], y [c, d], z [e, f] cm".
std::string describe_extent(GridGeometry const& g)
{
    double lo[3], hi[3];
    for (int a = 0; a < 3; ++a)
    {
        lo[a] = std::numeric_limits<double>::infinity();
        hi[a] = -lo[a];
    }
    for (int corner = 0; corner < 8; ++corner)
    {
        Real3 const local{{(corner & 1) ? g.dims[0] * g.spacing_cm[0] : 0.0,
                           (corner & 2) ? g.dims[1] * g.spacing_cm[1] : 0.0,
                           (corner & 4) ? g.dims[2] * g.spacing_cm[2] : 0.0}};
        Real3 const p = g.to_physical(local);
        for (int a = 0; a < 3; ++a)
        {
            lo[a] = std::min(lo[a], p[a]);
            hi[a] = std::max(hi[a], p[a]);
        }
    }
    std::ostringstream os;
    os << "x [" << lo[0] << ", " << hi[0] << "], y [" << lo[1] << ", " << hi[1] << "], z [" << lo[2]
       << ", " << hi[2] << "] cm";
    return os.str();
}

std::string describe_units(DoseGrid const& g)
{
    return g.units.empty() ? std::string("an unrecorded unit") : g.units;
}

//! A point of the search lattice: its displacement [cm], the same in the
//! evaluated grid's index space, and its squared distance in units of dta^2.
struct LatticePoint
{
    Real3 r_cm;
    Real3 du;
    double d2;
};

//! The search lattice of the gamma description (DoseComparison.hh), sorted by distance.
std::vector<LatticePoint> search_lattice(DoseSampler const& evaluated, double dta_cm,
                                         ComparisonOptions const& options)
{
    double const h = dta_cm / options.samples_per_dta;
    double const radius = options.search_radius_dta;
    int const shells = int(std::ceil(radius));
    std::vector<LatticePoint> points;
    for (int s = 1; s <= shells; ++s)
    {
        double const step = h * s;
        int const m = int(std::ceil(std::min<double>(s, radius) * dta_cm / step));
        for (int a = -m; a <= m; ++a)
        {
            for (int b = -m; b <= m; ++b)
            {
                for (int c = -m; c <= m; ++c)
                {
                    Real3 const r{{a * step, b * step, c * step}};
                    double const d = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) / dta_cm;
                    bool const in_shell = s == 1 ? d <= 1 : (d > s - 1 && d <= s);
                    if (in_shell && d <= radius)
                        points.push_back({r, evaluated.index_delta(r), d * d});
                }
            }
        }
    }
    std::sort(points.begin(), points.end(),
              [](LatticePoint const& x, LatticePoint const& y) { return x.d2 < y.d2; });
    return points;
}

//! Smallest and largest value of each block of 4^3 voxels of the evaluated
//! grid: they bound the dose interpolated anywhere in a ball without visiting
//! its voxels, so that a ring of the search whose dose term alone cannot beat
//! the best gamma found is skipped (a dose that differs everywhere nearby
//! costs one lookup per ring instead of the whole lattice).
class BlockBounds
{
  public:
    static constexpr int block = 4;

    BlockBounds(GridGeometry const& g, std::vector<double> const& values, int threads)
        : dims_(g.dims)
    {
        for (int c = 0; c < 3; ++c)
            blocks_[c] = (dims_[c] + block - 1) / block;
        size_type const nb = size_type(blocks_[0]) * size_type(blocks_[1]) * size_type(blocks_[2]);
        lo_.assign(nb, std::numeric_limits<double>::infinity());
        hi_.assign(nb, -std::numeric_limits<double>::infinity());
        // Pieces of whole block layers along k: no two threads write one block.
        parallel_for_pieces(
            size_type(blocks_[2]), threads,
            [&](size_type begin, size_type end, size_type)
            {
                for (int k = int(begin) * block; k < std::min(dims_[2], int(end) * block); ++k)
                {
                    for (int j = 0; j < dims_[1]; ++j)
                    {
                        for (int i = 0; i < dims_[0]; ++i)
                        {
                            size_type const b = index(i / block, j / block, k / block);
                            double const x = values[g.linear_index(Int3{{i, j, k}})];
                            lo_[b] = std::min(lo_[b], x);
                            hi_[b] = std::max(hi_[b], x);
                        }
                    }
                }
            },
            1);
    }

    //! Range of the values interpolated at points within index distance `e`
    //! (per axis) of continuous index `u`: the voxels they use lie in the box.
    void range(Real3 const& u, Real3 const& e, double* lo, double* hi) const
    {
        int b0[3], b1[3];
        for (int c = 0; c < 3; ++c)
        {
            double const first = std::max(0.0, std::floor(u[c] - e[c]));
            double const last = std::min(double(dims_[c] - 1), std::ceil(u[c] + e[c]));
            b0[c] = int(first) / block;
            b1[c] = int(std::max(first, last)) / block;
        }
        *lo = std::numeric_limits<double>::infinity();
        *hi = -*lo;
        for (int k = b0[2]; k <= b1[2]; ++k)
        {
            for (int j = b0[1]; j <= b1[1]; ++j)
            {
                for (int i = b0[0]; i <= b1[0]; ++i)
                {
                    size_type const b = index(i, j, k);
                    *lo = std::min(*lo, lo_[b]);
                    *hi = std::max(*hi, hi_[b]);
                }
            }
        }
    }

  private:
    size_type index(int i, int j, int k) const
    {
        return size_type(i) + size_type(blocks_[0]) * (size_type(j) + size_type(blocks_[1]) * k);
    }

    Int3 dims_;
    int blocks_[3];
    std::vector<double> lo_, hi_;
};

//! Gamma^2 search for one reference point (index `u0` in the evaluated grid).
class GammaSearch
{
  public:
    GammaSearch(DoseSampler const& evaluated, BlockBounds const& bounds,
                GammaCriterion const& criterion, ComparisonOptions const& options)
        : evaluated_(evaluated), bounds_(bounds), dta_cm_(criterion.dta_mm * cm_per_mm),
          h_cm_(dta_cm_ / options.samples_per_dta),
          lattice_(search_lattice(evaluated, dta_cm_, options)),
          cap2_(options.search_radius_dta * options.search_radius_dta)
    {
        for (int a = 0; a < 3; ++a)
        {
            Real3 e{{0, 0, 0}};
            e[a] = 1.0;
            axis_du_[a] = evaluated.index_delta(e); // per cm
            cm_to_index_[a] = 1 / evaluated.geometry().spacing_cm[a];
        }
        // Rings of the sorted lattice: ring k holds distances in (k w, (k+1) w] dta.
        int const rings = int(std::ceil(options.search_radius_dta / ring_width));
        for (int k = 0; k < rings; ++k)
        {
            double const outer = (k + 1) * ring_width;
            auto const end =
                std::upper_bound(lattice_.begin(), lattice_.end(), outer * outer,
                                 [](double d2, LatticePoint const& p) { return d2 < p.d2; });
            ring_end_.push_back(std::size_t(end - lattice_.begin()));
        }
    }

    //! Smallest gamma^2 (at most the cap) of reference dose `dose_r` at `u0`.
    double operator()(Real3 const& u0, double dose_r, double inv_dD2) const
    {
        double best = std::numeric_limits<double>::infinity();
        LatticePoint const* best_point = nullptr;
        std::size_t begin = 0;
        for (std::size_t k = 0; k < ring_end_.size(); ++k)
        {
            std::size_t const end = ring_end_[k];
            double const inner2 = (k * ring_width) * (k * ring_width);
            if (inner2 >= best)
                break;
            if (begin < end && inner2 + dose_gap2(u0, k, dose_r) * inv_dD2 < best)
            {
                for (std::size_t i = begin; i < end; ++i)
                {
                    LatticePoint const& p = lattice_[i];
                    if (p.d2 >= best)
                        break;
                    double dose_e;
                    if (!evaluated_.sample(add(u0, p.du, 1.0), &dose_e))
                        continue;
                    double const g2 = p.d2 + (dose_e - dose_r) * (dose_e - dose_r) * inv_dD2;
                    if (g2 < best)
                    {
                        best = g2;
                        best_point = &p;
                    }
                }
            }
            begin = end;
        }
        if (best_point && best > 0)
            best = refine(u0, *best_point, dose_r, inv_dD2, best);
        return std::min(best, cap2_);
    }

  private:
    static constexpr double ring_width = 0.5; //!< [dta]

    //! Square of the smallest |D_e - dose_r| possible within ring k's outer radius.
    double dose_gap2(Real3 const& u0, std::size_t k, double dose_r) const
    {
        double const radius_cm = (k + 1) * ring_width * dta_cm_;
        Real3 const e{{radius_cm * cm_to_index_[0], radius_cm * cm_to_index_[1],
                       radius_cm * cm_to_index_[2]}};
        double lo, hi;
        bounds_.range(u0, e, &lo, &hi);
        double const gap = std::max({0.0, lo - dose_r, dose_r - hi});
        return gap * gap;
    }

    static Real3 add(Real3 const& u, Real3 const& du, double f)
    {
        return Real3{{u[0] + f * du[0], u[1] + f * du[1], u[2] + f * du[2]}};
    }

    //! Pattern search around the best lattice point: steps of half its
    //! lattice step along each axis, halved when no step improves, down to 1/64.
    double refine(Real3 const& u0, LatticePoint const& start, double dose_r, double inv_dD2,
                  double best) const
    {
        double const shell = std::max(1.0, std::ceil(std::sqrt(start.d2) - 1e-9));
        Real3 r = start.r_cm;
        Real3 u = add(u0, start.du, 1.0);
        double const inv_dta2 = 1.0 / (dta_cm_ * dta_cm_);
        // Each move lowers gamma^2; the move count only bounds a pathological walk.
        int moves = 0;
        for (double step = 0.5 * h_cm_ * shell; step >= h_cm_ / 64 && moves < 256; ++moves)
        {
            bool moved = false;
            for (int a = 0; a < 3 && !moved; ++a)
            {
                for (double sign : {1.0, -1.0})
                {
                    Real3 rr = r;
                    rr[a] += sign * step;
                    Real3 const uu = add(u, axis_du_[a], sign * step);
                    double dose_e;
                    if (!evaluated_.sample(uu, &dose_e))
                        continue;
                    double const d2 = (rr[0] * rr[0] + rr[1] * rr[1] + rr[2] * rr[2]) * inv_dta2;
                    double const g2 = d2 + (dose_e - dose_r) * (dose_e - dose_r) * inv_dD2;
                    if (g2 < best)
                    {
                        best = g2;
                        r = rr;
                        u = uu;
                        moved = true;
                        break;
                    }
                }
            }
            if (!moved)
                step *= 0.5;
        }
        return best;
    }

    DoseSampler const& evaluated_;
    BlockBounds const& bounds_;
    double dta_cm_;
    double h_cm_;
    std::vector<LatticePoint> lattice_;
    double cap2_;
    Real3 axis_du_[3];
    double cm_to_index_[3];
    std::vector<std::size_t> ring_end_; //!< end of each ring in lattice_
};
} // namespace

std::string GammaCriterion::label() const
{
    std::ostringstream os;
    os << dose_fraction * 100 << "%/" << dta_mm << "mm " << (local ? "local" : "global");
    return os.str();
}

GammaCriterion parse_gamma_criterion(std::string const& text, bool local)
{
    std::smatch m;
    static std::regex const form(R"(\s*([0-9]*\.?[0-9]+)\s*%\s*/\s*([0-9]*\.?[0-9]+)\s*mm\s*)");
    MCDOSE_VALIDATE(std::regex_match(text, m, form),
                    << "gamma criterion '" << text
                    << "' is not of the form DOSE%/DISTANCEmm; give e.g. 3%/3mm or 2%/2mm");
    GammaCriterion c;
    c.dose_fraction = std::stod(m[1]) / 100;
    c.dta_mm = std::stod(m[2]);
    c.local = local;
    MCDOSE_VALIDATE(c.dose_fraction > 0 && c.dose_fraction <= 1 && c.dta_mm > 0 && c.dta_mm <= 100,
                    << "gamma criterion '" << text
                    << "' is out of range; the dose difference must be in (0, 100] % and the "
                       "distance in (0, 100] mm");
    return c;
}

void check_comparable(DoseGrid const& reference, DoseGrid const& evaluated)
{
    MCDOSE_VALIDATE(compatible_dose_units(reference.units, evaluated.units),
                    << "the doses are in different units: " << reference.source << " is in "
                    << describe_units(reference) << ", " << evaluated.source << " is in "
                    << describe_units(evaluated)
                    << "; compare doses in one unit (for absolute dose give the study's sources "
                       "a particle count, \"particles\", so that mcdose writes Gy)");
    MCDOSE_VALIDATE(reference.quantity.empty() || evaluated.quantity.empty() ||
                        reference.quantity == evaluated.quantity,
                    << "the files hold different quantities: " << reference.source << " is "
                    << reference.quantity << ", " << evaluated.source << " is "
                    << evaluated.quantity
                    << "; compare like with like (the study's outputs.dose_to chooses)");
    DoseSampler const sampler(evaluated.geometry, evaluated.values);
    GridGeometry const& g = reference.geometry;
    bool overlap = false;
    for (size_type v = 0; v < g.num_voxels() && !overlap; ++v)
        overlap = sampler.inside(sampler.index_of(g.voxel_centre_cm(g.ijk(v))));
    MCDOSE_VALIDATE(overlap, << "the grids do not overlap: " << reference.source << " spans "
                             << describe_extent(reference.geometry) << ", " << evaluated.source
                             << " spans " << describe_extent(evaluated.geometry)
                             << "; give doses computed in one coordinate frame (the same "
                                "phantom or CT)");
}

void check_finite(DoseGrid const& grid)
{
    size_type bad = 0, first = 0;
    for (size_type v = grid.values.size(); v-- > 0;)
    {
        if (!std::isfinite(grid.values[v]))
        {
            ++bad;
            first = v;
        }
    }
    if (bad == 0)
        return;
    auto const ijk = grid.geometry.ijk(first);
    MCDOSE_VALIDATE(false, << grid.source << " holds " << bad << " NaN or infinite dose value"
                           << (bad > 1 ? "s" : "") << " (the first at voxel (" << ijk[0] << ", "
                           << ijk[1] << ", " << ijk[2] << ")); a comparison with them means "
                           << "nothing: recompute or repair that dose file");
}

double near_max(DoseGrid const& grid, std::vector<std::uint8_t> const& region)
{
    std::vector<double> doses;
    for (size_type v = 0; v < grid.values.size(); ++v)
    {
        if (region.empty() || region[v])
            doses.push_back(grid.values[v]);
    }
    if (doses.empty())
        return 0;
    GridGeometry const& g = grid.geometry;
    double const voxel_cm3 = g.spacing_cm[0] * g.spacing_cm[1] * g.spacing_cm[2];
    constexpr double near_max_volume_cm3 = 0.03;
    auto const hottest =
        std::min(doses.size(),
                 std::size_t(std::max(1.0, std::ceil(near_max_volume_cm3 / voxel_cm3 - 1e-9))));
    auto const at = doses.begin() + std::ptrdiff_t(hottest - 1);
    std::nth_element(doses.begin(), at, doses.end(), std::greater<double>());
    return *at;
}

double normalisation_dose(DoseGrid const& reference, ComparisonOptions const& options)
{
    return options.normalisation_dose ? *options.normalisation_dose
                                      : near_max(reference, options.region);
}

DoseDifferenceStats dose_difference(DoseGrid const& reference, DoseGrid const& evaluated,
                                    ComparisonOptions const& options)
{
    DoseSampler const sampler(evaluated.geometry, evaluated.values);
    GridGeometry const& g = reference.geometry;
    DoseDifferenceStats s;
    s.reference_max = max_value(reference.values);
    s.region_near_max = near_max(reference, options.region);
    s.normalisation_dose = normalisation_dose(reference, options);
    s.threshold_dose = options.threshold_fraction * s.normalisation_dose;
    double sum = 0, sum_abs = 0, sum2 = 0, sum_ratio = 0;
    for (size_type v = 0; v < g.num_voxels(); ++v)
    {
        double const dr = reference.values[v];
        if (!(dr >= s.threshold_dose) || dr <= 0 || !(options.region.empty() || options.region[v]))
            continue;
        Real3 const centre = g.voxel_centre_cm(g.ijk(v));
        double de;
        if (!sampler.sample(sampler.index_of(centre), &de))
        {
            ++s.outside;
            continue;
        }
        double const d = de - dr;
        ++s.voxels;
        sum += d;
        sum_abs += std::abs(d);
        sum2 += d * d;
        sum_ratio += de / dr;
        if (std::abs(d) > s.max_abs_difference)
        {
            s.max_abs_difference = std::abs(d);
            s.max_abs_at_cm = centre;
        }
    }
    if (s.voxels > 0)
    {
        double const n = double(s.voxels);
        s.mean_difference = sum / n;
        s.mean_abs_difference = sum_abs / n;
        s.rms_difference = std::sqrt(sum2 / n);
        s.mean_ratio = sum_ratio / n;
    }
    return s;
}

GammaResult gamma_index(DoseGrid const& reference, DoseGrid const& evaluated,
                        GammaCriterion const& criterion, ComparisonOptions const& options)
{
    MCDOSE_VALIDATE(criterion.dose_fraction > 0 && criterion.dta_mm > 0,
                    << "gamma criterion " << criterion.label()
                    << " has a zero or negative dose difference or distance; give positive "
                       "values such as 3%/3mm");
    DoseSampler const sampler(evaluated.geometry, evaluated.values);
    GridGeometry const& g = reference.geometry;
    double const norm = normalisation_dose(reference, options);
    double const threshold = options.threshold_fraction * norm;
    double const global_dD = criterion.dose_fraction * norm;
    std::vector<std::uint8_t> const& region = options.region;
    BlockBounds const bounds(evaluated.geometry, evaluated.values, options.threads);
    GammaSearch const search(sampler, bounds, criterion, options);

    GammaResult result;
    result.criterion = criterion;
    result.cap = options.search_radius_dta;
    size_type const n = g.num_voxels();
    result.map.assign(n, -1.0f);
    // Work is grabbed in chunks: the cost of a voxel grows with its gamma.
    constexpr size_type chunk = 2048;
    std::atomic<size_type> next{0};
    int const threads = host_loop_threads(options.threads);
    parallel_for_pieces(
        size_type(threads), threads,
        [&](size_type, size_type, size_type)
        {
            for (size_type begin = next.fetch_add(chunk); begin < n; begin = next.fetch_add(chunk))
            {
                for (size_type v = begin; v < std::min(n, begin + chunk); ++v)
                {
                    double const dr = reference.values[v];
                    if (!(dr >= threshold) || dr <= 0 || !(region.empty() || region[v]))
                        continue;
                    Real3 const u0 = sampler.index_of(g.voxel_centre_cm(g.ijk(v)));
                    if (!sampler.inside(u0))
                        continue;
                    double const dD = criterion.local ? criterion.dose_fraction * dr : global_dD;
                    result.map[v] = float(std::sqrt(search(u0, dr, 1.0 / (dD * dD))));
                }
            }
        },
        1);

    std::vector<float> values;
    double sum = 0;
    for (float x : result.map)
    {
        if (x < 0)
            continue;
        values.push_back(x);
        sum += x;
        result.passed += x <= 1.0f ? 1 : 0;
        result.max_gamma = std::max(result.max_gamma, double(x));
    }
    result.evaluated = values.size();
    if (!values.empty())
    {
        result.pass_rate = double(result.passed) / double(result.evaluated);
        result.mean_gamma = sum / double(values.size());
        auto const p95 = values.begin() + std::ptrdiff_t(0.95 * double(values.size() - 1));
        std::nth_element(values.begin(), p95, values.end());
        result.gamma_p95 = *p95;
    }
    return result;
}
} // namespace mcdose
