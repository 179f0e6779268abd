//! \file sources/SourceParams.cc
#include "sources/SourceParams.hh"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/Assert.hh"
#include "io/ImageIO.hh"
#include "phantoms/PhantomBuilder.hh"
#include "phantoms/VoxelGrid.hh"
#include "sources/BeamGeometry.hh"
#include "sources/PhaseSpaceSource.hh"
#include "sources/PlanSource.hh"
#include "sources/SourceInput.hh"

namespace mcdose
{
namespace
{
template <class Real>
Array3<Real> to_real(Array3<double> const& a)
{
    return {{Real(a[0]), Real(a[1]), Real(a[2])}};
}

double norm(Array3<double> const& a)
{
    return std::sqrt(dot(a, a));
}

//! The activity concentration at each phantom voxel's centre: the image voxel holding
//! it (0 outside the image).
std::vector<double> activity_at_voxels(std::string const& path, GridGeometry const& grid,
                                       std::string const& where)
{
    ScalarImage image;
    try
    {
        image = read_scalar_image(path);
    }
    catch (RuntimeError const& e)
    {
        MCDOSE_VALIDATE(false, << where << "/activity_image: " << e.what());
    }
    for (std::size_t v = 0; v < image.values.size(); ++v)
    {
        MCDOSE_VALIDATE(std::isfinite(image.values[v]) && image.values[v] >= 0,
                        << where << "/activity_image: '" << path << "' has the value "
                        << image.values[v] << " at voxel " << v
                        << "; activity concentrations must be finite and >= 0");
    }
    std::vector<double> result(grid.num_voxels(), 0.0);
    for (size_type v = 0; v < grid.num_voxels(); ++v)
    {
        Int3 at;
        Real3 const centre = grid.voxel_centre_cm(grid.ijk(v));
        if (image.geometry.find_local(image.geometry.to_local(centre), &at))
            result[v] = image.values[image.geometry.linear_index(at)];
    }
    return result;
}
} // namespace

std::vector<double> volume_emission_weights(VolumeInput const& in, Phantom const& phantom,
                                            std::string const& where)
{
    VoxelGridParams const& grid = phantom.grid;
    GridGeometry const& g = grid.geometry();
    std::vector<double> w;
    switch (in.emission)
    {
    case EmissionDensity::per_volume:
        w.assign(grid.num_voxels(), 1.0);
        break;
    case EmissionDensity::per_mass:
        w.assign(grid.density_g_cm3().begin(), grid.density_g_cm3().end());
        break;
    case EmissionDensity::activity:
        w = activity_at_voxels(in.activity_image, g, where);
        break;
    }
    if (in.material)
    {
        auto const& names = phantom.material_names;
        auto const it = std::find(names.begin(), names.end(), *in.material);
        if (it == names.end())
        {
            std::string list;
            for (auto const& n : names)
                list += (list.empty() ? "" : ", ") + n;
            MCDOSE_VALIDATE(false, << where << "/material: the phantom has no material '"
                                   << *in.material << "'; its materials are " << list);
        }
        auto const m = static_cast<MaterialIndex>(it - names.begin());
        for (size_type v = 0; v < w.size(); ++v)
        {
            if (grid.material()[v] != m)
                w[v] = 0;
        }
    }
    if (in.region)
    {
        std::vector<double> inside(w.size(), 0.0);
        for (size_type v : voxels_in_shape(*in.region, g))
            inside[v] = w[v];
        w = std::move(inside);
    }
    double total = 0;
    for (double x : w)
        total += x;
    MCDOSE_VALIDATE(
        total > 0, << where << ": the volume source emits from no voxel ("
                   << to_cstring(in.emission)
                   << (in.material ? ", material '" + *in.material + "'" : std::string())
                   << (in.region ? ", within its region" : "")
                   << " selects no voxel with a positive "
                   << (in.emission == EmissionDensity::activity ? "activity" : "mass or volume")
                   << "); check 'material', 'region' and the image");
    return w;
}

namespace
{
//! The emitting voxels of a volume source and the alias table of their weights.
template <class Real>
void build_emission(std::vector<double> const& weights, std::vector<std::uint32_t>& voxel,
                    std::vector<Real>& keep, std::vector<int>& alias)
{
    MCDOSE_VALIDATE(weights.size() <= std::numeric_limits<std::uint32_t>::max(),
                    << "a volume source supports grids of up to 2^32 - 1 voxels (got "
                    << weights.size() << ")");
    std::vector<double> nonzero;
    for (std::size_t v = 0; v < weights.size(); ++v)
    {
        if (weights[v] > 0)
        {
            voxel.push_back(static_cast<std::uint32_t>(v));
            nonzero.push_back(weights[v]);
        }
    }
    auto const table = make_alias_table(nonzero);
    keep.assign(table.keep.begin(), table.keep.end());
    alias = table.alias;
}

//! The alias table of `weights` in the sampler's precision.
template <class Real>
void build_alias(std::vector<double> const& weights, std::vector<Real>& keep,
                 std::vector<int>& alias)
{
    auto const table = make_alias_table(weights);
    keep.assign(table.keep.begin(), table.keep.end());
    alias = table.alias;
}
} // namespace

Array3<double> field_axis_u(Array3<double> const& direction)
{
    // cos(8 degrees) = 0.990: closer to x than that, project y instead.
    Array3<double> const ref =
        std::fabs(direction[0]) > 0.99 ? Array3<double>{{0, 1, 0}} : Array3<double>{{1, 0, 0}};
    return normalized(axpy(-dot(ref, direction), direction, ref));
}

template <class Real>
SourceParams<Real>::SourceParams(SourceInput const& in, GridGeometry const& grid,
                                 Phantom const* phantom)
{
    std::string const& where = in.pointer;
    SourceView<Real>& v = host_;
    v.particle = in.particle;

    if (in.kind == SourceKind::phase_space)
    {
        MCDOSE_VALIDATE(in.phase_space, << where << ": a phase-space source needs its file");
        v.shape = SourceShape::phase_space;
        phase_space_ = std::make_shared<PhaseSpaceChunks<Real>>(*in.phase_space, grid);
        device_ = host_;
        return;
    }
    // Energy: exactly one of energy_MeV and spectrum.
    MCDOSE_VALIDATE(in.energy_MeV.has_value() != in.spectrum.has_value(),
                    << where << ": give exactly one of 'energy_MeV' and 'spectrum'");
    if (in.energy_MeV)
    {
        MCDOSE_VALIDATE(*in.energy_MeV > 0 && std::isfinite(*in.energy_MeV),
                        << where << "/energy_MeV: must be a positive energy in MeV (got "
                        << *in.energy_MeV << ")");
        v.spectrum.mono_MeV = Real(*in.energy_MeV);
    }
    else
    {
        this->set_spectrum(*in.spectrum, where);
    }

    // Geometry, converted from physical to the grid's local frame.
    double const dnorm = norm(in.direction);
    MCDOSE_VALIDATE(dnorm > 0 && std::isfinite(dnorm),
                    << where << "/direction: must be a non-zero vector");
    Array3<double> const dir = normalized(in.direction);
    Array3<double> const u = field_axis_u(dir);
    Array3<double> const w = cross(dir, u);
    v.position_cm = to_real<Real>(grid.to_local(in.position_cm));
    v.direction = to_real<Real>(grid.direction_to_local(dir));
    v.axis_u = to_real<Real>(grid.direction_to_local(u));
    v.axis_v = to_real<Real>(grid.direction_to_local(w));

    bool const needs_field = in.kind == SourceKind::parallel || in.kind == SourceKind::point;
    MCDOSE_VALIDATE(!needs_field || in.field.has_value(),
                    << where << ": a " << to_cstring(in.kind)
                    << " source needs a 'field' (rectangle or circle)");
    switch (in.kind)
    {
    case SourceKind::pencil:
        v.shape = SourceShape::pencil;
        break;
    case SourceKind::isotropic:
        v.shape = SourceShape::isotropic_point;
        break;
    case SourceKind::volume:
        this->set_volume(in, phantom);
        break;
    case SourceKind::beam:
        this->set_beam(in, grid);
        break;
    case SourceKind::phase_space:
        break; // above
    case SourceKind::rt_plan:
        this->set_plan(in, grid, phantom);
        break;
    case SourceKind::parallel:
    case SourceKind::point:
    {
        auto const& f = *in.field;
        bool const point = in.kind == SourceKind::point;
        bool const rect = f.shape == FieldShape::rectangle;
        if (rect)
        {
            MCDOSE_VALIDATE(f.width_cm > 0 && f.height_cm > 0 && std::isfinite(f.width_cm) &&
                                std::isfinite(f.height_cm),
                            << where << "/field: 'width_cm' and 'height_cm' must be positive"
                            << " (got " << f.width_cm << ", " << f.height_cm << ")");
            v.half_u_cm = Real(f.width_cm / 2);
            v.half_v_cm = Real(f.height_cm / 2);
        }
        else
        {
            MCDOSE_VALIDATE(f.diameter_cm > 0 && std::isfinite(f.diameter_cm),
                            << where << "/field/diameter_cm: must be positive (got "
                            << f.diameter_cm << ")");
            v.radius_cm = Real(f.diameter_cm / 2);
        }
        if (point)
        {
            MCDOSE_VALIDATE(f.distance_cm > 0 && std::isfinite(f.distance_cm),
                            << where << "/field/distance_cm: a point source needs the "
                            << "positive distance at which the field is defined (got "
                            << f.distance_cm << ")");
            double const d = f.distance_cm;
            double const reach2 = rect ? f.width_cm * f.width_cm / 4 + f.height_cm * f.height_cm / 4
                                       : f.diameter_cm * f.diameter_cm / 4;
            v.field_distance_cm = Real(d);
            v.cos_cone = Real(d / std::sqrt(d * d + reach2));
            v.shape = rect ? SourceShape::point_rectangle : SourceShape::point_circle;
        }
        else
        {
            v.shape = rect ? SourceShape::parallel_rectangle : SourceShape::parallel_circle;
        }
        break;
    }
    }
    device_ = host_;
}

template <class Real>
void SourceParams<Real>::set_spectrum(SpectrumInput const& s, std::string const& where)
{
    std::string const field = where + (s.file.empty() ? "/spectrum" : "/spectrum_file");
    bool const bins = !s.edges_MeV.empty();
    MCDOSE_VALIDATE(bins || !s.lines_MeV.empty(),
                    << field << ": give histogram bins ('edges_MeV', 'weights'), lines "
                    << "('lines_MeV' with their weights) or both");
    MCDOSE_VALIDATE(
        !bins || (s.edges_MeV.size() >= 2 && s.weights.size() + 1 == s.edges_MeV.size()),
        << field << ": need n + 1 edges for n weights (got " << s.edges_MeV.size() << " edges, "
        << s.weights.size() << " weights)");
    MCDOSE_VALIDATE(s.line_weights.size() == s.lines_MeV.size(),
                    << field << ": need one weight per line (got " << s.lines_MeV.size()
                    << " lines, " << s.line_weights.size() << " weights)");
    MCDOSE_VALIDATE(s.density.empty() || s.density.size() == s.edges_MeV.size(),
                    << field << ": need one density per edge");
    for (std::size_t i = 0; i < s.edges_MeV.size(); ++i)
    {
        MCDOSE_VALIDATE(std::isfinite(s.edges_MeV[i]) && s.edges_MeV[i] >= 0 &&
                            s.edges_MeV[i] <= SourceEnergyLimits::max_MeV &&
                            (i == 0 || s.edges_MeV[i] > s.edges_MeV[i - 1]),
                        << field << "/edges_MeV/" << i << ": edges must lie in [0, "
                        << SourceEnergyLimits::max_MeV << "] MeV and increase strictly (got "
                        << s.edges_MeV[i] << ")");
    }
    for (std::size_t i = 0; i < s.lines_MeV.size(); ++i)
    {
        MCDOSE_VALIDATE(std::isfinite(s.lines_MeV[i]) &&
                            s.lines_MeV[i] >= SourceEnergyLimits::min_MeV &&
                            s.lines_MeV[i] <= SourceEnergyLimits::max_MeV,
                        << field << "/lines_MeV/" << i << ": line energies must lie in ["
                        << SourceEnergyLimits::min_MeV << ", " << SourceEnergyLimits::max_MeV
                        << "] MeV, the physics tables (got " << s.lines_MeV[i] << ")");
    }
    std::vector<double> weights = s.weights;
    weights.insert(weights.end(), s.line_weights.begin(), s.line_weights.end());
    for (std::size_t i = 0; i < weights.size(); ++i)
    {
        bool const line = i >= s.weights.size();
        MCDOSE_VALIDATE(std::isfinite(weights[i]) && weights[i] >= 0,
                        << field << (line ? "/line_weights/" : "/weights/")
                        << (line ? i - s.weights.size() : i) << ": must be >= 0 (got " << weights[i]
                        << ")");
    }
    for (std::size_t i = 0; i < s.density.size(); ++i)
    {
        MCDOSE_VALIDATE(std::isfinite(s.density[i]) && s.density[i] >= 0,
                        << field << "/density/" << i << ": must be >= 0 (got " << s.density[i]
                        << ")");
    }
    double total = 0;
    for (double w : weights)
        total += w;
    MCDOSE_VALIDATE(total > 0, << field
                               << ": all weights are zero; give at least one positive "
                                  "weight");
    build_alias(weights, keep_, alias_);
    edges_.assign(s.edges_MeV.begin(), s.edges_MeV.end());
    density_.assign(s.density.begin(), s.density.end());
    lines_.assign(s.lines_MeV.begin(), s.lines_MeV.end());
    SpectrumView<Real>& sv = host_.spectrum;
    sv.edges_MeV = make_span(std::as_const(edges_));
    sv.density = make_span(std::as_const(density_));
    sv.lines_MeV = make_span(std::as_const(lines_));
    sv.keep = make_span(std::as_const(keep_));
    sv.alias = make_span(std::as_const(alias_));
}

template <class Real>
void SourceParams<Real>::set_beam(SourceInput const& in, GridGeometry const& grid)
{
    MCDOSE_VALIDATE(in.beam, << in.pointer << ": a beam source needs its beam settings");
    BeamInput const& b = *in.beam;
    MCDOSE_VALIDATE(b.sad_cm > 0 && std::isfinite(b.sad_cm),
                    << in.pointer << "/sad_cm: must be positive (got " << b.sad_cm << ")");
    BeamField const field = beam_field(b, in.pointer);
    check_beam_reaches_grid(in, grid);
    BeamAxes const axes = beam_axes(b);
    SourceView<Real>& v = host_;
    v.shape = SourceShape::beam;
    v.position_cm = to_real<Real>(grid.to_local(axes.source_cm));
    v.direction = to_real<Real>(grid.direction_to_local(axes.central_axis));
    v.axis_u = to_real<Real>(grid.direction_to_local(axes.x_b));
    v.axis_v = to_real<Real>(grid.direction_to_local(axes.y_b));
    v.field_distance_cm = Real(b.sad_cm);
    aperture_cells_.assign(field.cells_cm.begin(), field.cells_cm.end());
    build_alias(field.weights, aperture_keep_, aperture_alias_);
    v.aperture.cells_cm = make_span(std::as_const(aperture_cells_));
    v.aperture.keep = make_span(std::as_const(aperture_keep_));
    v.aperture.alias = make_span(std::as_const(aperture_alias_));
    v.aperture.one_cell = field.weights.size() == 1;
    for (int c = 0; v.aperture.one_cell && c < 4; ++c)
        v.aperture.cell_cm[c] = Real(aperture_cells_[c]);
}

template <class Real>
void SourceParams<Real>::set_plan(SourceInput const& in, GridGeometry const& grid,
                                  Phantom const* phantom)
{
    MCDOSE_VALIDATE(in.plan, << in.pointer << ": an rt_plan source needs its plan");
    plan_ = std::make_shared<PlanParams<Real>>(*in.plan, grid, in.pointer,
                                               phantom ? phantom->frame_of_reference_uid : "");
    host_.shape = SourceShape::plan;
    host_.plan = plan_->host_view();
}

template <class Real>
void SourceParams<Real>::set_volume(SourceInput const& in, Phantom const* phantom)
{
    MCDOSE_VALIDATE(phantom && in.volume,
                    << in.pointer << ": a volume source needs the phantom it emits from");
    GridGeometry const& g = phantom->grid.geometry();
    build_emission(volume_emission_weights(*in.volume, *phantom, in.pointer), emission_voxel_,
                   emission_keep_, emission_alias_);
    EmissionView<Real>& e = host_.emission;
    e.voxel = make_span(std::as_const(emission_voxel_));
    e.keep = make_span(std::as_const(emission_keep_));
    e.alias = make_span(std::as_const(emission_alias_));
    e.nx = static_cast<unsigned>(g.dims[0]);
    e.ny = static_cast<unsigned>(g.dims[1]);
    e.spacing_cm = to_real<Real>(g.spacing_cm);
    host_.shape = SourceShape::volume;
}

template <class Real>
SourceView<Real> const& SourceParams<Real>::device_view()
{
    if (!uploaded_)
    {
        SpectrumView<Real>& sv = device_.spectrum;
        if (!keep_.empty())
        {
            device_keep_ = DeviceBuffer<Real>(keep_);
            device_alias_ = DeviceBuffer<int>(alias_);
            sv.keep = std::as_const(device_keep_).device_span();
            sv.alias = std::as_const(device_alias_).device_span();
        }
        if (!edges_.empty())
        {
            device_edges_ = DeviceBuffer<Real>(edges_);
            sv.edges_MeV = std::as_const(device_edges_).device_span();
        }
        if (!density_.empty())
        {
            device_density_ = DeviceBuffer<Real>(density_);
            sv.density = std::as_const(device_density_).device_span();
        }
        if (!lines_.empty())
        {
            device_lines_ = DeviceBuffer<Real>(lines_);
            sv.lines_MeV = std::as_const(device_lines_).device_span();
        }
        if (!aperture_cells_.empty())
        {
            device_aperture_cells_ = DeviceBuffer<Real>(aperture_cells_);
            device_aperture_keep_ = DeviceBuffer<Real>(aperture_keep_);
            device_aperture_alias_ = DeviceBuffer<int>(aperture_alias_);
            device_.aperture.cells_cm = std::as_const(device_aperture_cells_).device_span();
            device_.aperture.keep = std::as_const(device_aperture_keep_).device_span();
            device_.aperture.alias = std::as_const(device_aperture_alias_).device_span();
        }
        if (plan_)
            device_.plan = plan_->device_view();
        if (!emission_voxel_.empty())
        {
            device_emission_voxel_ = DeviceBuffer<std::uint32_t>(emission_voxel_);
            device_emission_keep_ = DeviceBuffer<Real>(emission_keep_);
            device_emission_alias_ = DeviceBuffer<int>(emission_alias_);
            device_.emission.voxel = std::as_const(device_emission_voxel_).device_span();
            device_.emission.keep = std::as_const(device_emission_keep_).device_span();
            device_.emission.alias = std::as_const(device_emission_alias_).device_span();
        }
        uploaded_ = true;
    }
    return device_;
}

template <class Real>
void SourceParams<Real>::load_phase_space(std::uint64_t first_history, std::uint64_t end_history,
                                          bool device)
{
    MCDOSE_EXPECT(phase_space_);
    (device ? device_ : host_).phase_space = phase_space_->load(first_history, end_history, device);
}

template <class Real>
void SourceParams<Real>::prefetch_phase_space(std::uint64_t first_history,
                                              std::uint64_t end_history, int gpu)
{
    if (phase_space_)
        phase_space_->prefetch(first_history, end_history, gpu);
}

template <class Real>
SourceMixParams<Real>::SourceMixParams(std::vector<SourceInput> const& inputs,
                                       GridGeometry const& grid, Phantom const* phantom)
{
    MCDOSE_VALIDATE(!inputs.empty(), << "'sources' is empty; give at least one source");
    std::size_t with_particles = 0;
    for (auto const& in : inputs)
        with_particles += in.particles.has_value();
    MCDOSE_VALIDATE(with_particles == 0 || with_particles == inputs.size(),
                    << "'sources': " << with_particles << " of " << inputs.size()
                    << " sources give 'particles'; give it for every source (the run then "
                       "represents their sum) or for none");
    for (auto const& in : inputs)
    {
        MCDOSE_VALIDATE(in.kind != SourceKind::phase_space || inputs.size() == 1,
                        << in.pointer
                        << ": a phase-space source must be the study's only "
                           "source (its histories follow the file); remove the "
                           "others or run them as a separate study");
    }
    // Beams given both 'particles' and monitor units by hand (a calibration turns monitor
    // units into particles itself, field by field).
    SourceInput const* calibrated = nullptr; // the first such beam
    for (auto const& in : inputs)
    {
        if (!with_particles || !in.beam || !in.monitor_units || !in.calibration.empty())
            continue;
        double const per_mu = *in.particles / *in.monitor_units;
        if (!calibrated)
        {
            calibrated = &in;
            continue;
        }
        double const first = *calibrated->particles / *calibrated->monitor_units;
        MCDOSE_VALIDATE(std::fabs(per_mu - first) <= 1e-6 * first,
                        << in.pointer << "/particles: " << per_mu << " particles per monitor "
                        << "unit here but " << first << " in " << calibrated->pointer
                        << "; one linac calibration gives every beam the same ratio: give "
                           "'particles' = monitor_units x (particles per MU) on each beam");
    }
    double total = 0;
    for (auto const& in : inputs)
    {
        params_.emplace_back(in, grid, phantom);
        double const w = with_particles ? *in.particles : in.weight;
        MCDOSE_VALIDATE(w > 0, << in.pointer << ": the source's "
                               << (with_particles ? "'particles'" : "'weight'")
                               << " must be positive (got " << w << ")");
        probability_.push_back(w);
        total += w;
    }
    double acc = 0;
    for (auto& p : probability_)
    {
        p /= total;
        acc += p;
        cdf_.push_back(Real(acc));
    }
    cdf_.back() = 1;
    for (auto const& p : params_)
        host_views_.push_back(p.host_view());
}

template <class Real>
SourceMixView<Real> SourceMixParams<Real>::host_view() const
{
    return {make_span(host_views_), make_span(cdf_)};
}

template <class Real>
SourceMixView<Real> SourceMixParams<Real>::device_view()
{
    if (!uploaded_)
    {
        std::vector<SourceView<Real>> views;
        for (auto& p : params_)
            views.push_back(p.device_view());
        device_views_ = DeviceBuffer<SourceView<Real>>(views);
        device_cdf_ = DeviceBuffer<Real>(cdf_);
        uploaded_ = true;
    }
    return {std::as_const(device_views_).device_span(), std::as_const(device_cdf_).device_span()};
}

template <class Real>
void SourceMixParams<Real>::prefetch_phase_space(std::uint64_t first_history,
                                                 std::uint64_t end_history, int gpu)
{
    for (auto& params : params_)
        params.prefetch_phase_space(first_history, end_history, gpu);
}

template <class Real>
SourceMixView<Real> SourceMixParams<Real>::load_phase_space(std::uint64_t first_history,
                                                            std::uint64_t end_history, bool device)
{
    MCDOSE_EXPECT(params_.size() == 1);
    if (device)
        this->device_view(); // tables and views uploaded once
    params_.front().load_phase_space(first_history, end_history, device);
    if (!device)
    {
        host_views_.front() = params_.front().host_view();
        return this->host_view();
    }
    std::vector<SourceView<Real>> const views{params_.front().device_view()};
    device_views_.copy_to_device(make_span(views));
    return this->device_view();
}

template class SourceParams<float>;
template class SourceParams<double>;
template class SourceMixParams<float>;
template class SourceMixParams<double>;
} // namespace mcdose
