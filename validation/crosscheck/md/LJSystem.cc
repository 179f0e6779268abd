//! \file validation/crosscheck/md/LJSystem.cc
#include "LJSystem.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
#include "validation/crosscheck/SeededUniform.hh"

namespace mcdose::crosscheck
{
namespace
{
//! Random per-type sigma and eps, Lorentz-Berthelot combined per pair, stored
//! as float (sigma_ab^2, 24 eps_ab).
void assign_types(LJSystem& sys, int num_types, size_type n, SeededUniform& rng)
{
    MCDOSE_VALIDATE(num_types >= 1 && num_types <= 256,
                    << "'types' must be in [1, 256] (got " << num_types << ")");
    std::vector<double> sigma(num_types), eps(num_types);
    for (int t = 0; t < num_types; ++t)
    {
        sigma[t] = rng(0.8, 1.2);
        eps[t] = rng(0.5, 2.0);
    }
    sys.num_types = num_types;
    sys.sigma2.resize(num_types * num_types);
    sys.eps24.resize(num_types * num_types);
    for (int a = 0; a < num_types; ++a)
    {
        for (int b = 0; b < num_types; ++b)
        {
            double const s = 0.5 * (sigma[a] + sigma[b]);
            sys.sigma2[a * num_types + b] = float(s * s);
            sys.eps24[a * num_types + b] = float(24 * std::sqrt(eps[a] * eps[b]));
        }
    }
    sys.type.resize(n);
    for (auto& t : sys.type)
        t = std::int32_t(rng.index(num_types));
}

//! Uniform cell grid over [0, L)^3 for overlap checks during placement.
class PlacementGrid
{
  public:
    PlacementGrid(double box, double min_dist, bool periodic) : box_(box), periodic_(periodic)
    {
        cells_per_side_ = std::max(1, int(std::floor(box / min_dist)));
        if (periodic_ && cells_per_side_ < 3)
            cells_per_side_ = 1; // every neighbour search then scans everything
        cell_size_ = box / cells_per_side_;
        cells_.resize(size_type(cells_per_side_) * cells_per_side_ * cells_per_side_);
    }

    //! Calls visit(k) for every stored point k in the 27 cells around p.
    template <class F>
    void for_neighbours(std::array<double, 3> const& p, F&& visit) const
    {
        auto const c = cell_of(p);
        int const reach = cells_per_side_ == 1 ? 0 : 1;
        for (int dx = -reach; dx <= reach; ++dx)
            for (int dy = -reach; dy <= reach; ++dy)
                for (int dz = -reach; dz <= reach; ++dz)
                {
                    std::array<int, 3> q{c[0] + dx, c[1] + dy, c[2] + dz};
                    bool inside = true;
                    for (auto& qi : q)
                    {
                        if (periodic_)
                            qi = (qi + cells_per_side_) % cells_per_side_;
                        else if (qi < 0 || qi >= cells_per_side_)
                            inside = false;
                    }
                    if (!inside)
                        continue;
                    for (auto k : cells_[flat(q)])
                        visit(k);
                }
    }
    void insert(std::array<double, 3> const& p, std::uint32_t k)
    {
        cells_[flat(cell_of(p))].push_back(k);
    }
    void remove_last(std::array<double, 3> const& p) { cells_[flat(cell_of(p))].pop_back(); }

  private:
    double box_;
    bool periodic_;
    int cells_per_side_;
    double cell_size_;
    std::vector<std::vector<std::uint32_t>> cells_;

