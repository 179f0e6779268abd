//! \file sources/SourceParams.cc
#include "sources/SourceParams.hh"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/Assert.hh"
#include "io/ImageIO.hh"
#include "phantoms/PhantomBuilder.hh"
#include "phantoms/VoxelGrid.hh"
#include "sources/PhaseSpaceSource.hh"
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
    case SourceKind::phase_space:
        break; // above
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
    bool const lines = !s.lines_MeV.empty();
    auto const& energies = lines ? s.lines_MeV : s.edges_MeV;
    std::string const field = where + (s.file.empty() ? "/spectrum" : "/spectrum_file");
    MCDOSE_VALIDATE(lines ? s.weights.size() == energies.size()
                          : energies.size() >= 2 && s.weights.size() + 1 == energies.size(),
                    << field << ": need "
                    << (lines ? "one weight per line" : "n + 1 edges for n weights") << " (got "
                    << energies.size() << (lines ? " lines, " : " edges, ") << s.weights.size()
                    << " weights)");
    for (std::size_t i = 0; i < energies.size(); ++i)
    {
        MCDOSE_VALIDATE(
            std::isfinite(energies[i]) && energies[i] >= 0 &&
                (lines || i == 0 || energies[i] > energies[i - 1]),
            << field << (lines ? "/lines_MeV/" : "/edges_MeV/") << i
            << (lines ? ": energies must be >= 0" : ": edges must be >= 0 and increase strictly"));
    }
    for (std::size_t i = 0; i < s.weights.size(); ++i)
    {
        MCDOSE_VALIDATE(std::isfinite(s.weights[i]) && s.weights[i] >= 0,
                        << field << "/weights/" << i << ": must be >= 0 (got " << s.weights[i]
                        << ")");
    }
    auto const table = make_alias_table(s.weights);
    edges_.assign(energies.begin(), energies.end());
    keep_.assign(table.keep.begin(), table.keep.end());
    alias_ = table.alias;
    SpectrumView<Real>& sv = host_.spectrum;
    (lines ? sv.lines_MeV : sv.edges_MeV) = make_span(std::as_const(edges_));
    sv.keep = make_span(std::as_const(keep_));
    sv.alias = make_span(std::as_const(alias_));
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
        if (!edges_.empty())
        {
            device_edges_ = DeviceBuffer<Real>(edges_);
            device_keep_ = DeviceBuffer<Real>(keep_);
            device_alias_ = DeviceBuffer<int>(alias_);
            (host_.spectrum.lines_MeV.empty() ? device_.spectrum.edges_MeV
                                              : device_.spectrum.lines_MeV) =
                std::as_const(device_edges_).device_span();
            device_.spectrum.keep = std::as_const(device_keep_).device_span();
            device_.spectrum.alias = std::as_const(device_alias_).device_span();
        }
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
