//! \file transport/engine/TransportParams.cc
#include "transport/engine/TransportParams.hh"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

#include "core/DeviceBuffer.hh"

namespace mcdose
{
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
TransportParams::TransportParams(std::vector<Material> const& materials,
                                 VoxelGridParams const& grid, TransportOptions const& options)
    : TransportParams(std::make_shared<TransportTables const>(
                          build_transport_tables(transport_table_inputs(materials, grid, options))),
                      grid, options)
{
}

TransportParams::TransportParams(std::shared_ptr<TransportTables const> tables,
                                 VoxelGridParams const& grid, TransportOptions const& options)
    : options_(options), host_(std::move(tables)), grid_(&grid)
{
    MCDOSE_VALIDATE(host_ && host_->num_materials == grid.num_materials() &&
                        host_->grid.size == physics_table_options(options).photon_grid.size &&
                        (host_->electron.size > 0) == options.electron.condensed_history,
                    << "the transport tables were built for another phantom or other physics "
                       "options; build them with transport_table_inputs of this phantom and "
                       "these options");
    n_ = host_->grid.size;
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

namespace
{
//! Guards the params' lazily made copies (view, free_device_copies).
std::mutex build_mutex;
} // namespace

void TransportParams::free_device_copies() const
{
    std::lock_guard<std::mutex> lock(build_mutex);
    store_f_[1].reset();
    store_d_[1].reset();
}

template <class Real>
TransportView<Real> TransportParams::view(MemSpace where) const
{
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
