//! \file transport/engine/ElectronTables.cc
#include "transport/engine/ElectronTables.hh"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/Assert.hh"
#include "core/ParallelFor.hh"
#include "transport/interactors/MultipleScattering.hh"
#include "transport/physics/ElectronPhysics.hh"
#include "transport/physics/PhysicsTables.hh"

namespace mcdose
{
namespace
{
constexpr unsigned brems_points = 48;
constexpr unsigned msc_points = 512;
constexpr double msc_m1_min = 1e-10;
constexpr double msc_m1_max = 0.999;
constexpr double table_emin_MeV = 1e-3;

constexpr double ln_a_min = -60; // A = 8.8e-27
constexpr double ln_a_max = 10;  // A = 2.2e4: <t^2>_A still accurate in double

//! ln A where a quantity increasing monotonically with A reaches `target`
//! (bisection in ln A on [ln_a_min, ln_a_max]).
template <class F>
double solve_ln_screening(F&& quantity, double target)
{
    double lo = ln_a_min;
    double hi = ln_a_max;
    for (int it = 0; it < 200; ++it)
    {
        double const mid = 0.5 * (lo + hi);
        (quantity(std::exp(mid)) < target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

double wentzel_ratio(double A)
{
    return wentzel_second_moment(A) / wentzel_mean_one_minus_mu(A);
}
} // namespace

void validate_electron_options(ElectronTransportOptions const& o)
{
    using L = ElectronOptionLimits;
    auto check_cut = [](double value, char const* field)
    {
        MCDOSE_VALIDATE(value >= L::cut_min_MeV && value <= L::cut_max_MeV,
                        << "'physics/" << field << "' must be in [" << L::cut_min_MeV << ", "
                        << L::cut_max_MeV << "] MeV (got " << value << ")");
    };
    check_cut(o.absorption_MeV, "electron_cutoff_MeV");
    check_cut(o.delta_cut_MeV, "delta_ray_cut_MeV");
    check_cut(o.brems_cut_MeV, "brems_cut_MeV");
    MCDOSE_VALIDATE(o.max_loss_fraction > 0 && o.max_loss_fraction <= L::max_loss_fraction,
                    << "'physics/max_step_energy_loss' must be in (0, " << L::max_loss_fraction
                    << "] (got " << o.max_loss_fraction
                    << "); 0.1 is the default (docs/physics.md, step-size study)");
    MCDOSE_VALIDATE(o.max_mfp_fraction > 0 && o.max_mfp_fraction <= L::max_mfp_fraction,
                    << "'physics/max_step_transport_mfp' must be in (0, " << L::max_mfp_fraction
                    << "] (got " << o.max_mfp_fraction << "); 0.2 is the tested default");
    MCDOSE_VALIDATE(o.points_per_decade >= 20 && o.points_per_decade <= 1000,
                    << "electron table density must be 20-1000 points per decade (got "
                    << o.points_per_decade << ")");
}

TableGrid electron_table_grid(double emax_MeV, ElectronTransportOptions const& o)
{
    validate_electron_options(o);
    double const emax = std::max({emax_MeV, 2 * o.delta_cut_MeV, o.brems_cut_MeV, 0.01}) * 1.001;
    TableGrid g;
    g.ln_emin = std::log(table_emin_MeV);
    g.delta = std::log(10.0) / o.points_per_decade;
    g.size = static_cast<unsigned>(std::ceil((std::log(emax) - g.ln_emin) / g.delta)) + 1;
    return g;
}

namespace
{
constexpr unsigned max_density_nodes = 257;

//! Soft stopping power (restricted collision + restricted radiative) of material m at a
//! density, [lepton][grid point]: the builder's columns at the material's own density.
std::vector<std::vector<double>> soft_stopping_at(PhysicsTables const& tables, std::uint32_t m,
                                                  double density_g_cm3)
{
    using C = ElectronColumn;
    std::array<std::vector<double>, 2> col;
    if (density_g_cm3 == tables.materials()[m].density_g_cm3)
    {
        for (C c : {C::restricted_col_electron, C::restricted_col_positron})
        {
            auto const v = tables.electron_column(m, c);
            col[c == C::restricted_col_positron].assign(v.begin(), v.end());
        }
    }
    else
    {
        col = tables.restricted_collision_at_density(m, density_g_cm3);
    }
    auto const rad_soft = tables.electron_column(m, C::restricted_rad);
    std::vector<std::vector<double>> soft(2);
    for (unsigned l = 0; l < 2; ++l)
    {
        soft[l].resize(rad_soft.size());
        for (std::size_t i = 0; i < rad_soft.size(); ++i)
        {
            soft[l][i] = col[l][i] + rad_soft[i];
            MCDOSE_VALIDATE(soft[l][i] > 0 && std::isfinite(soft[l][i]),
                            << "material '" << tables.materials()[m].name
                            << "': stopping power is not positive at "
                            << tables.options().electron_grid.energy_MeV(i) << " MeV and "
                            << density_g_cm3 << " g/cm^3");
        }
    }
    return soft;
}

//! Largest relative error of the midpoint values against the mean of their neighbours
//! (linear interpolation in ln rho at the midpoint in ln rho).
double midpoint_error(std::vector<std::vector<double>> const& lo,
                      std::vector<std::vector<double>> const& hi,
                      std::vector<std::vector<double>> const& mid)
{
    double err = 0;
    for (unsigned l = 0; l < 2; ++l)
    {
        for (std::size_t i = 0; i < mid[l].size(); ++i)
            err = std::max(err, std::fabs(0.5 * (lo[l][i] + hi[l][i]) / mid[l][i] - 1));
    }
    return err;
}
} // namespace

double DensityNodes::density_g_cm3(unsigned k) const
{
    return std::exp(ln_density_min + ln_step * k);
}

DensityNodeTables density_node_tables(PhysicsTables const& tables, std::uint32_t m,
                                      DensityRange range)
{
    Material const& material = tables.materials()[m];
    DensityNodeTables r;
    if (!(range.max_g_cm3 > 0) || !(range.min_g_cm3 > 0) || range.min_g_cm3 >= range.max_g_cm3)
    {
        // One density (or none positive): tabulate exactly there.
        double const rho = range.max_g_cm3 > 0 ? range.max_g_cm3 : material.density_g_cm3;
        r.nodes.ln_density_min = std::log(rho);
        r.stopping.push_back(soft_stopping_at(tables, m, rho));
        return r;
    }
    // Nodes at both ends, intervals halved until the midpoints are within tolerance.
    double const ln_lo = std::log(range.min_g_cm3);
    double const ln_hi = std::log(range.max_g_cm3);
    r.stopping.push_back(soft_stopping_at(tables, m, range.min_g_cm3));
    r.stopping.push_back(soft_stopping_at(tables, m, range.max_g_cm3));
    for (;;)
    {
        auto const intervals = static_cast<unsigned>(r.stopping.size() - 1);
        double const step = (ln_hi - ln_lo) / intervals;
        std::vector<std::vector<std::vector<double>>> mids;
        double err = 0;
        for (unsigned k = 0; k < intervals; ++k)
        {
            mids.push_back(soft_stopping_at(tables, m, std::exp(ln_lo + step * (k + 0.5))));
            err = std::max(err, midpoint_error(r.stopping[k], r.stopping[k + 1], mids.back()));
        }
        if (err <= density_node_tolerance)
        {
            r.nodes.ln_density_min = ln_lo;
            r.nodes.ln_step = step;
            r.nodes.count = intervals + 1;
            return r;
        }
        MCDOSE_VALIDATE(2 * intervals + 1 <= max_density_nodes,
                        << "material '" << material.name << "': the stopping power between "
                        << range.min_g_cm3 << " and " << range.max_g_cm3
                        << " g/cm^3 needs more than " << max_density_nodes
                        << " density nodes; use physics/density_effect \"nominal\"");
        decltype(r.stopping) merged;
        for (unsigned k = 0; k < intervals; ++k)
        {
            merged.push_back(std::move(r.stopping[k]));
            merged.push_back(std::move(mids[k]));
        }
        merged.push_back(std::move(r.stopping.back()));
        r.stopping = std::move(merged);
    }
}

namespace
{
//! Soft stopping power per material, density node and lepton; transport and hard cross
//! sections per (material, lepton) row, from the builder's columns.
void lay_out_columns(PhysicsTables const& tables, std::vector<DensityRange> const& densities,
                     ElectronHostTables& t)
{
    using C = ElectronColumn;
    C const hard[2] = {C::hard_moller, C::hard_bhabha};
    C const xs1[2] = {C::transport_xs_electron, C::transport_xs_positron};
    C const xs2[2] = {C::transport_xs2_electron, C::transport_xs2_positron};
    unsigned const n = t.size;
    std::size_t const nm = tables.num_materials();
    t.density_nodes.clear();
    t.stopping.clear();
    for (std::uint32_t m = 0; m < nm; ++m)
    {
        auto const node_tables =
            density_node_tables(tables, m, densities.empty() ? DensityRange{} : densities[m]);
        DensityNodes nodes = node_tables.nodes;
        nodes.first = static_cast<unsigned>(t.stopping.size() / (2 * n));
        t.density_nodes.push_back(nodes);
        for (auto const& node : node_tables.stopping)
            for (auto const& lepton : node)
                t.stopping.insert(t.stopping.end(), lepton.begin(), lepton.end());
    }
    t.transport_xs.assign(nm * 2 * n, 0);
    t.transport_xs2.assign(nm * 2 * n, 0);
    t.hard_xs.assign(nm * 2 * n * 3, 0);
    for (std::uint32_t m = 0; m < nm; ++m)
    {
        auto const brems = tables.electron_column(m, C::hard_brems);
        auto const annihilation = tables.electron_column(m, C::annihilation);
        for (unsigned i = 0; i < n; ++i)
        {
            for (unsigned l = 0; l < 2; ++l)
            {
                std::size_t const r = (m * 2 + l) * n + i;
                t.transport_xs[r] = tables.electron_column(m, xs1[l])[i];
                t.transport_xs2[r] = tables.electron_column(m, xs2[l])[i];
                t.hard_xs[r * 3 + 0] = tables.electron_column(m, hard[l])[i];
                t.hard_xs[r * 3 + 1] = brems[i];
                t.hard_xs[r * 3 + 2] = l == 1 ? annihilation[i] : 0.0;
            }
        }
    }
}

//! Bremsstrahlung spectrum shape in x = ln(k/W_cr)/ln(E/W_cr), per material and grid
//! point, normalised to its peak (the sampler's rejection envelope).
void fill_brems_shapes(PhysicsTables const& tables, double brems_cut_MeV, ElectronHostTables& t)
{
    unsigned const n = t.size;
    std::size_t const nm = tables.num_materials();
    TableGrid const& grid = tables.options().electron_grid;
    t.brems_points = brems_points;
    t.brems_shape.assign(nm * n * brems_points, 0);
    // One work item per (material, grid point), each filling its own row.
    parallel_for_each(nm * n,
                      [&](std::size_t j)
                      {
                          auto const m = static_cast<std::uint32_t>(j / n);
                          auto const i = static_cast<unsigned>(j % n);
                          ElectronPhysics const& phys = tables.electron_physics(m);
                          double const E = grid.energy_MeV(i);
                          if (!(E > brems_cut_MeV * (1 + 1e-9)))
                              return;
                          double* row = &t.brems_shape[j * brems_points];
                          double const span = std::log(E / brems_cut_MeV);
                          double peak = 0;
                          for (unsigned k = 0; k < brems_points; ++k)
                          {
                              double const x = double(k) / (brems_points - 1);
                              double const photon_MeV =
                                  std::min(brems_cut_MeV * std::exp(x * span), E * (1 - 1e-9));
                              row[k] = phys.brems_k_dsigma_dk(E, photon_MeV);
                              peak = std::max(peak, row[k]);
                          }
                          MCDOSE_VALIDATE(peak > 0, << "material '" << tables.materials()[m].name
                                                    << "': empty bremsstrahlung spectrum at " << E
                                                    << " MeV");
                          for (unsigned k = 0; k < brems_points; ++k)
                              row[k] /= peak;
                      });
    for (std::uint32_t m = 0; m < nm; ++m)
    {
        // Grid points at or below W_cr have no hard bremsstrahlung; the sampler
        // may still pick them as the lower neighbour: give them the next row.
        for (unsigned i = n - 1; i-- > 0;)
        {
            double* row = &t.brems_shape[(m * n + i) * brems_points];
            if (*std::max_element(row, row + brems_points) == 0)
                std::copy(row + brems_points, row + 2 * brems_points, row);
        }
    }
}

//! Hard-event majorants. A step starting at E in bin i (E_i <= E < E_i+1)
//! loses at most max_loss_fraction E at the stopping power of its midpoint,
//! which is within a factor 2 of that at E for any allowed fraction, so it
//! ends above E_i (1 - 2 f), i.e. at most k bins lower (2 f <= 0.5 by
//! ElectronOptionLimits). The tables are interpolated linearly in each bin,
//! so the largest node value over bins [i - k, i + 1] bounds the cross
//! section along the whole step exactly.
void fill_hard_majorants(std::size_t num_materials, double max_loss_fraction, ElectronHostTables& t)
{
    static_assert(2 * ElectronOptionLimits::max_loss_fraction < 1,
                  "the majorant window needs 2 f < 1");
    unsigned const n = t.size;
    unsigned const k =
        static_cast<unsigned>(std::ceil(-std::log1p(-2 * max_loss_fraction) / t.delta)) + 1;
    t.hard_majorant.assign(num_materials * 2 * n, 0);
    for (std::size_t row = 0; row < num_materials * 2; ++row)
    {
        auto total = [&](unsigned j)
        {
            std::size_t const r = row * n + j;
            return t.hard_xs[r * 3 + 0] + t.hard_xs[r * 3 + 1] + t.hard_xs[r * 3 + 2];
        };
        for (unsigned i = 0; i < n; ++i)
        {
            double m = 0;
            for (unsigned j = i > k ? i - k : 0; j <= std::min(i + 1, n - 1); ++j)
                m = std::max(m, total(j));
            t.hard_majorant[row * n + i] = m;
        }
    }
}

//! At the msc_points values x_j = exp(ln_min + delta j): ln A_j where quantity(A_j) = x_j,
//! and other(A_j).
template <class Q, class O>
void tabulate_screening(double ln_min, double delta, Q const& quantity, O const& other,
                        std::vector<double>& ln_screening, std::vector<double>& values)
{
    ln_screening.resize(msc_points);
    values.resize(msc_points);
    parallel_for_each(msc_points,
                      [&](std::size_t j)
                      {
                          double const ln_a =
                              solve_ln_screening(quantity, std::exp(ln_min + delta * j));
                          ln_screening[j] = ln_a;
                          values[j] = other(std::exp(ln_a));
                      });
}

//! MW multiple-scattering tables (material independent): the screening parameter A as a
//! function of the first moment and of the moment ratio.
void fill_msc_tables(ElectronHostTables& t)
{
    t.msc_m1_min = msc_m1_min;
    t.msc_m1_max = msc_m1_max;
    t.msc_ln_m1_min = std::log(msc_m1_min);
    t.msc_m1_delta = (std::log(msc_m1_max) - t.msc_ln_m1_min) / (msc_points - 1);
    tabulate_screening(t.msc_ln_m1_min, t.msc_m1_delta, wentzel_mean_one_minus_mu,
                       wentzel_second_moment, t.msc_ln_screening, t.msc_second_moment);
    double const ratio_lo = wentzel_ratio(std::exp(ln_a_min));
    double const ratio_hi = wentzel_ratio(std::exp(ln_a_max));
    t.msc_ln_ratio_min = std::log(ratio_lo);
    t.msc_ratio_delta = (std::log(ratio_hi) - t.msc_ln_ratio_min) / (msc_points - 1);
    tabulate_screening(t.msc_ln_ratio_min, t.msc_ratio_delta, wentzel_ratio,
                       wentzel_mean_one_minus_mu, t.msc_ln_screening_of_ratio, t.msc_mean_of_ratio);
}
} // namespace

ElectronHostTables build_electron_tables(PhysicsTables const& tables,
                                         ElectronTransportOptions const& o,
                                         std::vector<DensityRange> const& voxel_densities)
{
    validate_electron_options(o);
    auto const& to = tables.options();
    MCDOSE_VALIDATE(tables.has_electrons() && to.delta_cut_MeV == o.delta_cut_MeV &&
                        to.brems_cut_MeV == o.brems_cut_MeV,
                    << "the physics tables were not built with these electron cuts");
    ElectronHostTables t;
    t.ln_emin = to.electron_grid.ln_emin;
    t.delta = to.electron_grid.delta;
    t.size = to.electron_grid.size;
    MCDOSE_VALIDATE(voxel_densities.empty() || voxel_densities.size() == tables.num_materials(),
                    << "density ranges for " << voxel_densities.size() << " materials, tables for "
                    << tables.num_materials());
    bool const per_voxel = o.density_effect == DensityEffectModel::voxel;
    lay_out_columns(tables, per_voxel ? voxel_densities : std::vector<DensityRange>{}, t);
    fill_brems_shapes(tables, o.brems_cut_MeV, t);
    fill_hard_majorants(tables.num_materials(), o.max_loss_fraction, t);
    fill_msc_tables(t);
    return t;
}
} // namespace mcdose
