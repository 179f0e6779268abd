//! \file transport/engine/TransportParams.cc
#include "transport/engine/TransportParams.hh"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include <xraylib.h>

#include "core/DeviceBuffer.hh"
#include "phantoms/materials/Element.hh"
#include "transport/physics/SamplingTables.hh"

namespace mcdose
{
namespace
{
//! Relative atom counts n_i = w_i / A_i of a material (per gram / N_A).
std::vector<double> atoms_per_gram(Material const& m)
{
    std::vector<double> n;
    for (auto const& c : m.components)
        n.push_back(c.mass_fraction / element_data(c.atomic_number).atomic_weight_g_mol);
    return n;
}

//! The densities at which each material occurs (voxels of density 0 left out).
std::vector<DensityRange> voxel_density_ranges(VoxelGridParams const& voxels)
{
    std::vector<DensityRange> ranges(voxels.num_materials(), DensityRange{HUGE_VAL, 0.0});
    auto const& mat = voxels.material();
    auto const& rho = voxels.density_g_cm3();
    for (std::size_t v = 0; v < mat.size(); ++v)
    {
        if (!(rho[v] > 0))
            continue;
        DensityRange& r = ranges[mat[v]];
        r.min_g_cm3 = std::min(r.min_g_cm3, double(rho[v]));
        r.max_g_cm3 = std::max(r.max_g_cm3, double(rho[v]));
    }
    for (auto& r : ranges)
    {
        if (r.max_g_cm3 == 0)
            r.min_g_cm3 = 0;
    }
    return ranges;
}

void validate_inputs(std::vector<Material> const& materials, VoxelGridParams const& grid)
{
    MCDOSE_VALIDATE(!materials.empty(), << "the phantom has no materials");
    MCDOSE_VALIDATE(materials.size() == grid.num_materials(),
                    << "phantom uses " << grid.num_materials() << " materials but "
                    << materials.size() << " were resolved");
    for (auto const& m : materials)
    {
        MCDOSE_VALIDATE(!m.components.empty(), << "material '" << m.name << "' has no elements");
        MCDOSE_VALIDATE(m.components.size() < 256, << "a material has more than 255 elements");
    }
}
} // namespace

PhysicsTableOptions physics_table_options(TransportOptions const& options)
{
    MCDOSE_VALIDATE(options.emin_MeV > 0 && options.emax_MeV > options.emin_MeV,
                    << "photon table range [" << options.emin_MeV << ", " << options.emax_MeV
                    << "] MeV is empty");
    MCDOSE_VALIDATE(options.emin_MeV >= 1e-3 && options.emax_MeV <= 100,
                    << "photon tables cover 1 keV to 100 MeV (asked [" << options.emin_MeV << ", "
                    << options.emax_MeV << "] MeV)");
    MCDOSE_VALIDATE(options.points_per_decade >= 20,
                    << "'points_per_decade' must be at least 20 (got " << options.points_per_decade
                    << ")");
    PhysicsTableOptions t;
    TableGrid& g = t.photon_grid;
    g.ln_emin = std::log(options.emin_MeV);
    g.delta = std::log(10.0) / options.points_per_decade;
    g.size =
        static_cast<unsigned>(std::ceil(std::log(options.emax_MeV / options.emin_MeV) / g.delta)) +
        1;
    t.compton_binding = options.compton_binding;
    if (options.electron.condensed_history)
    {
        t.electron_grid = electron_table_grid(options.emax_MeV, options.electron);
        t.delta_cut_MeV = options.electron.delta_cut_MeV;
        t.brems_cut_MeV = options.electron.brems_cut_MeV;
    }
    return t;
}

//---------------------------------------------------------------------------//
//! Everything in double on the host; views convert to the transport precision.
struct TransportParams::HostData
{
    TableGrid grid; //!< the photon grid
    std::vector<double> mu_rho, branch_cdf, element_cdf, majorant_per_cm;
    std::vector<std::uint16_t> element_index;
    std::vector<std::uint8_t> num_elements;
    unsigned num_materials{0}, max_elements{0};

