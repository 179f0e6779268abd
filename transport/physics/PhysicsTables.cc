//! \file transport/physics/PhysicsTables.cc
#include "transport/physics/PhysicsTables.hh"

#include <algorithm>
#include <functional>
#include <map>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/ParallelFor.hh"
#include "phantoms/materials/Element.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/LogGrid.hh"
#include "transport/physics/PhotonCrossSections.hh"
#include "transport/physics/PhotonPhysics.hh"

namespace mcdose
{
namespace
{
constexpr auto n_photon = static_cast<std::uint32_t>(PhotonColumn::size_);
constexpr auto n_electron = static_cast<std::uint32_t>(ElectronColumn::size_);

//! Free-electron Klein-Nishina total cross section per electron [cm^2]
//! (Klein & Nishina, Z. Phys. 52 (1929) 853; e.g. Evans, The Atomic Nucleus, Eq. 22.1).
double klein_nishina_per_electron_cm2(double energy_MeV)
{
    double const k = energy_MeV / constants::electron_mass_MeV;
    double const re2 =
        constants::classical_electron_radius_cm * constants::classical_electron_radius_cm;
    double const a = 1 + 2 * k;
    double const l = std::log(a);
    return 2 * constants::pi * re2 *
           ((1 + k) / (k * k) * (2 * (1 + k) / a - l / k) + l / (2 * k) - (1 + 3 * k) / (a * a));
}

//! The atomic numbers of the materials' elements, ascending, each once.
std::vector<int> unique_elements(std::vector<Material> const& materials)
{
    std::vector<int> zs;
    for (auto const& m : materials)
        for (auto const& c : m.components)
            zs.push_back(c.atomic_number);
    std::sort(zs.begin(), zs.end());
    zs.erase(std::unique(zs.begin(), zs.end()), zs.end());
    return zs;
}

//! Cross sections of one element at the photon grid points [cm^2/g], in the form the
//! materials mix them (mass-fraction rule, PhotonCrossSections.hh).
struct ElementPhotonColumns
{
    std::vector<double> photo, incoherent, coherent, pair;
};

//! Receives the energy-transfer data of element z at grid point i (for mu_en).
using ElementDataSink = std::function<void(int z, unsigned i, PhotonElementData const&)>;

//! The columns of each element. With a sink (the dosimetry columns), each (element, point)
//! is evaluated once by photon_element_data (PhotonPhysics.hh), which calls the same
//! cross-section functions and sums the same Compton nodes in the same order, so the
//! transported columns are the same bit for bit (PhysicsTables.PrintedTablesAreTheTransportedOnes),
//! and its energy-transfer data go to the sink.
std::map<int, ElementPhotonColumns> element_photon_columns(std::vector<int> const& zs,
                                                           TableGrid const& grid,
                                                           bool compton_binding,
                                                           ElementDataSink const& sink)
{
    std::size_t const n = grid.size;
    std::map<int, ElementPhotonColumns> result;
    for (int z : zs)
    {
        auto& c = result[z];
        for (auto* v : {&c.photo, &c.incoherent, &c.coherent, &c.pair})
            v->resize(n);
    }
    parallel_for_each(zs.size() * n,
                      [&](std::size_t j)
                      {
                          int const z = zs[j / n];
                          auto const i = static_cast<unsigned>(j % n);
                          double const E = grid.energy_MeV(i);
                          auto& c = result.at(z);
                          double const electrons_per_g =
                              z * constants::avogadro / element_data(z).atomic_weight_g_mol;
                          if (sink)
                          {
                              PhotonElementData const d = photon_element_data(z, E);
                              c.photo[i] = d.c.photo;
                              c.incoherent[i] =
                                  compton_binding
                                      ? d.c.incoherent
                                      : electrons_per_g * klein_nishina_per_electron_cm2(E);
                              c.coherent[i] = d.c.coherent;
                              c.pair[i] = d.c.pair();
                              sink(z, i, d);
                              return;
                          }
                          c.photo[i] = photoelectric_cm2_g(z, E);
                          c.incoherent[i] =
                              compton_binding ? incoherent_cm2_g(z, E)
                                              : electrons_per_g * klein_nishina_per_electron_cm2(E);
                          c.coherent[i] = coherent_cm2_g(z, E);
                          c.pair[i] = pair_nuclear_cm2_g(z, E) + pair_electron_cm2_g(z, E);
                      });
    return result;
}

//! int_{e0}^{e1} f(E) dE for a positive function known at the two ends, assuming a power
//! law between them.
double power_law_integral(double e0, double f0, double e1, double f1)
{
    double const p = std::log(f1 / f0) / std::log(e1 / e0);
    if (std::fabs(p + 1) < 1e-9)
        return f0 * e0 * std::log(e1 / e0);
    return f0 * e0 / (p + 1) * (std::pow(e1 / e0, p + 1) - 1);
}

//! The value at E [MeV] of a column on `grid`, as the transport reads its tables.
double lookup(TableGrid const& grid, double const* values, double energy_MeV)
{
    auto const view = make_log_grid<double>(grid.ln_emin, grid.delta, grid.size);
    unsigned i = 0;
    double f = 0;
    view.find(energy_MeV, i, f);
    return lerp_table(values, i, f);
}

void validate(std::vector<Material> const& materials, PhysicsTableOptions const& o)
{
    MCDOSE_VALIDATE(!materials.empty(), << "no materials to build physics tables for");
    for (auto const& m : materials)
        MCDOSE_VALIDATE(!m.components.empty(), << "material '" << m.name << "' has no elements");
    for (TableGrid const* g : {&o.photon_grid, &o.electron_grid})
    {
        MCDOSE_VALIDATE((g == &o.electron_grid && g->size == 0) || (g->size >= 2 && g->delta > 0),
                        << "a physics table grid needs at least 2 points and a positive step "
                           "(got "
                        << g->size << " points, step " << g->delta << ")");
    }
    MCDOSE_VALIDATE(o.electron_grid.size == 0 || (o.delta_cut_MeV > 0 && o.brems_cut_MeV > 0),
                    << "production cuts must be positive (delta rays " << o.delta_cut_MeV
                    << " MeV, bremsstrahlung " << o.brems_cut_MeV << " MeV)");
    MCDOSE_VALIDATE(!o.dosimetry || o.electron_grid.size > 0,
                    << "the dosimetry columns need the electron tables (mu_en uses the "
                       "electron radiation yield)");
}
} // namespace

char const* to_cstring(PhotonColumn c)
{
    static char const* const names[] = {"photo", "incoherent", "coherent", "pair", "mu", "mu_en"};
    static_assert(sizeof(names) / sizeof(names[0]) == n_photon, "one name per column");
    return names[static_cast<int>(c)];
}

char const* to_cstring(ElectronColumn c)
{
    static char const* const names[] = {"restricted_col_electron",
                                        "restricted_col_positron",
                                        "restricted_rad",
                                        "hard_moller",
                                        "hard_bhabha",
                                        "hard_brems",
                                        "annihilation",
                                        "transport_xs_electron",
                                        "transport_xs_positron",
                                        "transport_xs2_electron",
                                        "transport_xs2_positron",
                                        "s_col_electron",
                                        "s_col_positron",
                                        "s_rad",
                                        "csda_range_electron",
                                        "radiation_yield",
                                        "density_effect"};
    static_assert(sizeof(names) / sizeof(names[0]) == n_electron, "one name per column");
    return names[static_cast<int>(c)];
}

bool is_dosimetry(PhotonColumn c)
{
    return c == PhotonColumn::mu_en;
}

bool is_dosimetry(ElectronColumn c)
{
    return c >= ElectronColumn::s_col_electron;
}

std::vector<double> TableGrid::energies_MeV() const
{
    std::vector<double> e(size);
    for (unsigned i = 0; i < size; ++i)
        e[i] = energy_MeV(i);
    return e;
}

//---------------------------------------------------------------------------//
PhysicsTables::PhysicsTables(std::vector<Material> materials, PhysicsTableOptions const& options)
    : materials_(std::move(materials)), options_(options)
{
    validate(materials_, options_);
    // Electrons first: the photons' mu_en needs the radiation yield.
    if (has_electrons())
    {
        for (auto const& m : materials_)
            physics_.emplace_back(m);
        build_electron_columns();
        if (options_.dosimetry)
            build_range_and_yield();
    }
    build_photon_columns();
}

double* PhysicsTables::photon_data(std::uint32_t m, PhotonColumn c)
{
    auto const n = options_.photon_grid.size;
    return photon_.data() + (std::size_t(m) * n_photon + static_cast<std::uint32_t>(c)) * n;
}

double* PhysicsTables::electron_data(std::uint32_t m, ElectronColumn c)
{
    auto const n = options_.electron_grid.size;
    return electron_.data() + (std::size_t(m) * n_electron + static_cast<std::uint32_t>(c)) * n;
}

//! The transported photon columns: per-element cross sections mixed by mass fraction
//! (component order), mu their sum. With the dosimetry columns also mu_en/rho
//! (PhotonPhysics.hh: Seltzer 1993) with the radiation yield of the electron tables,
//! looked up as the transport reads them: each component's share w (mu_tr - radiated) is
//! formed where its element is evaluated, and the shares summed in component order.
void PhysicsTables::build_photon_columns()
{
    TableGrid const& grid = options_.photon_grid;
    unsigned const n = grid.size;
    photon_.assign(std::size_t(num_materials()) * n_photon * n, 0);
    partial_offset_.clear();
    std::uint32_t parts = 0;
    for (auto const& m : materials_)
    {
        partial_offset_.push_back(parts);
        parts += static_cast<std::uint32_t>(m.components.size());
    }
    photo_partial_.assign(std::size_t(parts) * n, 0);
    std::vector<double> mu_en_parts;
    ElementDataSink sink;
    if (options_.dosimetry)
    {
        mu_en_parts.assign(std::size_t(parts) * n, 0);
        sink = [&](int z, unsigned i, PhotonElementData const& d)
        {
            for (std::uint32_t m = 0; m < num_materials(); ++m)
            {
                YieldFunction const yield = [this, m](double T)
                { return electron(m, ElectronColumn::radiation_yield, T); };
                auto const& comps = materials_[m].components;
                for (std::size_t k = 0; k < comps.size(); ++k)
                {
                    if (comps[k].atomic_number != z)
                        continue;
                    PhotonCoefficients share;
                    add_element(&share, d, comps[k].mass_fraction, grid.energy_MeV(i), yield);
                    mu_en_parts[(partial_offset_[m] + k) * n + i] = share.mu_en;
                }
            }
        };
    }
    auto const el =
        element_photon_columns(unique_elements(materials_), grid, options_.compton_binding, sink);
    for (std::uint32_t m = 0; m < num_materials(); ++m)
    {
        auto const& comps = materials_[m].components;
        for (unsigned i = 0; i < n; ++i)
        {
            double photo = 0, inc = 0, coh = 0, pair = 0, mu_en = 0;
            for (std::size_t k = 0; k < comps.size(); ++k)
            {
                auto const& t = el.at(comps[k].atomic_number);
                double const w = comps[k].mass_fraction;
                double const part = w * t.photo[i];
                photo_partial_[(partial_offset_[m] + k) * n + i] = part;
                photo += part;
                inc += w * t.incoherent[i];
                coh += w * t.coherent[i];
                pair += w * t.pair[i];
                if (!mu_en_parts.empty())
                    mu_en += mu_en_parts[(partial_offset_[m] + k) * n + i];
            }
            double const mu = photo + inc + coh + pair;
            MCDOSE_VALIDATE(mu > 0 && std::isfinite(mu),
                            << "material '" << materials_[m].name
                            << "': photon attenuation is not positive at " << grid.energy_MeV(i)
                            << " MeV");
            photon_data(m, PhotonColumn::photo)[i] = photo;
            photon_data(m, PhotonColumn::incoherent)[i] = inc;
            photon_data(m, PhotonColumn::coherent)[i] = coh;
            photon_data(m, PhotonColumn::pair)[i] = pair;
            photon_data(m, PhotonColumn::mu)[i] = mu;
            photon_data(m, PhotonColumn::mu_en)[i] = mu_en;
        }
    }
}

//! The electron columns from ElectronPhysics, point by point; the dosimetry ones too
//! when asked.
void PhysicsTables::build_electron_columns()
{
    TableGrid const& grid = options_.electron_grid;
    auto const& o = options_;
    electron_.assign(std::size_t(num_materials()) * n_electron * grid.size, 0);
    // One work item per (material, grid point): all threads busy for a few materials too.
    parallel_for_each(
        std::size_t(num_materials()) * grid.size,
        [&](std::size_t j)
        {
            auto const m = static_cast<std::uint32_t>(j / grid.size);
            auto const i = static_cast<unsigned>(j % grid.size);
            ElectronPhysics const& phys = physics_[m];
            double const E = grid.energy_MeV(i);
            auto set = [&](ElectronColumn c, double value) { electron_data(m, c)[i] = value; };
            using C = ElectronColumn;
            Lepton const em = Lepton::electron;
            Lepton const ep = Lepton::positron;
            set(C::restricted_col_electron,
                phys.restricted_collision_stopping(E, o.delta_cut_MeV, em));
            set(C::restricted_col_positron,
                phys.restricted_collision_stopping(E, o.delta_cut_MeV, ep));
            set(C::restricted_rad, phys.restricted_radiative_stopping(E, o.brems_cut_MeV));
            set(C::hard_moller, phys.hard_collision_cross_section(E, o.delta_cut_MeV, em));
            set(C::hard_bhabha, phys.hard_collision_cross_section(E, o.delta_cut_MeV, ep));
            set(C::hard_brems, phys.hard_brems_cross_section(E, o.brems_cut_MeV));
            set(C::annihilation, phys.annihilation_cross_section(E));
            set(C::transport_xs_electron, phys.transport_cross_section(E, em));
            set(C::transport_xs_positron, phys.transport_cross_section(E, ep));
            set(C::transport_xs2_electron, phys.second_transport_cross_section(E, em));
            set(C::transport_xs2_positron, phys.second_transport_cross_section(E, ep));
            if (!o.dosimetry)
                return;
            set(C::s_col_electron, phys.collision_stopping(E, em));
            set(C::s_col_positron, phys.collision_stopping(E, ep));
            set(C::s_rad, phys.radiative_stopping(E));
            set(C::density_effect, phys.delta(E));
        });
}

//! CSDA range R(T) = int_0^T dT'/S_tot(T') (ICRU-37 Eq. 2.14) and radiation yield
//! Y(T) = (1/T) int_0^T S_rad/S_tot dT' (Eq. 2.16) of electrons: exact integrals of power
//! laws between grid points; below the first point S_tot is extended as the power law of
//! the first interval, and S_rad/S_tot as a constant.
void PhysicsTables::build_range_and_yield()
{
    TableGrid const& g = options_.electron_grid;
    std::size_t const n = g.size;
    std::vector<double> const e = g.energies_MeV();
    for (std::uint32_t m = 0; m < num_materials(); ++m)
    {
        double const* scol = electron_data(m, ElectronColumn::s_col_electron);
        double const* srad = electron_data(m, ElectronColumn::s_rad);
        double* range = electron_data(m, ElectronColumn::csda_range_electron);
        double* yield = electron_data(m, ElectronColumn::radiation_yield);
        std::vector<double> stot(n);
        for (std::size_t i = 0; i < n; ++i)
            stot[i] = scol[i] + srad[i];
        double const p = std::log(stot[1] / stot[0]) / std::log(e[1] / e[0]);
        MCDOSE_VALIDATE(p < 1, << "material '" << materials_[m].name
                               << "': stopping power rises too steeply at the lowest table "
                                  "energy to extrapolate the range to 0");
        range[0] = e[0] / (stot[0] * (1 - p));
        double yield_integral = e[0] * srad[0] / stot[0];
        yield[0] = srad[0] / stot[0];
        for (std::size_t i = 1; i < n; ++i)
        {
            range[i] =
                range[i - 1] + power_law_integral(e[i - 1], 1 / stot[i - 1], e[i], 1 / stot[i]);
            yield_integral +=
                power_law_integral(e[i - 1], srad[i - 1] / stot[i - 1], e[i], srad[i] / stot[i]);
            yield[i] = yield_integral / e[i];
        }
    }
}

std::array<std::vector<double>, 2>
PhysicsTables::restricted_collision_at_density(std::uint32_t m, double density_g_cm3) const
{
    MCDOSE_VALIDATE(has_electrons() && m < num_materials(),
                    << "no electron tables of material " << m << " in these physics tables");
    MCDOSE_VALIDATE(density_g_cm3 > 0 && std::isfinite(density_g_cm3),
                    << "material '" << materials_[m].name << "': the density-effect correction "
                    << "needs a positive density (got " << density_g_cm3 << " g/cm^3)");
    Material at_density = materials_[m];
    at_density.density_g_cm3 = density_g_cm3;
    ElectronPhysics const phys(at_density);
    TableGrid const& grid = options_.electron_grid;
    std::array<std::vector<double>, 2> result{std::vector<double>(grid.size),
                                              std::vector<double>(grid.size)};
    parallel_for_each(grid.size,
                      [&](std::size_t i)
                      {
                          double const E = grid.energy_MeV(static_cast<unsigned>(i));
                          result[0][i] = phys.restricted_collision_stopping(
                              E, options_.delta_cut_MeV, Lepton::electron);
                          result[1][i] = phys.restricted_collision_stopping(
                              E, options_.delta_cut_MeV, Lepton::positron);
                      });
    return result;
}

//---------------------------------------------------------------------------//
std::uint32_t PhysicsTables::material_index(std::string const& name) const
{
    Material const& m = find_material(name, materials_);
    for (std::uint32_t i = 0; i < materials_.size(); ++i)
    {
        if (materials_[i].name == m.name)
            return i;
    }
    MCDOSE_VALIDATE(false, << "material '" << name
                           << "' is in the catalogue but not among the materials of these "
                              "tables; add it to the study's materials");
    return 0;
}

ElectronPhysics const& PhysicsTables::electron_physics(std::uint32_t m) const
{
    MCDOSE_VALIDATE(has_electrons() && m < num_materials(),
                    << "no electron models of material " << m << " in these physics tables");
    return physics_[m];
}

Span<double const> PhysicsTables::photon_column(std::uint32_t m, PhotonColumn c) const
{
    MCDOSE_VALIDATE(m < num_materials() && c < PhotonColumn::size_,
                    << "no photon column " << static_cast<unsigned>(c) << " of material " << m);
    MCDOSE_VALIDATE(options_.dosimetry || !is_dosimetry(c),
                    << "photon column '" << to_cstring(c)
                    << "' is built only with the dosimetry option");
    auto const n = options_.photon_grid.size;
    return {photon_.data() + (std::size_t(m) * n_photon + static_cast<std::uint32_t>(c)) * n, n};
}

Span<double const> PhysicsTables::electron_column(std::uint32_t m, ElectronColumn c) const
{
    MCDOSE_VALIDATE(has_electrons(), << "these physics tables have no electron tables");
    MCDOSE_VALIDATE(m < num_materials() && c < ElectronColumn::size_,
                    << "no electron column " << static_cast<unsigned>(c) << " of material " << m);
    MCDOSE_VALIDATE(options_.dosimetry || !is_dosimetry(c),
                    << "electron column '" << to_cstring(c)
                    << "' is built only with the dosimetry option");
    auto const n = options_.electron_grid.size;
    return {electron_.data() + (std::size_t(m) * n_electron + static_cast<std::uint32_t>(c)) * n,
            n};
}

Span<double const> PhysicsTables::photo_partial(std::uint32_t m, std::uint32_t k) const
{
    MCDOSE_EXPECT(m < num_materials() && k < materials_[m].components.size());
    auto const n = options_.photon_grid.size;
    return {photo_partial_.data() + (std::size_t(partial_offset_[m]) + k) * n, n};
}

double PhysicsTables::photon(std::uint32_t m, PhotonColumn c, double energy_MeV) const
{
    return lookup(options_.photon_grid, photon_column(m, c).data(), energy_MeV);
}

double PhysicsTables::electron(std::uint32_t m, ElectronColumn c, double energy_MeV) const
{
    return lookup(options_.electron_grid, electron_column(m, c).data(), energy_MeV);
}
} // namespace mcdose
