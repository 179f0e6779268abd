//! \file transport/physics/PhysicsTables.cc
#include "transport/physics/PhysicsTables.hh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "phantoms/materials/Element.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/physics/Bremsstrahlung.hh"
#include "transport/physics/ElasticScattering.hh"
#include "transport/physics/ElectronPhysics.hh"
#include "transport/physics/PhotonPhysics.hh"
#include "transport/physics/Quadrature.hh"

namespace mcdose
{
char const* to_cstring(PhotonQuantity q)
{
    static char const* const names[] = {"mu",       "mu_en",        "photo",        "incoherent",
                                        "coherent", "pair_nuclear", "pair_electron"};
    return names[static_cast<int>(q)];
}

char const* to_cstring(ElectronQuantity q)
{
    static char const* const names[] = {"s_col_electron",
                                        "s_col_positron",
                                        "s_rad",
                                        "csda_range_electron",
                                        "radiation_yield",
                                        "density_effect",
                                        "restricted_col_electron",
                                        "restricted_col_positron",
                                        "restricted_rad",
                                        "hard_moller",
                                        "hard_bhabha",
                                        "hard_brems",
                                        "transport_xs_electron",
                                        "transport_xs_positron"};
    return names[static_cast<int>(q)];
}

PhysicsTableView TableData::host_view() const
{
    return {make_span(energy_MeV), make_span(values), make_span(refs), num_materials,
            num_quantities};
}

struct PhysicsTables::DeviceCopy
{
    DeviceBuffer<double> energy;
    DeviceBuffer<double> values;
    DeviceBuffer<TableRef> refs;
    PhysicsTableView view;
};

namespace
{
constexpr auto n_photon = static_cast<std::uint32_t>(PhotonQuantity::size_);
constexpr auto n_electron = static_cast<std::uint32_t>(ElectronQuantity::size_);

std::vector<double> log_grid(double emin, double emax, int per_decade)
{
    int const n = static_cast<int>(std::ceil(std::log10(emax / emin) * per_decade));
    std::vector<double> grid(n + 1);
    double const h = std::log(emax / emin) / n;
    for (int i = 0; i <= n; ++i)
        grid[i] = i == n ? emax : emin * std::exp(i * h);
    return grid;
}

//! Run f(i) for i in [0, n) on the hardware threads (the builders are independent per
//! index and write only their own slot).
template <class F>
void parallel_for(std::size_t n, F&& f)
{
    unsigned const hw = std::max(1u, std::thread::hardware_concurrency());
    std::size_t const nt = std::min<std::size_t>(hw, n);
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> threads;
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&]
    {
        for (std::size_t i = next++; i < n; i = next++)
        {
            try
            {
                f(i);
            }
            catch (...)
            {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error)
                    error = std::current_exception();
            }
        }
    };
    for (std::size_t t = 1; t < nt; ++t)
        threads.emplace_back(work);
    work();
    for (auto& t : threads)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

//! Per-atom electron quantities of one element on the shared grid.
struct ElementElectronData
{
    std::vector<double> rad_loss;      //!< int_0^T k dsigma/dk [MeV cm^2]
    std::vector<double> rad_loss_soft; //!< int_0^kc k dsigma/dk [MeV cm^2]
    std::vector<double> brems_hard;    //!< int_kc^T dsigma/dk [cm^2]
    std::vector<double> transport_em;  //!< sigma_1 e- [cm^2]
    std::vector<double> transport_ep;  //!< sigma_1 e+ [cm^2]
};

ElementElectronData element_electron_data(int Z, std::vector<double> const& grid,
                                          PhysicsTableOptions const& o)
{
    ElementElectronData d;
    std::size_t const n = grid.size();
    for (auto* v : {&d.rad_loss, &d.rad_loss_soft, &d.brems_hard, &d.transport_em, &d.transport_ep})
        v->resize(n);
    parallel_for(n,
                 [&](std::size_t i)
                 {
                     double const T = grid[i];
                     auto const b = brems_integrals(Z, T, o.photon_cut_MeV);
                     d.rad_loss[i] = b.loss_soft_cm2_MeV + b.loss_hard_cm2_MeV;
                     d.rad_loss_soft[i] = b.loss_soft_cm2_MeV;
                     d.brems_hard[i] = b.xs_hard_cm2;
                     d.transport_em[i] = elastic_transport_cross_section_cm2(Z, T, false);
                     d.transport_ep[i] = elastic_transport_cross_section_cm2(Z, T, true);
                 });
    return d;
}

//! int_{e0}^{e1} f(E) dE for a positive function known at the two ends, assuming a power
//! law between them (exact for the log–log interpolant of the tables).
double power_law_integral(double e0, double f0, double e1, double f1)
{
    double const p = std::log(f1 / f0) / std::log(e1 / e0);
    if (std::fabs(p + 1) < 1e-9)
        return f0 * e0 * std::log(e1 / e0);
    return f0 * e0 / (p + 1) * (std::pow(e1 / e0, p + 1) - 1);
}
} // namespace

