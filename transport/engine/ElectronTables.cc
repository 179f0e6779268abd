//! \file transport/engine/ElectronTables.cc
#include "transport/engine/ElectronTables.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
#include "transport/interactors/MultipleScattering.hh"
#include "transport/physics/ElectronPhysics.hh"

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

ElectronHostTables build_electron_tables(std::vector<Material> const& materials, double emax_MeV,
                                         ElectronTransportOptions const& o)
{
    validate_electron_options(o);
    ElectronHostTables t;
    double const emax = std::max({emax_MeV, 2 * o.delta_cut_MeV, o.brems_cut_MeV, 0.01}) * 1.001;
    t.ln_emin = std::log(table_emin_MeV);
    t.delta = std::log(10.0) / o.points_per_decade;
    t.size = static_cast<unsigned>(std::ceil((std::log(emax) - t.ln_emin) / t.delta)) + 1;
    unsigned const n = t.size;
    std::size_t const nm = materials.size();
    t.stopping.assign(nm * 2 * n, 0);
    t.transport_xs.assign(nm * 2 * n, 0);
    t.transport_xs2.assign(nm * 2 * n, 0);
    t.hard_xs.assign(nm * 2 * n * 3, 0);
    t.brems_points = brems_points;
    t.brems_shape.assign(nm * n * brems_points, 0);

    Lepton const leptons[2] = {Lepton::electron, Lepton::positron};
    for (std::size_t m = 0; m < nm; ++m)
    {
        ElectronPhysics const phys(materials[m]);
        for (unsigned i = 0; i < n; ++i)
        {
            double const E = std::exp(t.ln_emin + t.delta * i);
            double const rad_soft = phys.restricted_radiative_stopping(E, o.brems_cut_MeV);
            double const brems = phys.hard_brems_cross_section(E, o.brems_cut_MeV);
            for (unsigned l = 0; l < 2; ++l)
            {
                std::size_t const r = (m * 2 + l) * n + i;
                t.stopping[r] =
                    phys.restricted_collision_stopping(E, o.delta_cut_MeV, leptons[l]) + rad_soft;
                MCDOSE_VALIDATE(t.stopping[r] > 0 && std::isfinite(t.stopping[r]),
                                << "material '" << materials[m].name
                                << "': stopping power is not positive at " << E << " MeV");
                t.transport_xs[r] = phys.transport_cross_section(E, leptons[l]);
                t.transport_xs2[r] = phys.second_transport_cross_section(E, leptons[l]);
                t.hard_xs[r * 3 + 0] =
                    phys.hard_collision_cross_section(E, o.delta_cut_MeV, leptons[l]);
                t.hard_xs[r * 3 + 1] = brems;
                t.hard_xs[r * 3 + 2] = l == 1 ? phys.annihilation_cross_section(E) : 0.0;
            }
            // Bremsstrahlung spectrum shape in x = ln(k/W_cr)/ln(E/W_cr).
            if (E > o.brems_cut_MeV * (1 + 1e-9))
            {
                double* row = &t.brems_shape[(m * n + i) * brems_points];
                double const span = std::log(E / o.brems_cut_MeV);
                double peak = 0;
                for (unsigned j = 0; j < brems_points; ++j)
                {
                    double const x = double(j) / (brems_points - 1);
                    double const k = std::min(o.brems_cut_MeV * std::exp(x * span), E * (1 - 1e-9));
                    row[j] = phys.brems_k_dsigma_dk(E, k);
                    peak = std::max(peak, row[j]);
                }
                MCDOSE_VALIDATE(peak > 0, << "material '" << materials[m].name
                                          << "': empty bremsstrahlung spectrum at " << E << " MeV");
                for (unsigned j = 0; j < brems_points; ++j)
                    row[j] /= peak;
            }
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

    // Hard-event majorants. A step starting at E in bin i (E_i <= E < E_i+1)
    // loses at most max_loss_fraction E at the stopping power of its midpoint,
    // which is within a factor 2 of that at E for any allowed fraction, so it
    // ends above E_i (1 - 2 f), i.e. at most k bins lower (2 f <= 0.5 by
    // ElectronOptionLimits). The tables are interpolated linearly in each bin,
    // so the largest node value over bins [i - k, i + 1] bounds the cross
    // section along the whole step exactly.
    {
        static_assert(2 * ElectronOptionLimits::max_loss_fraction < 1,
                      "the majorant window needs 2 f < 1");
        unsigned const k =
            static_cast<unsigned>(std::ceil(-std::log1p(-2 * o.max_loss_fraction) / t.delta)) + 1;
        t.hard_majorant.assign(nm * 2 * n, 0);
        for (std::size_t row = 0; row < nm * 2; ++row)
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

    // MW multiple-scattering tables.
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
    return t;
}
} // namespace mcdose
