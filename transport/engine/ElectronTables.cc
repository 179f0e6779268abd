//! \file transport/engine/ElectronTables.cc
#include "transport/engine/ElectronTables.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
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
//! Stopping (restricted collision + restricted radiative), transport and hard cross
//! sections per (material, lepton) row, from the builder's columns.
void lay_out_columns(PhysicsTables const& tables, ElectronHostTables& t)
{
    using C = ElectronColumn;
    C const col[2] = {C::restricted_col_electron, C::restricted_col_positron};
    C const hard[2] = {C::hard_moller, C::hard_bhabha};
    C const xs1[2] = {C::transport_xs_electron, C::transport_xs_positron};
    C const xs2[2] = {C::transport_xs2_electron, C::transport_xs2_positron};
    unsigned const n = t.size;
    std::size_t const nm = tables.num_materials();
    t.stopping.assign(nm * 2 * n, 0);
    t.transport_xs.assign(nm * 2 * n, 0);
    t.transport_xs2.assign(nm * 2 * n, 0);
    t.hard_xs.assign(nm * 2 * n * 3, 0);
    for (std::uint32_t m = 0; m < nm; ++m)
    {
        auto const rad_soft = tables.electron_column(m, C::restricted_rad);
        auto const brems = tables.electron_column(m, C::hard_brems);
        auto const annihilation = tables.electron_column(m, C::annihilation);
        for (unsigned i = 0; i < n; ++i)
        {
            for (unsigned l = 0; l < 2; ++l)
            {
                std::size_t const r = (m * 2 + l) * n + i;
                t.stopping[r] = tables.electron_column(m, col[l])[i] + rad_soft[i];
                MCDOSE_VALIDATE(t.stopping[r] > 0 && std::isfinite(t.stopping[r]),
                                << "material '" << tables.materials()[m].name
                                << "': stopping power is not positive at "
                                << tables.options().electron_grid.energy_MeV(i) << " MeV");
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
    for (std::uint32_t m = 0; m < nm; ++m)
    {
        ElectronPhysics const& phys = tables.electron_physics(m);
        for (unsigned i = 0; i < n; ++i)
        {
            double const E = grid.energy_MeV(i);
            if (!(E > brems_cut_MeV * (1 + 1e-9)))
                continue;
            double* row = &t.brems_shape[(m * n + i) * brems_points];
            double const span = std::log(E / brems_cut_MeV);
            double peak = 0;
            for (unsigned j = 0; j < brems_points; ++j)
            {
                double const x = double(j) / (brems_points - 1);
                double const k = std::min(brems_cut_MeV * std::exp(x * span), E * (1 - 1e-9));
                row[j] = phys.brems_k_dsigma_dk(E, k);
                peak = std::max(peak, row[j]);
            }
            MCDOSE_VALIDATE(peak > 0, << "material '" << tables.materials()[m].name
                                      << "': empty bremsstrahlung spectrum at " << E << " MeV");
            for (unsigned j = 0; j < brems_points; ++j)
                row[j] /= peak;
        }
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

//! MW multiple-scattering tables (material independent): the screening parameter A as a
//! function of the first moment and of the moment ratio.
void fill_msc_tables(ElectronHostTables& t)
{
    t.msc_m1_min = msc_m1_min;
    t.msc_m1_max = msc_m1_max;
    t.msc_ln_m1_min = std::log(msc_m1_min);
    t.msc_m1_delta = (std::log(msc_m1_max) - t.msc_ln_m1_min) / (msc_points - 1);
    t.msc_ln_screening.resize(msc_points);
    t.msc_second_moment.resize(msc_points);
    for (unsigned j = 0; j < msc_points; ++j)
    {
        double const m1 = std::exp(t.msc_ln_m1_min + t.msc_m1_delta * j);
        double const ln_a = solve_ln_screening(wentzel_mean_one_minus_mu, m1);
        t.msc_ln_screening[j] = ln_a;
        t.msc_second_moment[j] = wentzel_second_moment(std::exp(ln_a));
    }
    double const ratio_lo = wentzel_ratio(std::exp(ln_a_min));
    double const ratio_hi = wentzel_ratio(std::exp(ln_a_max));
    t.msc_ln_ratio_min = std::log(ratio_lo);
    t.msc_ratio_delta = (std::log(ratio_hi) - t.msc_ln_ratio_min) / (msc_points - 1);
    t.msc_ln_screening_of_ratio.resize(msc_points);
    t.msc_mean_of_ratio.resize(msc_points);
    for (unsigned j = 0; j < msc_points; ++j)
    {
        double const ratio = std::exp(t.msc_ln_ratio_min + t.msc_ratio_delta * j);
        double const ln_a = solve_ln_screening(wentzel_ratio, ratio);
        t.msc_ln_screening_of_ratio[j] = ln_a;
        t.msc_mean_of_ratio[j] = wentzel_mean_one_minus_mu(std::exp(ln_a));
    }
}
} // namespace

ElectronHostTables build_electron_tables(PhysicsTables const& tables,
                                         ElectronTransportOptions const& o)
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
    lay_out_columns(tables, t);
    fill_brems_shapes(tables, o.brems_cut_MeV, t);
    fill_hard_majorants(tables.num_materials(), o.max_loss_fraction, t);
    fill_msc_tables(t);
    return t;
}
} // namespace mcdose