    // Photoelectric shells per element (unique Z over the materials).
    std::vector<int> elements_z;
    std::vector<double> shell_binding_MeV, shell_probability;
    std::vector<std::uint32_t> shell_offset; // size elements + 1

    // Rayleigh and Compton tables per material (flat, with offsets)
    std::vector<double> ray_x2, ray_f2, ray_cum;
    std::vector<std::uint32_t> ray_offset;
    std::vector<double> inc_x, inc_s, inc_electrons;
    std::vector<std::uint32_t> inc_offset;

    // Pair production per material
    std::vector<int> pair_z;
    std::vector<double> pair_cdf;
    std::vector<std::uint32_t> pair_offset;

    // Electrons and positrons
    ElectronHostTables electron;

    void fill_photon_tables(PhysicsTables const& tables);
    void fill_majorant(std::vector<DensityRange> const& densities);
    void fill_photoelectric_shells();
    void fill_sampling_tables(std::vector<Material> const& materials);
};

//! Typed copies of the host data in one memory space, with the views into them.
template <class Real>
struct TransportParams::Store
{
    std::vector<std::shared_ptr<void>> owners;
    TransportView<Real> view;

    //! Host vector -> span in `where` (a device copy is kept alive in owners).
    template <class T>
    Span<T const> place(std::vector<T> host, MemSpace where)
    {
        auto keep = std::make_shared<std::vector<T>>(std::move(host));
        owners.push_back(keep);
        if (where == MemSpace::host)
            return {keep->data(), keep->size()};
        auto dev = std::make_shared<DeviceBuffer<T>>(make_span(*keep));
        owners.push_back(dev);
        return {dev->data(), dev->size()};
    }
    template <class T>
    static std::vector<Real> convert(std::vector<T> const& v)
    {
        return std::vector<Real>(v.begin(), v.end());
    }