    std::array<int, 3> cell_of(std::array<double, 3> const& p) const
    {
        std::array<int, 3> c;
        for (int d = 0; d < 3; ++d)
        {
            double w = p[d];
            if (periodic_)
                w -= box_ * std::floor(w / box_);
            c[d] = std::min(cells_per_side_ - 1, std::max(0, int(w / cell_size_)));
        }
        return c;
    }
    size_type flat(std::array<int, 3> const& c) const
    {
        return (size_type(c[0]) * cells_per_side_ + c[1]) * cells_per_side_ + c[2];
    }
};

double distance2(std::array<double, 3> const& a, std::array<double, 3> const& b, double box)
{
    double r2 = 0;
    for (int d = 0; d < 3; ++d)
    {
        double v = a[d] - b[d];
        if (box > 0)
            v -= box * std::rint(v / box);
        r2 += v * v;
    }
    return r2;
}

void store_positions(LJSystem& sys, std::vector<std::array<double, 3>> const& pos)
{
    sys.x.resize(pos.size());
    sys.y.resize(pos.size());
    sys.z.resize(pos.size());
    for (size_type k = 0; k < pos.size(); ++k)
    {
        sys.x[k] = float(pos[k][0]);
        sys.y[k] = float(pos[k][1]);
        sys.z[k] = float(pos[k][2]);
    }
}
} // namespace

LJSystem make_lj_cloud(LJCloudOptions const& opts)
{
    MCDOSE_VALIDATE(opts.num_particles >= 2 && opts.num_particles < (size_type(1) << 31),
                    << "'particles' must be in [2, 2^31) (got " << opts.num_particles << ")");
    MCDOSE_VALIDATE(
        opts.number_density > 0 && opts.number_density * std::pow(opts.min_distance, 3) < 0.5,
        << "'density' times min_distance^3 must be in (0, 0.5) for random placement "
           "without overlaps (got density "
        << opts.number_density << ", min_distance " << opts.min_distance << ")");
    SeededUniform rng(opts.seed);
    LJSystem sys;
    double const box = std::cbrt(opts.num_particles / opts.number_density);
    PlacementGrid grid(box, opts.min_distance, /*periodic=*/false);
    std::vector<std::array<double, 3>> pos;
    pos.reserve(opts.num_particles);
    double const rmin2 = opts.min_distance * opts.min_distance;
    size_type attempts = 0;
    while (pos.size() < opts.num_particles)
    {
        MCDOSE_VALIDATE(++attempts < 1000 * opts.num_particles,
                        << "could not place " << opts.num_particles
                        << " particles without overlaps; lower 'density'");
        std::array<double, 3> p{rng(0, box), rng(0, box), rng(0, box)};
        bool ok = true;
        grid.for_neighbours(p,
                            [&](std::uint32_t k) { ok = ok && distance2(p, pos[k], 0) >= rmin2; });
        if (!ok)
            continue;
        grid.insert(p, std::uint32_t(pos.size()));
        pos.push_back(p);
    }
    store_positions(sys, pos);
    assign_types(sys, opts.num_types, pos.size(), rng);
    // Rounding the positions to float moves each by <= 2^-24 box.
    sys.min_pair_distance = opts.min_distance - 4 * box * 0x1.0p-24;
    return sys;
}

LJSystem make_lj_chains(LJChainOptions const& opts)
{
    MCDOSE_VALIDATE(opts.chain_length >= 3,
                    << "'chain_length' must be at least 3 (got " << opts.chain_length << ")");
    MCDOSE_VALIDATE(opts.num_chains >= 1, << "'chains' must be positive");
    MCDOSE_VALIDATE(opts.bond_length > 0 && opts.bond_length < opts.min_distance,
                    << "'bond_length' must be in (0, min_distance) (got " << opts.bond_length
                    << ")");
    size_type const n = opts.num_chains * opts.chain_length;
    double const box = std::cbrt(n / opts.number_density);
    MCDOSE_VALIDATE(box > 4 * opts.min_distance,
                    << "periodic box edge " << box
                    << " is too small; use more chains or lower density");
    SeededUniform rng(opts.seed);
    PlacementGrid grid(box, opts.min_distance, /*periodic=*/true);
    std::vector<std::array<double, 3>> pos; // unwrapped
    pos.reserve(n);
    double const rmin2 = opts.min_distance * opts.min_distance;
    double const b = opts.bond_length;
    size_type attempts = 0;
    while (pos.size() < n)
    {
        MCDOSE_VALIDATE(++attempts < 10000 * n,
                        << "could not build the chains without overlaps; lower 'density'");
        size_type const start = pos.size();
        bool chain_ok = true;
        for (size_type m = 0; m < opts.chain_length && chain_ok; ++m)
        {
            bool placed = false;
            for (int tries = 0; tries < 100 && !placed; ++tries)
            {
                std::array<double, 3> p;
                if (m == 0)
                {
                    p = {rng(0, box), rng(0, box), rng(0, box)};
                }
                else
                {
                    // Uniform direction on the sphere (Marsaglia-free: cos theta uniform).
                    double const cost = rng(-1, 1), phi = rng(0, 2 * M_PI);
                    double const sint = std::sqrt(1 - cost * cost);
                    auto const& q = pos.back();
                    p = {q[0] + b * sint * std::cos(phi), q[1] + b * sint * std::sin(phi),
                         q[2] + b * cost};
                    // Bond angle >= 60 degrees keeps the 1-3 pair at least b apart.
                    if (m >= 2 && distance2(p, pos[pos.size() - 2], 0) < b * b)
                        continue;
                }
                std::uint32_t const self = std::uint32_t(pos.size());
                bool ok = true;
                grid.for_neighbours(p,
                                    [&](std::uint32_t k)
                                    {
                                        bool const excluded = k >= start && self - k <= 2;
                                        ok = ok && (excluded || distance2(p, pos[k], box) >= rmin2);
                                    });
                if (!ok)
                    continue;
                grid.insert(p, self);
                pos.push_back(p);
                placed = true;
            }
            chain_ok = placed;
        }
        if (!chain_ok)
        {
            while (pos.size() > start)
            {
                grid.remove_last(pos.back());
                pos.pop_back();
            }
        }
    }

    LJSystem sys;
    // The float and double force paths must see the same box: store the edge
    // that float represents exactly.
    double const box_f = double(float(box));
    sys.box_length = box_f;
    sys.image.resize(n);
    std::vector<std::array<double, 3>> wrapped(n);
    for (size_type k = 0; k < n; ++k)
    {
        for (int d = 0; d < 3; ++d)
        {
            double const img = std::floor(pos[k][d] / box_f);
            sys.image[k][d] = int(img);
            wrapped[k][d] = pos[k][d] - img * box_f;
        }
    }
    store_positions(sys, wrapped);
    assign_types(sys, opts.num_types, n, rng);

    sys.molecule.resize(n);
    sys.excl_offset.assign(1, 0);
    size_type const L = opts.chain_length;
    for (size_type k = 0; k < n; ++k)
    {
        size_type const c = k / L, m = k % L;
        sys.molecule[k] = std::int32_t(c);
        if (m + 1 < L)
            sys.bonds.push_back({std::uint32_t(k), std::uint32_t(k + 1)});
        for (size_type other = (m >= 2 ? m - 2 : 0); other <= std::min(L - 1, m + 2); ++other)
        {
            if (other != m)
                sys.excl_index.push_back(std::uint32_t(c * L + other));
        }
        sys.excl_offset.push_back(std::uint32_t(sys.excl_index.size()));
    }
    // Excluded pairs: bonds at exactly b, 1-3 pairs at >= b (before rounding to float).
    sys.min_excluded_distance = b * (1 - 1e-5);
    sys.min_pair_distance = opts.min_distance * (1 - 1e-5);
    return sys;
}

LJView make_host_view(LJSystem const& sys)
{
    LJView v;
    v.x = make_span(sys.x);
    v.y = make_span(sys.y);
    v.z = make_span(sys.z);
    v.type = make_span(sys.type);
    v.sigma2 = make_span(sys.sigma2);
    v.eps24 = make_span(sys.eps24);
    v.excl_offset = make_span(sys.excl_offset);
    v.excl_index = make_span(sys.excl_index);
    v.num_types = sys.num_types;
    v.box_length = float(sys.box_length);
    return v;
}
} // namespace mcdose::crosscheck