PhysicsTables::PhysicsTables(std::vector<Material> materials, PhysicsTableOptions const& options)
    : materials_(std::move(materials)), options_(options)
{
    auto const& o = options_;
    MCDOSE_VALIDATE(!materials_.empty(), << "no materials to build physics tables for");
    MCDOSE_VALIDATE(o.min_energy_MeV > 0 && o.max_energy_MeV > o.min_energy_MeV,
                    << "physics table energy range [" << o.min_energy_MeV << ", "
                    << o.max_energy_MeV << "] MeV is empty; use 0 < min < max");
    MCDOSE_VALIDATE(o.electron_cut_MeV > 0 && o.photon_cut_MeV > 0,
                    << "production cuts must be positive (electron " << o.electron_cut_MeV
                    << " MeV, photon " << o.photon_cut_MeV << " MeV)");
    auto const nm = static_cast<std::uint32_t>(materials_.size());

    // ---- Electrons and positrons: one shared log grid ----
    std::vector<double> const grid =
        log_grid(o.min_energy_MeV, o.max_energy_MeV, o.electron_points_per_decade);
    std::size_t const n = grid.size();
    electron_.num_materials = nm;
    electron_.num_quantities = n_electron;
    std::map<int, ElementElectronData> per_element;
    for (auto const& m : materials_)
    {
        for (auto const& c : m.components)
        {
            if (!per_element.count(c.atomic_number))
                per_element.emplace(c.atomic_number,
                                    element_electron_data(c.atomic_number, grid, o));
        }
    }
    for (std::uint32_t mi = 0; mi < nm; ++mi)
    {
        auto const& m = materials_[mi];
        ElectronPhysics ep(m);
        auto const grid_offset = static_cast<std::uint32_t>(electron_.energy_MeV.size());
        electron_.energy_MeV.insert(electron_.energy_MeV.end(), grid.begin(), grid.end());
        std::vector<std::vector<double>> col(n_electron, std::vector<double>(n, 0.0));
        auto at = [&](ElectronQuantity q) -> std::vector<double>&
        { return col[static_cast<std::uint32_t>(q)]; };
        for (std::size_t i = 0; i < n; ++i)
        {
            double const T = grid[i];
            at(ElectronQuantity::s_col_electron)[i] = ep.collision_stopping(T, Lepton::electron);
            at(ElectronQuantity::s_col_positron)[i] = ep.collision_stopping(T, Lepton::positron);
            at(ElectronQuantity::density_effect)[i] = ep.delta(T);
            at(ElectronQuantity::restricted_col_electron)[i] =
                ep.restricted_collision_stopping(T, o.electron_cut_MeV, Lepton::electron);
            at(ElectronQuantity::restricted_col_positron)[i] =
                ep.restricted_collision_stopping(T, o.electron_cut_MeV, Lepton::positron);
            at(ElectronQuantity::hard_moller)[i] =
                ep.hard_collision_cross_section(T, o.electron_cut_MeV, Lepton::electron);
            at(ElectronQuantity::hard_bhabha)[i] =
                ep.hard_collision_cross_section(T, o.electron_cut_MeV, Lepton::positron);
            for (auto const& c : m.components)
            {
                double const atoms_per_g = c.mass_fraction * constants::avogadro /
                                           element_data(c.atomic_number).atomic_weight_g_mol;
                auto const& d = per_element.at(c.atomic_number);
                at(ElectronQuantity::s_rad)[i] += atoms_per_g * d.rad_loss[i];
                at(ElectronQuantity::restricted_rad)[i] += atoms_per_g * d.rad_loss_soft[i];
                at(ElectronQuantity::hard_brems)[i] += atoms_per_g * d.brems_hard[i];
                at(ElectronQuantity::transport_xs_electron)[i] += atoms_per_g * d.transport_em[i];
                at(ElectronQuantity::transport_xs_positron)[i] += atoms_per_g * d.transport_ep[i];
            }
        }
        // CSDA range R(T) = int_0^T dT'/S_tot(T') (ICRU-37 Eq. 2.14) and radiation yield
        // Y(T) = (1/T) int_0^T S_rad/S_tot dT' (Eq. 2.16): exact integrals of the power-law
        // (log–log) interpolants between grid points; below the first point S_tot is
        // extended as the power law of the first interval, and S_rad/S_tot as a constant.
        auto const& scol = at(ElectronQuantity::s_col_electron);
        auto const& srad = at(ElectronQuantity::s_rad);
        auto& range = at(ElectronQuantity::csda_range_electron);
        auto& yield = at(ElectronQuantity::radiation_yield);
        std::vector<double> stot(n);
        for (std::size_t i = 0; i < n; ++i)
            stot[i] = scol[i] + srad[i];
        {
            double const p = std::log(stot[1] / stot[0]) / std::log(grid[1] / grid[0]);
            MCDOSE_VALIDATE(p < 1, << "material '" << m.name
                                   << "': stopping power rises too steeply at the lowest table "
                                      "energy to extrapolate the range to 0");
            range[0] = grid[0] / (stot[0] * (1 - p));
        }
        double yield_integral = grid[0] * srad[0] / stot[0];
        yield[0] = srad[0] / stot[0];
        for (std::size_t i = 1; i < n; ++i)
        {
            range[i] = range[i - 1] +
                       power_law_integral(grid[i - 1], 1 / stot[i - 1], grid[i], 1 / stot[i]);
            yield_integral += power_law_integral(grid[i - 1], srad[i - 1] / stot[i - 1], grid[i],
                                                 srad[i] / stot[i]);
            yield[i] = yield_integral / grid[i];
        }
        for (std::uint32_t q = 0; q < n_electron; ++q)
        {
            electron_.refs.push_back({grid_offset,
                                      static_cast<std::uint32_t>(electron_.values.size()),
                                      static_cast<std::uint32_t>(n)});
            electron_.values.insert(electron_.values.end(), col[q].begin(), col[q].end());
        }
    }

    // ---- Photons: per-material grid with absorption-edge points ----
    // Element data are material independent: compute each (Z, E) once (the regular grid
    // points are shared by all materials), spread over threads, then mix per material.
    photon_.num_materials = nm;
    photon_.num_quantities = n_photon;
    std::vector<std::vector<double>> grids;
    std::map<int, std::vector<double>> energies_of_z;
    for (auto const& m : materials_)
    {
        grids.push_back(
            photon_energy_grid(m, o.min_energy_MeV, o.max_energy_MeV, o.photon_points_per_decade));
        for (auto const& c : m.components)
        {
            auto& v = energies_of_z[c.atomic_number];
            v.insert(v.end(), grids.back().begin(), grids.back().end());
        }
    }
    struct Job
    {
        int Z;
        double E;
    };
    std::vector<Job> jobs;
    for (auto& [Z, v] : energies_of_z)
    {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        for (double e : v)
            jobs.push_back({Z, e});
    }
    std::vector<PhotonElementData> results(jobs.size());
    parallel_for(jobs.size(),
                 [&](std::size_t j) { results[j] = photon_element_data(jobs[j].Z, jobs[j].E); });
    std::map<std::pair<int, double>, std::size_t> index;
    for (std::size_t j = 0; j < jobs.size(); ++j)
        index[{jobs[j].Z, jobs[j].E}] = j;

    auto const ev = electron_.host_view();
    for (std::uint32_t mi = 0; mi < nm; ++mi)
    {
        auto const& m = materials_[mi];
        auto const& pgrid = grids[mi];
        auto const grid_offset = static_cast<std::uint32_t>(photon_.energy_MeV.size());
        photon_.energy_MeV.insert(photon_.energy_MeV.end(), pgrid.begin(), pgrid.end());
        auto const yield_q = static_cast<std::uint32_t>(ElectronQuantity::radiation_yield);
        YieldFunction yield = [&](double T) { return interpolate(ev, mi, yield_q, T); };
        std::vector<std::vector<double>> col(n_photon, std::vector<double>(pgrid.size()));
        for (std::size_t i = 0; i < pgrid.size(); ++i)
        {
            PhotonCoefficients c;
            for (auto const& comp : m.components)
            {
                add_element(&c, results[index.at({comp.atomic_number, pgrid[i]})],
                            comp.mass_fraction, pgrid[i], yield);
            }
            double const vals[] = {c.mu,       c.mu_en,        c.photo,        c.incoherent,
                                   c.coherent, c.pair_nuclear, c.pair_electron};
            for (std::uint32_t q = 0; q < n_photon; ++q)
                col[q][i] = vals[q];
        }
        for (std::uint32_t q = 0; q < n_photon; ++q)
        {
            photon_.refs.push_back({grid_offset, static_cast<std::uint32_t>(photon_.values.size()),
                                    static_cast<std::uint32_t>(pgrid.size())});
            photon_.values.insert(photon_.values.end(), col[q].begin(), col[q].end());
        }
    }
}

PhysicsTables::~PhysicsTables() = default;
PhysicsTables::PhysicsTables(PhysicsTables&&) noexcept = default;
PhysicsTables& PhysicsTables::operator=(PhysicsTables&&) noexcept = default;

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

namespace
{
template <class Copy>
PhysicsTableView device_view_of(TableData const& data, std::unique_ptr<Copy>& copy)
{
    if (!copy)
    {
        auto c = std::make_unique<Copy>();
        c->energy = DeviceBuffer<double>(data.energy_MeV);
        c->values = DeviceBuffer<double>(data.values);
        c->refs = DeviceBuffer<TableRef>(data.refs);
        c->view = {c->energy.device_span(), c->values.device_span(), c->refs.device_span(),
                   data.num_materials, data.num_quantities};
        copy = std::move(c);
    }
    return copy->view;
}
} // namespace

PhysicsTableView PhysicsTables::photon_device_view() const
{
    return device_view_of(photon_, photon_device_);
}

PhysicsTableView PhysicsTables::electron_device_view() const
{
    return device_view_of(electron_, electron_device_);
}
} // namespace mcdose