    //! The electron part of the view: options, and the tables with condensed history.
    void place_electron(ElectronHostTables const& et, ElectronTransportOptions const& eo,
                        MemSpace where)
    {
        auto& ev = view.electron;
        ev.condensed_history = eo.condensed_history;
        ev.absorption_MeV = Real(eo.absorption_MeV);
        ev.delta_cut_MeV = Real(eo.delta_cut_MeV);
        ev.brems_cut_MeV = Real(eo.brems_cut_MeV);
        ev.max_loss_fraction = Real(eo.max_loss_fraction);
        ev.max_mfp_fraction = Real(eo.max_mfp_fraction);
        ev.discard_brems_photons = eo.discard_brems_photons;
        if (!eo.condensed_history)
            return;
        ev.grid = make_log_grid<Real>(et.ln_emin, et.delta, et.size);
        ev.stopping = place(convert(et.stopping), where);
        std::vector<DensityNodesView<Real>> nodes;
        for (DensityNodes const& d : et.density_nodes)
        {
            nodes.push_back({Real(d.ln_density_min), d.ln_step > 0 ? Real(1 / d.ln_step) : Real(0),
                             d.first, d.count});
        }
        ev.density_nodes = place(std::move(nodes), where);
        ev.transport_xs = place(convert(et.transport_xs), where);
        ev.hard_xs = place(convert(et.hard_xs), where);
        ev.hard_majorant = place(convert(et.hard_majorant), where);
        ev.brems.points = et.brems_points;
        ev.brems.grid_size = et.size;
        ev.brems.shape = place(convert(et.brems_shape), where);
        ev.transport_xs2 = place(convert(et.transport_xs2), where);
        ev.msc.m1_min = Real(et.msc_m1_min);
        ev.msc.m1_max = Real(et.msc_m1_max);
        ev.msc.m1_grid =
            make_log_grid<Real>(et.msc_ln_m1_min, et.msc_m1_delta, et.msc_ln_screening.size());
        ev.msc.ln_screening = place(convert(et.msc_ln_screening), where);
        ev.msc.second_moment = place(convert(et.msc_second_moment), where);
        ev.msc.ratio_grid = make_log_grid<Real>(et.msc_ln_ratio_min, et.msc_ratio_delta,
                                                et.msc_ln_screening_of_ratio.size());
        ev.msc.ln_screening_of_ratio = place(convert(et.msc_ln_screening_of_ratio), where);
        ev.msc.mean_of_ratio = place(convert(et.msc_mean_of_ratio), where);
    }
};

//---------------------------------------------------------------------------//
//! mu/rho, the process CDF (photo, + incoherent, + coherent; pair the rest) and the
//! photoabsorbing element's CDF per material and grid point, from the builder's columns.
void TransportParams::HostData::fill_photon_tables(PhysicsTables const& tables)
{
    auto const& materials = tables.materials();
    unsigned const n = grid.size;
    num_materials = tables.num_materials();
    std::map<int, std::uint16_t> z_to_index;
    for (auto const& m : materials)
    {
        max_elements = std::max<unsigned>(max_elements, m.components.size());
        for (auto const& c : m.components)
            z_to_index.emplace(c.atomic_number, 0);
    }
    for (auto& [z, idx] : z_to_index)
    {
        idx = static_cast<std::uint16_t>(elements_z.size());
        elements_z.push_back(z);
    }
    unsigned const me = max_elements;
    mu_rho.assign(num_materials * n, 0);
    branch_cdf.assign(num_materials * n * 3, 0);
    element_cdf.assign(num_materials * n * me, 1);
    element_index.assign(num_materials * me, 0);
    num_elements.assign(num_materials, 0);
    for (unsigned m = 0; m < num_materials; ++m)
    {
        auto const& comps = materials[m].components;
        num_elements[m] = comps.size();
        for (std::size_t k = 0; k < comps.size(); ++k)
            element_index[m * me + k] = z_to_index.at(comps[k].atomic_number);
        auto const photo = tables.photon_column(m, PhotonColumn::photo);
        auto const inc = tables.photon_column(m, PhotonColumn::incoherent);
        auto const coh = tables.photon_column(m, PhotonColumn::coherent);
        auto const mu = tables.photon_column(m, PhotonColumn::mu);
        for (unsigned i = 0; i < n; ++i)
        {
            mu_rho[m * n + i] = mu[i];
            double* cdf = &branch_cdf[(m * n + i) * 3];
            cdf[0] = photo[i] / mu[i];
            cdf[1] = (photo[i] + inc[i]) / mu[i];
            cdf[2] = (photo[i] + inc[i] + coh[i]) / mu[i];
            double acc = 0;
            for (std::size_t k = 0; k < comps.size(); ++k)
            {
                acc += tables.photo_partial(m, k)[i];
                element_cdf[(m * n + i) * me + k] = photo[i] > 0 ? acc / photo[i] : 1.0;
            }
            element_cdf[(m * n + i) * me + comps.size() - 1] = 1.0;
        }
    }
}

//! Woodcock majorant: per material the densest voxel, per bin the larger end.
void TransportParams::HostData::fill_majorant(std::vector<DensityRange> const& densities)
{
    unsigned const n = grid.size;
    majorant_per_cm.assign(n, 0);
    for (unsigned i = 0; i < n; ++i)
    {
        double maj = 0;
        for (unsigned m = 0; m < num_materials; ++m)
        {
            double const mu_hi =
                std::max(mu_rho[m * n + i], mu_rho[m * n + std::min(i + 1, n - 1)]);
            maj = std::max(maj, mu_hi * float(densities[m].max_g_cm3));
        }
        // Slightly above the float rounding of the tables (so mu <= majorant holds
        // in float transport too).
        majorant_per_cm[i] = maj * (1 + 1e-6);
    }
}

//! Photoelectric shells (xraylib EdgeEnergy and JumpFactor; jump-ratio
//! approximation, see PhotoelectricData.hh): K, L1, L2, L3 with probability
//! 1 - 1/J, then an outer shell (M1 edge, or 0) taking the rest.
void TransportParams::HostData::fill_photoelectric_shells()
{
    shell_offset.push_back(0);
    for (int z : elements_z)
    {
        int const shells[] = {K_SHELL, L1_SHELL, L2_SHELL, L3_SHELL};
        for (int s : shells)
        {
            xrl_error* err = nullptr;
            double const edge_keV = EdgeEnergy(z, s, &err);
            if (err)
            {
                xrl_error_free(err);
                continue; // shell absent for this Z
            }
            err = nullptr;
            double const jump = JumpFactor(z, s, &err);
            if (err || !(jump > 1))
            {
                if (err)
                    xrl_error_free(err);
                continue;
            }
            shell_binding_MeV.push_back(edge_keV * 1e-3);
            shell_probability.push_back(1 - 1 / jump);
        }
        xrl_error* err = nullptr;
        double outer_keV = EdgeEnergy(z, M1_SHELL, &err);
        if (err)
        {
            xrl_error_free(err);
            outer_keV = 0;
        }
        shell_binding_MeV.push_back(outer_keV * 1e-3);
        shell_probability.push_back(1.0);
        shell_offset.push_back(shell_binding_MeV.size());
    }
}

//! Rayleigh F^2 and Compton S per material (transport/physics/SamplingTables), and the
//! pair target selection.
void TransportParams::HostData::fill_sampling_tables(std::vector<Material> const& materials)
{
    ray_offset.push_back(0);
    inc_offset.push_back(0);
    for (unsigned m = 0; m < num_materials; ++m)
    {
        auto const& comps = materials[m].components;
        auto const n_atoms = atoms_per_gram(materials[m]);
        auto const ray = build_rayleigh_table(materials[m]);
        ray_x2.insert(ray_x2.end(), ray.x2_per_A2.begin(), ray.x2_per_A2.end());
        ray_f2.insert(ray_f2.end(), ray.f2.begin(), ray.f2.end());
        ray_cum.insert(ray_cum.end(), ray.cumulative.begin(), ray.cumulative.end());
        ray_offset.push_back(ray_x2.size());

        auto const inc = build_incoherent_table(materials[m]);
        inc_x.insert(inc_x.end(), inc.x_per_A.begin(), inc.x_per_A.end());
        inc_s.insert(inc_s.end(), inc.s.begin(), inc.s.end());
        inc_electrons.push_back(inc.electrons);
        inc_offset.push_back(inc_x.size());

        // Pair: target selection weights n_i Z_i (Z_i + 1) (PairProductionData.hh).
        std::vector<int> zs;
        for (auto const& c : comps)
            zs.push_back(c.atomic_number);
        auto const cdf = pair_selection_cdf(zs, n_atoms);
        pair_z.insert(pair_z.end(), zs.begin(), zs.end());
        pair_cdf.insert(pair_cdf.end(), cdf.begin(), cdf.end());
        pair_offset.push_back(pair_z.size() - zs.size());
    }
    pair_offset.push_back(pair_z.size());
}

//---------------------------------------------------------------------------//
TransportParams::TransportParams(std::vector<Material> const& materials,
                                 VoxelGridParams const& grid, TransportOptions const& options)
    : options_(options), host_(std::make_unique<HostData>()), grid_(&grid)
{
    validate_inputs(materials, grid);
    PhysicsTables const tables(materials, physics_table_options(options));
    auto& h = *host_;
    h.grid = tables.options().photon_grid;
    n_ = h.grid.size;
    auto const densities = voxel_density_ranges(grid);
    h.fill_photon_tables(tables);
    h.fill_majorant(densities);
    h.fill_photoelectric_shells();
    h.fill_sampling_tables(materials);
    if (options.electron.condensed_history)
        h.electron = build_electron_tables(tables, options.electron, densities);
}

TransportParams::~TransportParams() = default;
TransportParams::TransportParams(TransportParams&&) noexcept = default;

std::vector<double> TransportParams::energies_MeV() const
{
    return host_->grid.energies_MeV();
}

std::vector<double> TransportParams::mu_rho(unsigned m) const
{
    MCDOSE_EXPECT(m < host_->num_materials);
    return {host_->mu_rho.begin() + m * n_, host_->mu_rho.begin() + (m + 1) * n_};
}

template <class Real>
TransportView<Real> TransportParams::view(MemSpace where) const
{
    static std::mutex build_mutex;
    std::lock_guard<std::mutex> lock(build_mutex);
    int const slot = where == MemSpace::host ? 0 : 1;
    std::unique_ptr<Store<Real>>* store_ptr;
    if constexpr (std::is_same<Real, float>::value)
        store_ptr = &store_f_[slot];
    else
        store_ptr = &store_d_[slot];
    if (*store_ptr)
        return (*store_ptr)->view;

    auto store = std::make_unique<Store<Real>>();
    auto& s = *store;
    auto const& h = *host_;
    using S = Store<Real>;
    TransportView<Real>& v = s.view;

    VoxelGridView const grid_view =
        where == MemSpace::host ? grid_->host_view() : grid_->device_view();
    auto const& geo = grid_->geometry();
    v.geometry = make_voxel_geometry<Real>(geo.dims, geo.spacing_cm, {{0, 0, 0}});
    v.material = grid_view.material;
    v.density_g_cm3 = grid_view.density_g_cm3;

    v.grid = make_log_grid<Real>(h.grid.ln_emin, h.grid.delta, n_);
    v.num_materials = h.num_materials;
    v.max_elements = h.max_elements;
    v.mu_rho = s.place(S::convert(h.mu_rho), where);
    v.branch_cdf = s.place(S::convert(h.branch_cdf), where);
    v.element_cdf = s.place(S::convert(h.element_cdf), where);
    v.element_index = s.place(h.element_index, where);
    v.num_elements = s.place(h.num_elements, where);
    v.majorant_per_cm = s.place(S::convert(h.majorant_per_cm), where);

    // Nested views: place the flat arrays first, then views pointing into them.
    {
        auto bind = s.place(S::convert(h.shell_binding_MeV), where);
        auto prob = s.place(S::convert(h.shell_probability), where);
        std::vector<PhotoelectricShellsView<Real>> shells;
        for (std::size_t e = 0; e + 1 < h.shell_offset.size(); ++e)
        {
            auto const b = h.shell_offset[e], n = h.shell_offset[e + 1] - b;
            shells.push_back({bind.subspan(b, n), prob.subspan(b, n)});
        }
        v.photo.elements = s.place(std::move(shells), where);
    }
    {
        auto x2 = s.place(S::convert(h.ray_x2), where);
        auto f2 = s.place(S::convert(h.ray_f2), where);
        auto cum = s.place(S::convert(h.ray_cum), where);
        auto x = s.place(S::convert(h.inc_x), where);
        auto sx = s.place(S::convert(h.inc_s), where);
        std::vector<RayleighTableView<Real>> ray;
        std::vector<IncoherentTableView<Real>> inc;
        for (unsigned m = 0; m < h.num_materials; ++m)
        {
            auto const rb = h.ray_offset[m], rn = h.ray_offset[m + 1] - rb;
            ray.push_back({x2.subspan(rb, rn), f2.subspan(rb, rn), cum.subspan(rb, rn)});
            auto const ib = h.inc_offset[m], in = h.inc_offset[m + 1] - ib;
            inc.push_back({x.subspan(ib, in), sx.subspan(ib, in), Real(h.inc_electrons[m])});
        }
        v.rayleigh.materials = s.place(std::move(ray), where);
        v.compton.materials = s.place(std::move(inc), where);
    }
    {
        std::vector<PairElementView<Real>> elements;
        for (int z : h.pair_z)
            elements.push_back(make_pair_element<Real>(z));
        auto els = s.place(std::move(elements), where);
        auto cdf = s.place(S::convert(h.pair_cdf), where);
        std::vector<PairMaterialView<Real>> mats;
        for (unsigned m = 0; m < h.num_materials; ++m)
        {
            auto const b = h.pair_offset[m], n = h.pair_offset[m + 1] - b;
            mats.push_back({els.subspan(b, n), cdf.subspan(b, n)});
        }
        v.pair.materials = s.place(std::move(mats), where);
    }

    s.place_electron(h.electron, options_.electron, where);

    v.photon_cutoff_MeV = Real(options_.photon_cutoff_MeV);
    v.tracking = options_.tracking;
    v.compton_binding = options_.compton_binding;
    *store_ptr = std::move(store);
    return (*store_ptr)->view;
}

template TransportView<float> TransportParams::view<float>(MemSpace) const;
template TransportView<double> TransportParams::view<double>(MemSpace) const;
} // namespace mcdose
